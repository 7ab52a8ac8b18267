// autograd/tensor_autograd.cpp — the autograd methods of Tensor (requires_grad_, backward, detach, ...)
// and the installation of the recorder at the dispatch point. Any program that can make a tensor
// require grad links this file, so the recorder is always installed before it is needed.
#include "autograd/engine.h"
#include "autograd/node.h"
#include "core/autograd_meta.h"

namespace tl {
namespace autograd {
void install_recorder();
}  // namespace autograd

namespace {

const bool kRecorderInstalled =
    (autograd::install_recorder(), set_grad_fn_name_fn([](const Tensor& t) { return t.grad_fn_name(); }), true);

}  // namespace

Tensor& Tensor::requires_grad_(bool requires_grad) {
  TL_CHECK(kRecorderInstalled, "requires_grad_: autograd is not installed");
  TL_CHECK(defined(), "requires_grad_: tensor is undefined (None)");
  TL_CHECK(!is_proxy(), "requires_grad_: ", proxy()->describe());
  if (!requires_grad && !this->requires_grad()) return *this;
  TL_CHECK(is_leaf(), "you can only change requires_grad flags of leaf variables; this tensor was made by ",
           grad_fn_name(), ". Use detach() to get a leaf that ", requires_grad ? "requires" : "does not require",
           " grad.");
  TL_CHECK(!requires_grad || is_floating_point(dtype()),
           "only Tensors of floating point dtype can require gradients, got ", dtype());
  TensorImplAccess::ensure_meta(*this).requires_grad = requires_grad;
  return *this;
}

GradSlot Tensor::mutable_grad() { return GradSlot(*this, TensorImplAccess::ensure_meta(*this).grad); }

// PyTorch's THPVariable_set_grad: the checks of `x.grad = g`, in its order.
GradSlot& GradSlot::operator=(const Tensor& grad) {
  if (grad.defined()) {
    TL_CHECK(!grad.is_same(owner_), "can't assign Variable as its own grad");
    TL_CHECK(grad.dtype() == owner_.dtype(), "assigned grad has data of a different type: the tensor is ",
             owner_.dtype(), ", the gradient ", grad.dtype());
    TL_CHECK(grad.shape() == owner_.shape(), "assigned grad has data of a different size: the tensor has size ",
             owner_.shape(), ", the gradient ", grad.shape());
  }
  slot_ = grad;
  return *this;
}

std::string Tensor::grad_fn_name() const {
  autograd::gradient_edge(*this);  // a view's history may need rebuilding first
  const AutogradMeta* meta = TensorImplAccess::meta(*this);
  return meta && meta->grad_fn ? meta->grad_fn->name() : std::string();
}

void Tensor::retain_grad() {
  TL_CHECK(requires_grad(), "can't retain_grad on a Tensor that has requires_grad=False");
  AutogradMeta& meta = TensorImplAccess::ensure_meta(*this);
  if (meta.grad_fn == nullptr || meta.retains_grad) return;  // a leaf keeps its .grad anyway
  meta.retains_grad = true;
  auto& retained = meta.grad_fn->retained;
  if (retained.size() <= meta.output_nr) retained.resize(meta.output_nr + 1);
  retained[meta.output_nr].push_back(TensorImplAccess::weak(*this));
}

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph);
}

Tensor Tensor::detach() const { return TensorImplAccess::alias(*this); }

}  // namespace tl
