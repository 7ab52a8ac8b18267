// autograd/derivatives.cpp — the derivative of every op, in core/op_list.h's order: PyTorch's
// derivatives.yaml as C++. Formulas run with grad mode off and return one gradient per tensor input;
// the node sums broadcast gradients back to each input's shape. A row of op_list.h without a case
// here is a compile error (-Werror=switch below).
#include "autograd/derivatives.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "autograd/node.h"
#include "core/op_kind.h"
#include "core/schema.h"
#include "ops/ops.h"

#pragma GCC diagnostic error "-Wswitch"

namespace tl::autograd {

Tensor GradContext::grad(size_t i) const {
  if (has_grad(i)) return grads_[i];
  const GradMeta& m = node_.output_meta.at(i);
  return zeros(m.shape, m.dtype);
}

Tensor GradContext::input(size_t i) const {
  TL_INTERNAL_ASSERT(i < saved_inputs_.size() && saved_inputs_[i].defined(), node_.name(), ": input ", i, " was not saved");
  return saved_inputs_[i].unpack(node_);
}

Tensor GradContext::output(size_t i) const {
  TL_INTERNAL_ASSERT(i < saved_outputs_.size() && saved_outputs_[i].defined(), node_.name(), ": output ", i,
                     " was not saved");
  return saved_outputs_[i].unpack(node_);
}

Reads saved_by(const Derivative& d, const std::vector<bool>& needs) {
  Reads saved;
  for (size_t i = 0; i < needs.size() && i < d.reads.size(); ++i)
    if (needs[i]) saved = saved | d.reads[i];
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

namespace {

using Kind = DerivativeKind;

// An entry of Derivative::reads: reads_input(0, 1) = "reads tensor inputs 0 and 1".
template <typename... I>
Reads reads_input(I... i) {
  return {(0u | ... | (1u << i)), 0};
}
template <typename... K>
Reads reads_output(K... k) {
  return {0, (0u | ... | (1u << k))};
}

bool keepdim_of(const Attrs& a) {
  const AttrValue* v = a.find("keepdim");
  return v != nullptr && std::get<bool>(*v);
}

// The second operand of a pointwise binary op: input 1, or the number in attrs (x * 2).
bool has_tensor_other(const GradContext& c) { return c.num_inputs() > 1 && c.info(1).defined; }

Tensor other_or_scalar(const GradContext& c, const char* name) {
  if (has_tensor_other(c)) return c.input(1);
  return scalar_tensor(c.attrs().scalar(name), c.info(0).dtype);
}

// A reduced gradient put back where the reduced dimensions were (keepdim=false removed them).
Tensor unreduce(const Tensor& g, const Shape& input_shape, const Shape& dims, bool keepdim) {
  Tensor r = g;
  if (!keepdim) {
    Shape sorted = dims;
    for (int64_t& d : sorted) d = d < 0 ? d + static_cast<int64_t>(input_shape.size()) : d;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t d : sorted) r = r.unsqueeze(d);
  }
  return r.expand(input_shape);
}

Shape reduced_dims(const Attrs& a, size_t rank) {
  if (a.is_none("dim")) {
    Shape all(rank);
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  const Shape dims = a.int_list("dim");
  if (dims.empty()) return reduced_dims(Attrs{}, rank);
  return dims;
}

// A view's gradient written into zeros of the input's shape.
Tensor into_zeros(const GradContext& c, const Tensor& g, Tensor (*view_of)(const Tensor&, const Attrs&)) {
  Tensor z = zeros(c.info(0).shape, c.info(0).dtype);
  view_of(z, c.attrs()).copy_(g);
  return z;
}

// ---- formulas ----

TensorList d_identity(const GradContext& c) { return {c.grad()}; }
TensorList d_to(const GradContext& c) { return {c.grad().to(c.info(0).dtype)}; }
TensorList d_copy_(const GradContext& c) {
  return {zeros(c.info(0).shape, c.info(0).dtype), c.needs(1) ? c.grad().to(c.info(1).dtype) : Tensor()};
}
TensorList d_reshape(const GradContext& c) { return {c.grad().reshape(c.info(0).shape)}; }
TensorList d_permute(const GradContext& c) {
  const Shape& dims = c.attrs().get<Shape>("dims");
  const int64_t rank = dims.size();
  Shape inverse(rank);
  for (int64_t i = 0; i < rank; ++i) inverse[dims[i] < 0 ? dims[i] + rank : dims[i]] = i;
  return {c.grad().permute(inverse)};
}
TensorList d_transpose(const GradContext& c) {
  return {c.grad().transpose(c.attrs().get<int64_t>("dim0"), c.attrs().get<int64_t>("dim1"))};
}
TensorList d_t(const GradContext& c) { return {c.grad().t()}; }
TensorList d_slice(const GradContext& c) {
  return {into_zeros(c, c.grad(), [](const Tensor& z, const Attrs& a) {
    auto bound = [&](const char* name) {
      return a.is_none(name) ? std::optional<int64_t>() : std::optional<int64_t>(a.get<int64_t>(name));
    };
    return z.slice(a.get<int64_t>("dim"), bound("start"), bound("end"), a.get<int64_t>("step"));
  })};
}
TensorList d_select(const GradContext& c) {
  return {into_zeros(c, c.grad(), [](const Tensor& z, const Attrs& a) {
    return z.select(a.get<int64_t>("dim"), a.get<int64_t>("index"));
  })};
}
TensorList d_expand(const GradContext& c) { return {sum_to(c.grad(), c.info(0).shape)}; }

TensorList d_neg(const GradContext& c) { return {c.grad().neg()}; }
TensorList d_abs(const GradContext& c) {
  const Tensor x = c.input(0);
  const DType t = c.info(0).dtype;
  return {c.grad() * (x.gt(0.0).to(t) - x.lt(0.0).to(t))};  // sign(x), 0 at 0
}
TensorList d_exp(const GradContext& c) { return {c.grad() * c.output(0)}; }
TensorList d_log(const GradContext& c) { return {c.grad() / c.input(0)}; }
TensorList d_sqrt(const GradContext& c) { return {c.grad() / (c.output(0) * 2.0)}; }
TensorList d_rsqrt(const GradContext& c) { return {c.grad() * c.output(0).pow(3.0) * -0.5}; }
TensorList d_reciprocal(const GradContext& c) {
  const Tensor y = c.output(0);
  return {c.grad().neg() * (y * y)};
}
TensorList d_relu(const GradContext& c) { return {threshold_backward(c.grad(), c.output(0), 0.0)}; }
TensorList d_sigmoid(const GradContext& c) {
  const Tensor y = c.output(0);
  return {c.grad() * y * (ones({}, y.dtype()) - y)};
}
TensorList d_tanh(const GradContext& c) {
  const Tensor y = c.output(0);
  return {c.grad() * (ones({}, y.dtype()) - y * y)};
}
TensorList d_hardswish(const GradContext& c) { return {hardswish_backward(c.grad(), c.input(0))}; }
TensorList d_gelu(const GradContext& c) {
  return {gelu_backward(c.grad(), c.input(0), c.attrs().get<std::string>("approximate"))};
}

// grad * alpha, or grad itself for alpha 1 (ATen's maybe_multiply).
Tensor times_alpha(const GradContext& c) {
  if (c.attrs().is_none("alpha")) return c.grad();
  const Scalar alpha = c.attrs().scalar("alpha");
  if (alpha.to<double>() == 1.0) return c.grad();
  return c.grad() * alpha;
}
TensorList d_add(const GradContext& c) { return {c.grad(), has_tensor_other(c) ? times_alpha(c) : Tensor()}; }
TensorList d_sub(const GradContext& c) { return {c.grad(), has_tensor_other(c) ? times_alpha(c).neg() : Tensor()}; }
TensorList d_rsub(const GradContext& c) { return {c.grad().neg(), has_tensor_other(c) ? c.grad() : Tensor()}; }
TensorList d_mul(const GradContext& c) {
  return {c.needs(0) ? c.grad() * other_or_scalar(c, "other") : Tensor(),
          c.needs(1) ? c.grad() * c.input(0) : Tensor()};
}
TensorList d_div(const GradContext& c) {
  const Tensor other = other_or_scalar(c, "other");
  return {c.needs(0) ? c.grad() / other : Tensor(),
          c.needs(1) ? c.grad().neg() * c.input(0) / (other * other) : Tensor()};
}
TensorList d_pow(const GradContext& c) {
  const Tensor x = c.input(0), e = other_or_scalar(c, "exponent");
  Tensor gx, ge;
  // d/dx x^e = e x^(e-1), taken as 0 where e == 0 (x^0 is constant, also at x = 0).
  if (c.needs(0)) gx = where(e.eq(0.0), zeros({}, x.dtype()), c.grad() * e * x.pow(e - 1.0));
  // d/de x^e = x^e log x, taken as 0 where x == 0 and e >= 0, as PyTorch does.
  if (c.needs(1)) ge = where(x.eq(0.0) * e.ge(0.0), zeros({}, x.dtype()), c.grad() * c.output(0) * x.log());
  return {gx, ge};
}
TensorList d_clamp(const GradContext& c) {
  const Tensor x = c.input(0);
  Tensor keep = ones(x.shape(), DType::Bool);
  if (!c.attrs().is_none("min")) keep = keep * x.ge(c.attrs().scalar("min"));
  if (!c.attrs().is_none("max")) keep = keep * x.le(c.attrs().scalar("max"));
  return {where(keep, c.grad(), zeros({}, x.dtype()))};
}
TensorList d_where(const GradContext& c) {
  const Tensor cond = c.input(0), g = c.grad(), z = zeros({}, g.dtype());
  return {Tensor(), c.needs(1) ? where(cond, g, z) : Tensor(), c.needs(2) ? where(cond, z, g) : Tensor()};
}

// A gradient in the input's dtype, as ATen's engine casts it after a sum or mean with another `dtype`.
Tensor in_input_dtype(const GradContext& c, const Tensor& grad) {
  return grad.dtype() == c.info(0).dtype ? grad : grad.to(c.info(0).dtype);
}
// The gradient of a sum or mean expanded back over the reduced dims. The dimless sum() and mean() are
// their own overloads (SumBackward0, MeanBackward0): the 0-d gradient expands as it is, no unsqueeze.
Tensor unreduced(const GradContext& c) {
  const Shape& shape = c.info(0).shape;
  if (c.attrs().is_none("dim")) return unreduce(c.grad(), shape, {}, true);
  return unreduce(c.grad(), shape, reduced_dims(c.attrs(), shape.size()), keepdim_of(c.attrs()));
}
TensorList d_sum(const GradContext& c) { return {in_input_dtype(c, unreduced(c))}; }
TensorList d_mean(const GradContext& c) {
  const Shape& shape = c.info(0).shape;
  int64_t count = 1;
  for (int64_t d : reduced_dims(c.attrs(), shape.size())) count *= shape[d < 0 ? d + shape.size() : d];
  return {in_input_dtype(c, unreduced(c) / static_cast<double>(count))};
}
// max / min: a whole reduction shares the gradient evenly among the extreme elements; along a dim it
// goes to the element the indices name.
TensorList d_extreme(const GradContext& c) {
  const Tensor x = c.input(0);
  if (c.attrs().is_none("dim")) {
    // The extreme elements: equal to the result, or NaN where the result is NaN (x != x), as PyTorch's
    // evenly_distribute_backward masks them.
    const Tensor result = c.output(0);
    const Tensor hit = where(result.ne(result), x.ne(x), x.eq(result)).to(x.dtype());
    return {hit * (c.grad() / hit.sum())};
  }
  const int64_t dim = c.attrs().get<int64_t>("dim");
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  const bool keepdim = keepdim_of(c.attrs());
  Tensor idx = c.output(1), g = c.grad(0);
  if (!keepdim && x.dim() > 0) {
    idx = idx.unsqueeze(d);
    g = g.unsqueeze(d);
  }
  if (x.dim() == 0) return {g};
  Shape pos_shape(x.dim(), 1);
  pos_shape[d] = x.size(d);
  const Tensor positions = arange(0, x.size(d)).reshape(pos_shape);
  return {where(positions.eq(idx), g, zeros({}, x.dtype()))};
}

// index_select's backward adds each gradient slice where its index points. Gathered instead of
// scattered: round k takes, for every position, the k-th slice that selected it (or a zero slice), so
// duplicates need as many rounds as the most repeated index and nothing is multiplied (inf stays inf).
TensorList d_index_select(const GradContext& c) {
  const InputInfo& in = c.info(0);
  if (in.shape.empty()) return {c.grad().reshape(in.shape), Tensor()};
  const int64_t rank = in.shape.size(), dim = c.attrs().get<int64_t>("dim");
  const int64_t d = dim < 0 ? dim + rank : dim, size = in.shape[d];
  const Tensor index = c.input(1).reshape({-1}).contiguous();
  const int64_t n = index.numel();
  std::vector<std::vector<int64_t>> picked_by(static_cast<size_t>(size));
  size_t rounds = 0;
  const int64_t* idx = index.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    auto& list = picked_by[static_cast<size_t>(idx[i])];
    list.push_back(i);
    rounds = std::max(rounds, list.size());
  }
  const Tensor g = c.grad();
  Shape zero_shape = g.shape();
  zero_shape[d] = 1;
  const Tensor padded = cat(TensorList{g, zeros(zero_shape, g.dtype())}, d);  // slice n is zeros
  Tensor result = zeros(in.shape, in.dtype);
  for (size_t k = 0; k < rounds; ++k) {
    std::vector<int64_t> take(static_cast<size_t>(size), n);
    for (int64_t s = 0; s < size; ++s)
      if (k < picked_by[s].size()) take[s] = picked_by[s][k];
    result = k == 0 ? padded.index_select(d, from_vector(take, {size}))
                    : result + padded.index_select(d, from_vector(take, {size}));
  }
  return {result, Tensor()};
}

// masked_select's backward puts the k-th gradient element at the k-th selected position: a gather
// from (0, g...) with position j reading 1 + its rank among the selected, or 0.
TensorList d_masked_select(const GradContext& c) {
  const Tensor mask = c.input(1);
  const Shape shape = broadcast_shapes(c.info(0).shape, mask.shape(), "masked_select");
  const Tensor m = mask.expand(shape).contiguous();
  const bool* mp = m.data<bool>();
  std::vector<int64_t> take(static_cast<size_t>(m.numel()), 0);
  int64_t next = 0;
  for (int64_t j = 0; j < static_cast<int64_t>(take.size()); ++j)
    if (mp[j]) take[j] = ++next;
  const Tensor g = c.grad();
  const Tensor padded = cat(TensorList{zeros({1}, g.dtype()), g.reshape({-1})}, 0);
  return {padded.index_select(0, from_vector(take, {m.numel()})).reshape(shape), Tensor()};
}

TensorList d_cat(const GradContext& c) {
  TensorList out;
  int64_t dim = c.attrs().get<int64_t>("dim"), offset = 0;
  const Tensor g = c.grad();
  if (dim < 0) dim += g.dim();
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    const Shape& s = c.info(i).shape;
    if (s.size() == 1 && s[0] == 0 && g.dim() != 1) {  // legacy empty (0,) inputs take no part
      out.push_back(zeros(s, c.info(i).dtype));
      continue;
    }
    out.push_back(g.slice(dim, offset, offset + s[dim]));
    offset += s[dim];
  }
  return out;
}
TensorList d_stack(const GradContext& c) {
  TensorList out;
  const Tensor g = c.grad();
  int64_t dim = c.attrs().get<int64_t>("dim");
  if (dim < 0) dim += g.dim();
  for (size_t i = 0; i < c.num_inputs(); ++i) out.push_back(g.select(dim, static_cast<int64_t>(i)));
  return out;
}

// matmul of any ranks: 1-D operands act as a row (self) or column (other) vector, batch dims broadcast.
// self's gradient reads other and other's reads self.
TensorList d_matmul(const GradContext& c) {
  Shape a_shape = c.info(0).shape, b_shape = c.info(1).shape;
  const bool a_vec = a_shape.size() == 1, b_vec = b_shape.size() == 1;
  Tensor g = c.grad();
  if (a_vec && b_vec)  // a dot product
    return {c.needs(0) ? g * c.input(1) : Tensor(), c.needs(1) ? g * c.input(0) : Tensor()};
  if (a_vec) {
    a_shape.insert(0, 1);
    g = g.unsqueeze(-2);
  }
  if (b_vec) {
    b_shape.push_back(1);
    g = g.unsqueeze(-1);
  }
  Tensor ga, gb;
  if (c.needs(0)) {
    const Tensor b = b_vec ? c.input(1).unsqueeze(-1) : c.input(1);
    ga = sum_to(g.matmul(b.transpose(-1, -2)), a_shape);
    if (a_vec) ga = ga.squeeze(0);
  }
  if (c.needs(1)) {
    const Tensor a = a_vec ? c.input(0).unsqueeze(0) : c.input(0);
    gb = sum_to(a.transpose(-1, -2).matmul(g), b_shape);
    if (b_vec) gb = gb.squeeze(-1);
  }
  return {ga, gb};
}
TensorList d_mm(const GradContext& c) {
  return {c.needs(0) ? c.grad().mm(c.input(1).t()) : Tensor(), c.needs(1) ? c.input(0).t().mm(c.grad()) : Tensor()};
}
TensorList d_bmm(const GradContext& c) {
  return {c.needs(0) ? c.grad().bmm(c.input(1).transpose(1, 2)) : Tensor(),
          c.needs(1) ? c.input(0).transpose(1, 2).bmm(c.grad()) : Tensor()};
}
TensorList d_addmm(const GradContext& c) {
  const Scalar beta = c.attrs().scalar("beta"), alpha = c.attrs().scalar("alpha");
  const Tensor g = c.grad();
  return {c.needs(0) ? g * beta.to<double>() : Tensor(),
          c.needs(1) ? g.mm(c.input(2).t()) * alpha.to<double>() : Tensor(),
          c.needs(2) ? c.input(1).t().mm(g) * alpha.to<double>() : Tensor()};
}
// ---- neural-network ops: their backward kernels ----

std::array<bool, 3> mask3(const GradContext& c, size_t a, size_t b, size_t d) { return {c.needs(a), c.needs(b), c.needs(d)}; }
TensorList list3(const std::tuple<Tensor, Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t), std::get<2>(t)}; }

