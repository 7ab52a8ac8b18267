// autograd/record.cpp — what happens at the dispatch point when an input requires grad: the op runs
// with grad mode off, and a node with its derivative, its saved tensors and edges to its inputs'
// history becomes the grad_fn of its floating outputs. In-place ops move their self's history onto the
// new node; an in-place op on a view rewrites the base's history (CopySlices) as PyTorch does, and
// a view whose storage was written since its history was set replays it from its base's.

#include "autograd/derivatives.h"
#include "autograd/node.h"
#include "core/autograd_meta.h"
#include "core/grad_mode.h"
#include "core/op_kind.h"
#include "core/schema.h"
#include "ops/ops.h"

namespace tl::autograd {
namespace {

// The node of one recorded op.
class OpNode final : public Node {
 public:
  OpNode(OpKind op, const Derivative& d, OpArgs args) : op_(op), d_(d), args_(std::move(args)) {}
  std::string name() const override { return d_.overload_name ? d_.overload_name(args_.get()) : d_.name; }

  TensorList apply(TensorList grads) override {
    TL_CHECK(d_.kind == DerivativeKind::Formula, "the derivative for '", op_info(op_).aten_name,
             "' is not implemented");
    const GradContext ctx(*this, grads, args_, inputs_, saved_inputs_, saved_outputs_, needs_);
    TensorList out = d_.formula(ctx);
    out.resize(inputs_.size());
    for (size_t i = 0; i < out.size(); ++i) {
      if (!needs_[i] || !out[i].defined()) {
        out[i] = Tensor();
        continue;
      }
      if (out[i].shape() != inputs_[i].shape) out[i] = sum_to(out[i], inputs_[i].shape);
      if (out[i].dtype() != inputs_[i].dtype) out[i] = out[i].to(inputs_[i].dtype);
    }
    return out;
  }

  void release_saved() override {
    for (SavedTensor& s : saved_inputs_) if (s.defined()) s.reset();
    for (SavedTensor& s : saved_outputs_) if (s.defined()) s.reset();
    released_ = has_saved_;
  }
  bool released() const override { return released_; }

  std::vector<TensorInfo> inputs_;
  std::vector<SavedTensor> saved_inputs_, saved_outputs_;
  std::vector<bool> needs_;
  bool has_saved_ = false;

 private:
  OpKind op_;
  const Derivative& d_;
  OpArgs args_;  ///< the call's arguments struct, which the formula and the node's name read
  bool released_ = false;
};

// Where a view lies in its base's storage.
struct Geometry {
  Shape sizes;
  Strides strides;
  int64_t offset = 0;
  static Geometry of(const Tensor& t) { return {t.shape(), t.strides(), t.storage_offset()}; }
};

// A gradient laid out like the base (a fresh storage as large as the base's), and the view's part of it.
struct BaseGradient {
  Tensor base, view;
  BaseGradient(const Geometry& base_geo, int64_t storage_bytes, const Geometry& view_geo, DType dtype) {
    std::shared_ptr<Storage> storage = Tensor::allocate({storage_bytes / element_size(dtype)}, dtype).storage();
    base = Tensor::make(storage, base_geo.sizes, base_geo.strides, base_geo.offset, dtype);
    view = Tensor::make(storage, view_geo.sizes, view_geo.strides, view_geo.offset, dtype);
  }
};

// The history of a base after an in-place op wrote one of its views: the base's gradient passes
// through unchanged outside the view; inside, it goes through the in-place op's node.
class CopySlices final : public Node {
 public:
  CopySlices(Geometry base, int64_t storage_bytes, Geometry view, DType dtype, std::shared_ptr<Node> fn)
      : base_(std::move(base)), view_(std::move(view)), bytes_(storage_bytes), dtype_(dtype), fn_(std::move(fn)) {}
  std::string name() const override { return "CopySlices"; }

  TensorList apply(TensorList grads) override {
    if (!grads.at(0).defined()) return TensorList(next_edges.size());
    BaseGradient g(base_, bytes_, view_, dtype_);
    g.base.copy_(grads[0]);
    TensorList res = fn_->apply({g.view.clone()});
    if (res.at(0).defined()) g.view.copy_(res[0]);
    else g.view.copy_(zeros({}, dtype_));
    res[0] = g.base;
    return res;
  }
  void release_saved() override { fn_->release_saved(); }
  bool released() const override { return fn_->released(); }

 protected:
  void take_held_nodes(std::vector<std::shared_ptr<Node>>& out) override { out.push_back(std::move(fn_)); }

