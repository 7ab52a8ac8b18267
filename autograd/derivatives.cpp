// autograd/derivatives.cpp — what a derivative formula reads through GradContext, and the sums that put
// broadcast gradients back to their inputs' shapes. The entries themselves are generated from the op
// rows (autograd/op_derivatives.cpp); their helpers are autograd/formulas.cpp.
#include "autograd/derivatives.h"

#include "autograd/node.h"
#include "ops/ops.h"

namespace tl::autograd {

Tensor GradContext::grad(size_t i) const {
  if (has_grad(i)) return grads_[i];
  const TensorInfo& m = node_.output_meta.at(i);
  return zeros(m.shape, m.dtype);
}

Tensor GradContext::input(size_t i) const {
  TL_INTERNAL_ASSERT(i < saved_inputs_.size() && saved_inputs_[i].defined(), node_.name(), ": input ", i, " was not saved");
  return saved_inputs_[i].unpack(node_);
}

Tensor GradContext::output(size_t i) const {
  if (i >= node_.output_meta.size()) return {};  // the call made fewer outputs (max() without a dim: no indices)
  TL_INTERNAL_ASSERT(i < saved_outputs_.size() && saved_outputs_[i].defined(), node_.name(), ": output ", i,
                     " was not saved");
  return saved_outputs_[i].unpack(node_);
}

Tensor GradContext::input_or_number(size_t i, const std::optional<Scalar>& number) const {
  if (i < inputs_.size() && inputs_[i].defined) return input(i);
  TL_INTERNAL_ASSERT(number.has_value(), node_.name(), ": input ", i, " is neither a tensor nor a number");
  return scalar_tensor(*number, info(0).dtype);
}

bool GradContext::any_needs() const {
  for (bool n : needs_)
    if (n) return true;
  return false;
}

TensorList GradContext::inputs(size_t begin, size_t end) const {
  TensorList out;
  for (size_t i = begin; i < end; ++i) out.push_back(info(i).defined ? input(i) : Tensor());
  return out;
}

Reads saved_by(const Derivative& d, const std::vector<bool>& needs, std::span<const std::pair<size_t, size_t>> slots) {
  Reads saved;
  for (size_t arg = 0; arg < slots.size() && arg < d.reads.size(); ++arg)
    for (size_t i = slots[arg].first; i < slots[arg].second && i < needs.size(); ++i)
      if (needs[i]) saved = saved | d.reads[arg];
  return saved;
}

Tensor sum_to(const Tensor& g, const Shape& shape) {
  if (g.shape() == shape) return g;
  const int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  TL_INTERNAL_ASSERT(lead >= 0, "sum_to: gradient of size ", g.shape(), " cannot be summed to size ", shape);
  Shape dims;
  for (int64_t d = 0; d < g.dim(); ++d)
    if (d < lead || (shape[d - lead] == 1 && g.size(d) != 1)) dims.push_back(d);
  Tensor r = dims.empty() ? g : sum(g, dims, true);
  return r.reshape(shape);
}

}  // namespace tl::autograd