// An unbatched (C, H, W) input ran as a batch of one: its gradients do too.
TensorList d_conv2d(const GradContext& c) {
  const Attrs& a = c.attrs();
  const Tensor weight = c.input(1);
  const std::optional<Shape> bias_sizes =
      c.num_inputs() > 2 && c.info(2).defined ? std::optional<Shape>(c.info(2).shape) : std::nullopt;
  const bool unbatched = c.info(0).shape.size() == 3;
  auto batched = [&](const Tensor& t) { return unbatched ? t.unsqueeze(0) : t; };
  TensorList g = list3(convolution_backward(batched(c.grad()), batched(c.input(0)), weight, bias_sizes,
                                            a.get<Shape>("stride"), a.get<Shape>("padding"), a.get<Shape>("dilation"),
                                            false, Shape{0, 0}, a.get<int64_t>("groups"), mask3(c, 0, 1, 2)));
  if (unbatched && g[0].defined()) g[0] = g[0].squeeze(0);
  return g;
}
// batch_norm(input, weight, bias, running_mean, running_var): training differentiates through the
// batch statistics (recomputed from the saved input), evaluation through the running ones.
TensorList d_batch_norm(const GradContext& c) {
  const Attrs& a = c.attrs();
  const bool training = a.get<bool>("training");
  auto saved = [&](size_t i) { return c.num_inputs() > i && c.info(i).defined ? c.input(i) : Tensor(); };
  auto g = native_batch_norm_backward(c.grad(), c.input(0), saved(1), training ? Tensor() : saved(3),
                                      training ? Tensor() : saved(4), Tensor(), Tensor(), training, a.get<double>("eps"),
                                      mask3(c, 0, 1, 2));
  return {std::get<0>(g), std::get<1>(g), std::get<2>(g), Tensor(), Tensor()};
}
TensorList d_max_pool2d_with_indices(const GradContext& c) {
  const Attrs& a = c.attrs();
  return {max_pool2d_with_indices_backward(c.grad(0), c.input(0), a.get<Shape>("kernel_size"), a.get<Shape>("stride"),
                                           a.get<Shape>("padding"), a.get<Shape>("dilation"),
                                           a.get<bool>("ceil_mode"), c.output(1))};
}
TensorList d_avg_pool2d(const GradContext& c) {
  const Attrs& a = c.attrs();
  const std::optional<int64_t> divisor =
      a.is_none("divisor_override") ? std::nullopt : std::optional(a.get<int64_t>("divisor_override"));
  return {avg_pool2d_backward(c.grad(), c.input(0), a.get<Shape>("kernel_size"), a.get<Shape>("stride"),
                              a.get<Shape>("padding"), a.get<bool>("ceil_mode"), a.get<bool>("count_include_pad"), divisor)};
}
TensorList d_adaptive_avg_pool2d(const GradContext& c) { return {_adaptive_avg_pool2d_backward(c.grad(), c.input(0))}; }