 private:
  Geometry base_, view_;
  int64_t bytes_;
  DType dtype_;
  std::shared_ptr<Node> fn_;
};

// A view's history once its base's history was rewritten: its gradient is the base's, zero outside it.
class AsStridedBackward final : public Node {
 public:
  AsStridedBackward(Geometry base, int64_t storage_bytes, Geometry view, DType dtype)
      : base_(std::move(base)), view_(std::move(view)), bytes_(storage_bytes), dtype_(dtype) {}
  std::string name() const override { return "AsStridedBackward0"; }
  TensorList apply(TensorList grads) override {
    BaseGradient g(base_, bytes_, view_, dtype_);
    g.base.copy_(zeros({}, dtype_));
    g.view.copy_(grads.at(0));
    return {g.base};
  }

 private:
  Geometry base_, view_;
  int64_t bytes_;
  DType dtype_;
};

bool is_proxy_call(std::span<const Tensor> inputs) {
  for (const Tensor& t : inputs)
    if (t.is_proxy()) return true;
  return false;
}

void check_inplace_target(OpKind op, const Tensor& self) {
  const AutogradMeta* meta = TensorImplAccess::meta(self);
  if (meta == nullptr) return;
  TL_CHECK(!(meta->requires_grad && meta->grad_fn == nullptr), "a leaf Variable that requires grad is being used in an "
           "in-place operation (", op_name(op), " on a tensor of size ", self.shape(), "); run it under tl::NoGradGuard "
           "or on a clone");
  if (meta->base.defined() && meta->base.requires_grad() && meta->base.is_leaf())
    TL_CHECK(false, "a view of a leaf Variable that requires grad is being used in an in-place operation (", op_name(op),
             " on a view of size ", self.shape(), " of a leaf of size ", meta->base.shape(), ")");
}

void rebase_view_history(const Tensor& view, const std::shared_ptr<Node>& fn) {
  AutogradMeta& vmeta = TensorImplAccess::ensure_meta(view);
  const Tensor base = vmeta.base;
  const Geometry bg = Geometry::of(base), vg = Geometry::of(view);
  const int64_t bytes = base.storage()->nbytes();
  auto slices = std::make_shared<CopySlices>(bg, bytes, vg, base.dtype(), fn);
  slices->next_edges.push_back(gradient_edge(base));
  for (size_t i = 1; i < fn->next_edges.size(); ++i) slices->next_edges.push_back(fn->next_edges[i]);
  slices->output_meta.push_back({base.shape(), base.dtype()});
  AutogradMeta& bmeta = TensorImplAccess::ensure_meta(base);
  bmeta.requires_grad = true;
  bmeta.grad_fn = slices;
  bmeta.output_nr = 0;
  refresh_view_history(view);
}

// A retained gradient belongs to the tensor's current history: an in-place op moves it from the node
// that made the old value to the one that made the new.
void move_retained_grad(const Tensor& self, const std::shared_ptr<Node>& old_fn, uint32_t old_nr) {
  AutogradMeta& meta = TensorImplAccess::ensure_meta(self);
  if (old_fn && old_nr < old_fn->retained.size())
    std::erase_if(old_fn->retained[old_nr],
                  [&](const std::weak_ptr<TensorImpl>& w) { return TensorImplAccess::lock(w).is_same(self); });
  auto& now = meta.grad_fn->retained;
  if (now.size() <= meta.output_nr) now.resize(meta.output_nr + 1);
  now[meta.output_nr].push_back(TensorImplAccess::weak(self));
}

TensorList record(OpKind op, std::span<const Tensor> inputs, const void* args, CallStyle style) {
  const Derivative& d = derivative_of(op);
  if (d.kind == DerivativeKind::NotDifferentiable || is_proxy_call(inputs)) {
    NoGradGuard no_grad;
    return dispatch::call_kernel(op, inputs, args, style);
  }
  if (d.kind == DerivativeKind::Composite) {
    auto run = [&] { return d.decomposition ? d.decomposition(inputs, args) : op_info(op).run(inputs, args); };
    if (!dispatch::has_hooks()) return run();
    return dispatch::call_with_hooks(OpCall{op, style, inputs, args, -1, d.decomposition != nullptr}, run);
  }
  // The tensor an in-place op writes (`Tensor(a!) self`) takes the op's node as its history; -1 when none.
  const Schema& schema = schema_of(op);
  int w = -1;
  for (size_t i : schema.written_inputs(inputs.size())) {
    if (!inputs[i].defined()) continue;  // an optional out= left None writes nothing
    TL_CHECK(schema.out_index() < 0, op_name(op), "(): functions with out=... arguments don't support automatic "
             "differentiation, but one of the arguments requires grad.");
    TL_INTERNAL_ASSERT(w < 0, op_name(op), ": an op writing several tensors has no autograd");
    w = static_cast<int>(i);
  }
  if (w >= 0) check_inplace_target(op, inputs[w]);

  auto node = std::make_shared<OpNode>(op, d, op_info(op).own(args));
  node->inputs_.resize(inputs.size());
  node->needs_.resize(inputs.size());
  node->saved_inputs_.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined()) {
      node->next_edges.push_back({});
      continue;
    }
    node->inputs_[i] = {t.shape(), t.dtype(), true};
    node->next_edges.push_back(gradient_edge(t));
    node->needs_[i] = node->next_edges.back().valid() && is_floating_point(t.dtype());
  }
  // Only what the formulas of the inputs that need grad read: a constant operand's partner is not kept.
  const auto slots = schema.tensor_slots(inputs.size());
  const Reads saved = saved_by(d, node->needs_, slots);
  for (size_t arg = 0; arg < slots.size() && arg < 32; ++arg) {
    if (!(saved.inputs >> arg & 1u)) continue;
    for (size_t i = slots[arg].first; i < slots[arg].second; ++i) {
      if (!inputs[i].defined()) continue;
      // An in-place op overwrites self: its formula needs the value self had.
      const Tensor& t = inputs[i];
      node->saved_inputs_[i] = static_cast<int>(i) == w ? SavedTensor(t.clone(), false) : SavedTensor(t, false);
      node->has_saved_ = true;
    }
  }
  TensorList out;
  {
    NoGradGuard no_grad;
    out = dispatch::call_kernel(op, inputs, args, style, static_cast<int64_t>(node->sequence_nr));
  }
  for (const Tensor& o : out)
    if (o.defined() && o.is_proxy()) return out;

