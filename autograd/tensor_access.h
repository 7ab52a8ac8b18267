// autograd/tensor_access.h — the autograd layer's access to a tensor's AutogradMeta (Tensor names
// TensorAccess its friend); nothing outside autograd/ uses it.
#pragma once

#include <memory>

#include "core/autograd_meta.h"
#include "core/tensor.h"

namespace tl {

struct TensorAccess {
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
  /// A new tensor object over the same storage and geometry, with no autograd state.
  static Tensor alias(const Tensor& t) {
    TL_CHECK(t.impl_ != nullptr, "autograd: tensor is undefined (None)");
    Tensor out;
    out.impl_ = std::make_shared<TensorImpl>(*t.impl_);
    out.impl_->autograd = nullptr;
    return out;
  }
};

}  // namespace tl