// max_pool2d in grad mode: max_pool2d_with_indices keeps the indices its backward needs.
TensorList max_pool2d_decomposition(std::span<const Tensor> in, const Attrs& a) {
  return {max_pool2d_with_indices(in[0], a.get<Shape>("kernel_size"), a.get<Shape>("stride"), a.get<Shape>("padding"),
                                  a.get<Shape>("dilation"), a.get<bool>("ceil_mode"))
              .first};
}

// ---- softmax and losses ----

TensorList d_softmax(const GradContext& c) {
  const Tensor y = c.output(0);
  return {_softmax_backward_data(c.grad(), y, c.attrs().get<int64_t>("dim"), y.dtype())};
}
TensorList d_log_softmax(const GradContext& c) {
  const Tensor y = c.output(0);
  return {_log_softmax_backward_data(c.grad(), y, c.attrs().get<int64_t>("dim"), y.dtype())};
}
TensorList d_nll_loss_forward(const GradContext& c) {
  const Attrs& a = c.attrs();
  TL_CHECK(!c.needs(2), "the derivative for 'weight' of nll_loss_forward is not implemented (the class weights are "
           "constants in PyTorch too); detach() them");
  const Tensor weight = c.num_inputs() > 2 && c.info(2).defined ? c.input(2) : Tensor();
  return {nll_loss_backward(c.grad(0), c.input(0), c.input(1), weight, a.get<int64_t>("reduction"),
                            a.get<int64_t>("ignore_index"), c.output(1)),
          Tensor(), Tensor()};
}
TensorList d_mse_loss(const GradContext& c) {
  const Tensor g = mse_loss_backward(c.grad(), c.input(0), c.input(1), c.attrs().get<int64_t>("reduction"));
  return {g, c.needs(1) ? g.neg() : Tensor()};
}