  node->saved_outputs_.resize(out.size());
  for (size_t k = 0; k < out.size(); ++k) {
    const Tensor& o = out[k];
    node->output_meta.push_back(o.defined() ? TensorInfo{o.shape(), o.dtype(), true} : TensorInfo{});
    if (k < 32 && (saved.outputs >> k & 1u) && o.defined()) {
      node->saved_outputs_[k] = SavedTensor(o, true);
      node->has_saved_ = true;
    }
  }
  node->retained.resize(out.size());
  if (w >= 0) {
    const Tensor& self = inputs[w];
    AutogradMeta& meta = TensorImplAccess::ensure_meta(self);
    const std::shared_ptr<Node> old_fn = meta.grad_fn;
    const uint32_t old_nr = meta.output_nr;
    if (meta.base.defined()) {
      rebase_view_history(self, node);
    } else {
      meta.requires_grad = true;
      meta.grad_fn = node;
      meta.output_nr = 0;
    }
    if (meta.retains_grad) move_retained_grad(self, old_fn, old_nr);
    return out;
  }
  for (size_t k = 0; k < out.size(); ++k) {
    const Tensor& o = out[k];
    if (!o.defined() || !is_floating_point(o.dtype()) || (k < 32 && !(d.differentiable_outputs >> k & 1u))) continue;
    bool is_input = false;
    for (const Tensor& in : inputs) is_input = is_input || o.is_same(in);
    if (is_input) continue;  // the op returned its input itself (contiguous of a contiguous tensor)
    AutogradMeta& meta = TensorImplAccess::ensure_meta(o);
    meta.requires_grad = true;
    meta.grad_fn = node;
    meta.output_nr = static_cast<uint32_t>(k);
  }
  return out;
}

}  // namespace

void refresh_view_history(const Tensor& view) {
  AutogradMeta& vmeta = TensorImplAccess::ensure_meta(view);
  const Tensor base = vmeta.base;
  vmeta.view_version = view._version();
  if (!base.requires_grad()) return;
  const Geometry bg = Geometry::of(base), vg = Geometry::of(view);
  auto as_view = std::make_shared<AsStridedBackward>(bg, base.storage()->nbytes(), vg, base.dtype());
  as_view->next_edges.push_back(gradient_edge(base));
  as_view->output_meta.push_back({view.shape(), view.dtype()});
  as_view->retained.resize(1);
  vmeta.requires_grad = true;
  vmeta.grad_fn = as_view;
  vmeta.output_nr = 0;
}

void install_recorder() { dispatch::set_autograd_fn(&record); }

}  // namespace tl::autograd
