// core/autograd_meta.h — what a tensor carries for autograd: requires_grad, its accumulated .grad,
// the backward node that made it (grad_fn) and, for a view, its base. The dispatch point marks views
// (every op whose schema returns an alias of its input); the autograd/ layer does the rest.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/tensor.h"

namespace tl {
namespace autograd {
class Node;
}  // namespace autograd

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;  ///< a non-leaf whose .grad is kept (retain_grad())
  Tensor grad;                ///< accumulated gradient; undefined until a backward reaches it
  /// The node whose output this tensor is; null for a leaf.
  std::shared_ptr<autograd::Node> grad_fn;
  uint32_t output_nr = 0;  ///< which output of grad_fn
  /// A leaf's gradient accumulator, shared by every use of the leaf in one graph.
  std::weak_ptr<autograd::Node> grad_accumulator;
  /// Guards grad_accumulator and grad: threads that share a model (its parameters) record and run
  /// backward concurrently, as PyTorch allows.
  std::mutex mutex;
  /// For a view: the tensor whose storage it views (never itself a view).
  Tensor base;
  /// The storage version when this view's history was last set: an in-place write through the base or
  /// another view since then makes autograd rebuild it from the base's (PyTorch's view replay).
  int64_t view_version = 0;
};

/// The name of `t`'s grad_fn ("MulBackward0"; "" for none), as the printer shows it. The nodes are the
/// autograd layer's: it installs this with its recorder, before any tensor can have a grad_fn.
using GradFnNameFn = std::string (*)(const Tensor& t);
void set_grad_fn_name_fn(GradFnNameFn fn);
/// The installed function, or nullptr.
GradFnNameFn grad_fn_name_fn();

/// The library's own access to a tensor's implementation: its AutogradMeta for the dispatch point and
/// the autograd/ layer, its implementation handle (weak references, aliases, use counts) for autograd's
/// saved tensors, and its parameter mark for nn/ (TensorBase names it its friend). User code has Tensor's
/// methods instead.
struct TensorImplAccess {
  /// The tensor's autograd state, or nullptr when it has none.
  static AutogradMeta* meta(const Tensor& t) { return t.impl_ ? t.impl_->autograd.get() : nullptr; }
  /// The tensor's autograd state, made empty first when it has none.
  static AutogradMeta& ensure_meta(const Tensor& t) {
    TL_CHECK(t.impl_ != nullptr, "autograd: tensor is undefined (None)");
    if (!t.impl_->autograd) t.impl_->autograd = std::make_shared<AutogradMeta>();
    return *t.impl_->autograd;
  }
  static std::weak_ptr<TensorImpl> weak(const Tensor& t) { return t.impl_; }
  static Tensor lock(const std::weak_ptr<TensorImpl>& w) {
    Tensor t;
    t.impl_ = w.lock();
    return t;
  }
  /// How many Tensor handles share this tensor object.
  static long use_count(const Tensor& t) { return t.impl_.use_count(); }
  /// A new tensor object over the same storage and geometry, with no autograd state (a plain tensor,
  /// also when `t` is a parameter).
  static Tensor alias(const Tensor& t) {
    TL_CHECK(t.impl_ != nullptr, "autograd: tensor is undefined (None)");
    Tensor out;
    out.impl_ = std::make_shared<TensorImpl>(*t.impl_);
    out.impl_->autograd = nullptr;
    out.impl_->is_parameter = false;
    return out;
  }
  /// Marks `t` as a module's parameter (nn's register_parameter): print(t) says "Parameter containing:".
  static void mark_parameter(const Tensor& t) {
    TL_CHECK(t.impl_ != nullptr, "mark_parameter: tensor is undefined (None)");
    t.impl_->is_parameter = true;
  }
  /// Records that `view` (an op's result sharing `input`'s storage) views input's base.
  static void mark_view(const Tensor& view, const Tensor& input) {
    AutogradMeta& meta = ensure_meta(view);
    if (meta.base.defined()) return;
    const AutogradMeta* in = input.impl_->autograd.get();
    meta.base = in && in->base.defined() ? in->base : input;
    meta.view_version = view._version();
  }
};

/// Deprecated in 0.2.0, removed in 0.3.0: TensorAccess is TensorImplAccess.
using TensorAccess [[deprecated("tl::TensorAccess is tl::TensorImplAccess")]] = TensorImplAccess;

}  // namespace tl