TensorList d_linear(const GradContext& c) {
  const Shape& w = c.info(1).shape;  // (out_features, in_features)
  const Tensor g = c.grad();
  const Tensor g2 = g.reshape({-1, w[0]});
  return {c.needs(0) ? g.matmul(c.input(1)) : Tensor(),
          c.needs(1) ? g2.t().mm(c.input(0).reshape({-1, w[1]})) : Tensor(),
          c.needs(2) ? g2.sum(Shape{0}) : Tensor()};
}

// `reads`: per tensor input, what its gradient's formula reads (derivatives.yaml's saved values).
Derivative formula(const char* name, TensorList (*fn)(const GradContext&), std::vector<Reads> reads = {}) {
  return Derivative{Kind::Formula, name, std::move(reads), fn, nullptr};
}
Derivative not_differentiable() { return Derivative{Kind::NotDifferentiable, "", {}, nullptr, nullptr}; }
Derivative not_implemented(const char* name) { return Derivative{Kind::NotImplemented, name, {}, nullptr, nullptr}; }
Derivative composite(KernelFn decomposition = nullptr) {
  return Derivative{Kind::Composite, "", {}, nullptr, decomposition};
}

// dropout in grad mode: native_dropout keeps the mask its backward needs.
TensorList dropout_decomposition(std::span<const Tensor> in, const Attrs& a) {
  const double p = a.get<double>("p");
  const bool train = a.get<bool>("train");
  if (!train || p == 0.0) return {in[0].clone()};
  return {native_dropout(in[0], p, train).first};
}

Derivative make(OpKind op) {
  switch (op) {
    case OpKind::Empty: case OpKind::Zeros: case OpKind::Ones: case OpKind::Full: case OpKind::Arange:
    case OpKind::Rand: case OpKind::Randn:
      return not_differentiable();
    case OpKind::Copy_: return formula("CopyBackwards", d_copy_);
    case OpKind::Clone: return formula("CloneBackward0", d_identity);
    case OpKind::Contiguous: return formula("CloneBackward0", d_identity);
    case OpKind::To: return formula("ToCopyBackward0", d_to);
    case OpKind::View: return formula("ViewBackward0", d_reshape);
    case OpKind::Reshape: return formula("ReshapeAliasBackward0", d_reshape);
    case OpKind::Flatten: return formula("ReshapeAliasBackward0", d_reshape);
    case OpKind::Permute: return formula("PermuteBackward0", d_permute);
    case OpKind::Transpose: return formula("TransposeBackward0", d_transpose);
    case OpKind::T: return formula("TBackward0", d_t);
    case OpKind::Slice: return formula("SliceBackward0", d_slice);
    case OpKind::Select: return formula("SelectBackward0", d_select);
    case OpKind::Expand: return formula("ExpandBackward0", d_expand);
    case OpKind::Squeeze: return formula("SqueezeBackward0", d_reshape);
    case OpKind::Unsqueeze: return formula("UnsqueezeBackward0", d_reshape);
    case OpKind::Neg: case OpKind::Neg_: return formula("NegBackward0", d_neg);
    case OpKind::Abs: case OpKind::Abs_: return formula("AbsBackward0", d_abs, {reads_input(0)});
    case OpKind::Exp: case OpKind::Exp_: return formula("ExpBackward0", d_exp, {reads_output(0)});
    case OpKind::Log: case OpKind::Log_: return formula("LogBackward0", d_log, {reads_input(0)});
    case OpKind::Sqrt: case OpKind::Sqrt_: return formula("SqrtBackward0", d_sqrt, {reads_output(0)});
    case OpKind::Rsqrt: case OpKind::Rsqrt_: return formula("RsqrtBackward0", d_rsqrt, {reads_output(0)});
    case OpKind::Reciprocal: return formula("ReciprocalBackward0", d_reciprocal, {reads_output(0)});
    case OpKind::Relu: case OpKind::Relu_: return formula("ReluBackward0", d_relu, {reads_output(0)});
    case OpKind::Sigmoid: case OpKind::Sigmoid_: return formula("SigmoidBackward0", d_sigmoid, {reads_output(0)});
    case OpKind::Tanh: case OpKind::Tanh_: return formula("TanhBackward0", d_tanh, {reads_output(0)});
    case OpKind::Gelu: return formula("GeluBackward0", d_gelu, {reads_input(0)});
    case OpKind::Hardswish: return formula("HardswishBackward0", d_hardswish, {reads_input(0)});
    case OpKind::Add: case OpKind::Add_: return formula("AddBackward0", d_add);
    case OpKind::Sub: case OpKind::Sub_: return formula("SubBackward0", d_sub);
    case OpKind::Mul: case OpKind::Mul_: return formula("MulBackward0", d_mul, {reads_input(1), reads_input(0)});
    case OpKind::Div: case OpKind::Div_: return formula("DivBackward0", d_div, {reads_input(1), reads_input(0, 1)});
    case OpKind::Pow: case OpKind::Pow_:
      return formula("PowBackward0", d_pow, {reads_input(0, 1), reads_input(0, 1) | reads_output(0)});
    case OpKind::Rsub: {
      Derivative d = formula("RsubBackward0", d_rsub);
      d.overload_name = [](const Attrs&, size_t tensors) { return tensors == 1 ? "RsubBackward1" : "RsubBackward0"; };
      return d;
    }
    case OpKind::Rtruediv: return composite();
    case OpKind::Clamp: case OpKind::Clamp_: return formula("ClampBackward1", d_clamp, {reads_input(0)});
    case OpKind::Where: return formula("WhereBackward0", d_where, {{}, reads_input(0), reads_input(0)});
    case OpKind::ThresholdBackward: case OpKind::GeluBackward: case OpKind::HardswishBackward: case OpKind::NativeDropoutBackward:
      return not_implemented("a backward op (double backward is not supported)");
    case OpKind::NativeDropout: return formula("NativeDropoutBackward0", [](const GradContext& c) -> TensorList {
        // Outside training native_dropout is the identity (scale 1), as PyTorch's formula says.
        const double p = c.attrs().get<double>("p");
        const bool train = c.attrs().is_none("train") || c.attrs().get<bool>("train");
        return {native_dropout_backward(c.grad(0), c.output(1), !train ? 1.0 : p < 1.0 ? 1.0 / (1.0 - p) : 0.0)};
      }, {reads_output(1)});
    case OpKind::Gt: case OpKind::Lt: case OpKind::Ge: case OpKind::Le: case OpKind::Eq: case OpKind::Ne:
    case OpKind::Allclose: case OpKind::Equal:
      return not_differentiable();
    case OpKind::Sum: {  // sum(): sum's own overload; sum(dim): sum.dim_IntList
      Derivative d = formula("SumBackward1", d_sum);
      d.overload_name = [](const Attrs& a, size_t) { return a.is_none("dim") ? "SumBackward0" : "SumBackward1"; };
      return d;
    }
    case OpKind::Mean: {
      Derivative d = formula("MeanBackward1", d_mean);
      d.overload_name = [](const Attrs& a, size_t) { return a.is_none("dim") ? "MeanBackward0" : "MeanBackward1"; };
      return d;
    }
    case OpKind::Max: return formula("MaxBackward0", d_extreme, {reads_input(0) | reads_output(0, 1)});
    case OpKind::Min: return formula("MinBackward0", d_extreme, {reads_input(0) | reads_output(0, 1)});
    case OpKind::Argmax: case OpKind::Nonzero: case OpKind::Argwhere:
      return not_differentiable();
    case OpKind::IndexSelect: return formula("IndexSelectBackward0", d_index_select, {reads_input(1)});
    case OpKind::MaskedSelect: return formula("MaskedSelectBackward0", d_masked_select, {reads_input(1)});
    case OpKind::Cat: return formula("CatBackward0", d_cat);
    case OpKind::Stack: return formula("StackBackward0", d_stack);
    case OpKind::Matmul: return formula("MmBackward0", d_matmul, {reads_input(1), reads_input(0)});
    case OpKind::Mm: return formula("MmBackward0", d_mm, {reads_input(1), reads_input(0)});
    case OpKind::Bmm: return formula("BmmBackward0", d_bmm, {reads_input(1), reads_input(0)});
    case OpKind::Addmm: return formula("AddmmBackward0", d_addmm, {{}, reads_input(2), reads_input(1)});
    case OpKind::Linear: return formula("AddmmBackward0", d_linear, {reads_input(1), reads_input(0), {}});
    case OpKind::Conv2d:  // one formula (convolution_backward) for input, weight and bias
      return formula("ConvolutionBackward0", d_conv2d, {reads_input(0, 1), reads_input(0, 1), reads_input(0, 1)});
    case OpKind::BatchNorm: {  // one formula (native_batch_norm_backward) for input, weight and bias
      const Reads all = reads_input(0, 1, 3, 4);
      return formula("NativeBatchNormBackward0", d_batch_norm, {all, all, all});
    }
    case OpKind::MaxPool2d: return composite(max_pool2d_decomposition);
    case OpKind::AvgPool2d: return formula("AvgPool2DBackward0", d_avg_pool2d, {reads_input(0)});
    case OpKind::AdaptiveAvgPool2d:
      return formula("AdaptiveAvgPool2DBackward0", d_adaptive_avg_pool2d, {reads_input(0)});
    case OpKind::Dropout: return composite(dropout_decomposition);
    case OpKind::MaxPool2dWithIndices:
      return formula("MaxPool2DWithIndicesBackward0", d_max_pool2d_with_indices, {reads_input(0) | reads_output(1)});
    case OpKind::ConvolutionBackward: case OpKind::NativeBatchNormBackward: case OpKind::MaxPool2dWithIndicesBackward:
    case OpKind::AvgPool2dBackward: case OpKind::AdaptiveAvgPool2dBackward:
      return not_implemented(op_info(op).aten_name);
    case OpKind::SoftmaxForward: return formula("SoftmaxBackward0", d_softmax, {reads_output(0)});
    case OpKind::LogSoftmaxForward: return formula("LogSoftmaxBackward0", d_log_softmax, {reads_output(0)});
    case OpKind::Softmax: case OpKind::LogSoftmax: case OpKind::NllLoss: case OpKind::CrossEntropyLoss:
      return composite();
    case OpKind::NllLossForward:  // the target and the class weights get no gradient
      return formula("NllLossBackward0", d_nll_loss_forward, {reads_input(0, 1, 2) | reads_output(1)});
    case OpKind::MseLoss: return formula("MseLossBackward0", d_mse_loss, {reads_input(0, 1), reads_input(0, 1)});
    case OpKind::SoftmaxBackwardData: case OpKind::LogSoftmaxBackwardData: case OpKind::NllLossBackward:
    case OpKind::MseLossBackward:
      return not_implemented(op_info(op).aten_name);
    case OpKind::ToMkldnn: case OpKind::ToDense: case OpKind::MkldnnConvolution:
    case OpKind::MkldnnReorderConv2dWeight: case OpKind::MkldnnMaxPool2d: case OpKind::MkldnnAdaptiveAvgPool2d:
      return not_implemented(op_info(op).aten_name);
  }
  TL_INTERNAL_ASSERT(false, "derivative_of: unknown op ", static_cast<int>(op));
  return {};
}

}  // namespace

const Derivative& derivative_of(OpKind op) {
  static const std::vector<Derivative> table = [] {
    std::vector<Derivative> t;
    for (int i = 0; i < kNumOps; ++i) t.push_back(make(static_cast<OpKind>(i)));
    return t;
  }();
  return table[static_cast<size_t>(op)];
}

}  // namespace tl::autograd
