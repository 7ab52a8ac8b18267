// autograd/formulas.cpp — the derivative formulas' helpers (PyTorch's FunctionsManual.cpp); each is the
// math of one op's backward, called from the generated entries with what the op's row names.
#include "autograd/formulas.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ops/ops.h"

namespace tl::autograd {
namespace {

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

// The dims a sum or mean reduced: every dim for none or an empty list.
Shape reduced_dims(const std::optional<IntList>& dim, size_t rank) {
  if (dim && !dim->values.empty()) return dim->values;
  Shape all(rank);
  std::iota(all.begin(), all.end(), 0);
  return all;
}

// The gradient of a sum or mean expanded back over the reduced dims.
Tensor unreduced(const Tensor& grad, const TensorInfo& self, const std::optional<IntList>& dim, bool keepdim) {
  if (!dim) return unreduce(grad, self.shape, {}, true);
  return unreduce(grad, self.shape, reduced_dims(dim, self.shape.size()), keepdim);
}

// A gradient in the input's dtype, as ATen's engine casts it after a sum or mean with another `dtype`.
Tensor in_dtype(const Tensor& grad, DType dtype) { return grad.dtype() == dtype ? grad : grad.to(dtype); }

// w summed from the end of `dim` back (ATen's reversed_cumsum; its flip is an index_select here).
Tensor reversed_cumsum(const Tensor& w, int64_t dim) {
  const Tensor reversed = arange(w.size(dim) - 1, -1, -1);
  return w.index_select(dim, reversed).cumsum(dim).index_select(dim, reversed);
}

// t where `mask` is false, 0 where it is true (ATen's masked_fill_(mask, 0)).
Tensor zero_where(const Tensor& mask, const Tensor& t) { return where(mask, zeros({}, t.dtype()), t); }

// `t` (batch..., n) as one (rows, n) matrix; a matrix as it is, so a 2-D linear's backward records no
// reshape, as PyTorch's AddmmBackward0 records none.
Tensor as_rows(const Tensor& t, int64_t n) { return t.dim() == 2 ? t : t.reshape({-1, n}); }

}  // namespace

Tensor maybe_multiply(const Tensor& grad, const Scalar& alpha) {
  return alpha.to<double>() == 1.0 ? grad : grad * alpha;
}

Tensor permute_backward(const Tensor& grad, const Shape& dims) {
  const int64_t rank = dims.size();
  Shape inverse(rank);
  for (int64_t i = 0; i < rank; ++i) inverse[dims[i] < 0 ? dims[i] + rank : dims[i]] = i;
  return grad.permute(inverse);
}

Tensor slice_backward(const Tensor& grad, const TensorInfo& self, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor z = zeros(self.shape, self.dtype);
  z.slice(dim, start, end, step).copy_(grad);
  return z;
}

Tensor select_backward(const Tensor& grad, const TensorInfo& self, int64_t dim, int64_t index) {
  Tensor z = zeros(self.shape, self.dtype);
  z.select(dim, index).copy_(grad);
  return z;
}

Tensor roll_backward(const Tensor& grad, const IntList& shifts, const IntList& dims) {
  Shape back;
  for (int64_t s : shifts.values) back.push_back(-s);
  return grad.roll(back, dims.values);
}

// grad viewed as (r0, s0, r1, s1, ...) (s: the input's shape padded with leading 1s) and summed over each r.
Tensor repeat_backward(const Tensor& grad, const Shape& repeats, const TensorInfo& self) {
  const int64_t rank = repeats.size(), lead = rank - self.shape.size();
  Shape interleaved, copies;
  for (int64_t d = 0; d < rank; ++d) {
    interleaved.push_back(repeats[d]);
    interleaved.push_back(d < lead ? 1 : self.shape[d - lead]);
    copies.push_back(2 * d);
  }
  return sum(grad.reshape(interleaved), copies).reshape(self.shape);
}

Tensor abs_backward(const Tensor& grad, const Tensor& self) {
  const DType t = self.dtype();
  return grad * (self.gt(0.0).to(t) - self.lt(0.0).to(t));
}

Tensor sigmoid_backward(const Tensor& grad, const Tensor& result) {
  return grad * result * (ones({}, result.dtype()) - result);
}

Tensor tanh_backward(const Tensor& grad, const Tensor& result) { return grad * (ones({}, result.dtype()) - result * result); }

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  return where(exponent.eq(0.0), zeros({}, self.dtype()), grad * exponent * self.pow(exponent - 1.0));
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  return where(self.eq(0.0) * exponent.ge(0.0), zeros({}, self.dtype()), grad * result * self.log());
}

Tensor pow_backward_exponent(const Tensor& grad, const Scalar& self, const Tensor& exponent, const Tensor& result) {
  const double base = self.to<double>();
  const Tensor g = grad * (result * std::log(base));
  return base == 0.0 ? where(exponent.ge(0.0), zeros({}, g.dtype()), g) : g;
}

Tensor masked_fill_value_backward(const Tensor& grad, const Tensor& mask) {
  return grad.masked_select(mask).sum();
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  Tensor keep = ones(self.shape(), DType::Bool);
  if (min) keep = keep * self.ge(*min);
  if (max) keep = keep * self.le(*max);
  return where(keep, grad, zeros({}, self.dtype()));
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max) {
  const Tensor zero = zeros({}, grad.dtype());
  if (min.defined() && max.defined()) return where(self.ge(min).logical_and(self.le(max)), grad, zero);
  if (min.defined()) return where(self.ge(min), grad, zero);
  if (max.defined()) return where(self.le(max), grad, zero);
  return grad;
}

std::tuple<Tensor, Tensor> clamp_backward_min_max(const Tensor& grad, const Tensor& self, const Tensor& min,
                                                  const Tensor& max, const std::array<bool, 2>& grad_input_mask) {
  std::tuple<Tensor, Tensor> grads;
  const Tensor zero = zeros({}, grad.dtype());
  if (min.defined() && max.defined()) {
    if (grad_input_mask[0]) std::get<0>(grads) = where(self.lt(min).logical_and(min.lt(max)), grad, zero);
    if (grad_input_mask[1]) std::get<1>(grads) = where(self.gt(max).logical_or(max.lt(min)), grad, zero);
  } else if (min.defined() && grad_input_mask[0]) {
    std::get<0>(grads) = where(self.lt(min), grad, zero);
  } else if (max.defined() && grad_input_mask[1]) {
    std::get<1>(grads) = where(self.gt(max), grad, zero);
  }
  return grads;
}

double dropout_scale(double p, const std::optional<bool>& train) {
  if (train && !*train) return 1.0;
  return p < 1.0 ? 1.0 / (1.0 - p) : 0.0;
}

Tensor sum_backward(const Tensor& grad, const TensorInfo& self, const std::optional<IntList>& dim, bool keepdim) {
  return in_dtype(unreduced(grad, self, dim, keepdim), self.dtype);
}

Tensor mean_backward(const Tensor& grad, const TensorInfo& self, const std::optional<IntList>& dim, bool keepdim) {
  int64_t count = 1;
  const int64_t rank = self.shape.size();
  for (int64_t d : reduced_dims(dim, rank)) count *= self.shape[d < 0 ? d + rank : d];
  return in_dtype(unreduced(grad, self, dim, keepdim) / static_cast<double>(count), self.dtype);
}

Tensor extreme_backward(const Tensor& grad, const Tensor& self, const Tensor& values, const Tensor& indices,
                        const std::optional<int64_t>& dim, bool keepdim) {
  if (!dim) {
    // The extreme elements: equal to the result, or NaN where the result is NaN (x != x), as PyTorch's
    // evenly_distribute_backward masks them.
    const Tensor hit = where(values.ne(values), self.ne(self), self.eq(values)).to(self.dtype());
    return hit * (grad / hit.sum());
  }
  if (self.dim() == 0) return grad;
  const int64_t d = *dim < 0 ? *dim + self.dim() : *dim;
  Tensor idx = indices, g = grad;
  if (!keepdim) {
    idx = idx.unsqueeze(d);
    g = g.unsqueeze(d);
  }
  Shape pos_shape(self.dim(), 1);
  pos_shape[d] = self.size(d);
  const Tensor positions = arange(0, self.size(d)).reshape(pos_shape);
  return where(positions.eq(idx), g, zeros({}, self.dtype()));
}

Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, const IntList& dim,
                          bool keepdim) {
  const TensorInfo info{self.shape(), self.dtype(), true};
  const Shape dims = reduced_dims(dim, self.shape().size());
  const Tensor hit = self.eq(unreduced(result, info, dim, keepdim));
  return unreduced(grad, info, dim, keepdim) / hit.sum(dims, true) * hit;
}

namespace {

// The product of the other elements along `dim` at each position (ATen's prod_safe_zeros_backward): the
// cumprod before it times the cumprod after it.
Tensor prod_safe_zeros_backward(const Tensor& grad, const Tensor& input, int64_t dim) {
  if (input.numel() == 0) return grad.expand(input.shape());
  const int64_t n = input.size(dim);
  if (n == 1) return grad;
  Shape ones_shape = input.shape();
  ones_shape[dim] = 1;
  const Tensor one = ones(ones_shape, grad.dtype());
  const Tensor before = cat({one, input.narrow(dim, 0, n - 1)}, dim).cumprod(dim);
  const Tensor after = cat({one, input.narrow(dim, 1, n - 1).flip({dim})}, dim).cumprod(dim).flip({dim});
  return grad * (before * after);
}

}  // namespace

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  if (self.dim() == 0) return grad;
  const int64_t zeros_count = self.eq(0.0).sum().item<int64_t>();
  if (zeros_count == 0) return grad * (result / self);
  if (zeros_count > 1) return zeros_like(self);
  return prod_safe_zeros_backward(grad, self.contiguous().view({-1}), 0).view(self.shape());
}

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim) {
  if (self.dim() == 0) return grad;
  const int64_t d = dim < 0 ? dim + self.dim() : dim;
  const Tensor g = keepdim ? grad : grad.unsqueeze(d), r = keepdim ? result : result.unsqueeze(d);
  if (self.eq(0.0).sum().item<int64_t>() == 0) return g * (r / self);
  return prod_safe_zeros_backward(g, self, d);
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, const IntList& dim,
                          bool keepdim) {
  const TensorInfo info{self.shape(), self.dtype(), true};
  return unreduced(grad, info, dim, keepdim) * (self - unreduced(result, info, dim, keepdim)).exp();
}

Tensor var_backward(const Tensor& grad, const Tensor& self, const std::optional<IntList>& dim, bool unbiased,
                    bool keepdim, const std::optional<int64_t>& correction) {
  const double c = correction ? static_cast<double>(*correction) : unbiased ? 1.0 : 0.0;
  const int64_t rank = self.dim();
  if (rank == 0 || !dim || dim->values.empty()) {
    const double dof = static_cast<double>(self.numel()) - c;
    if (dof <= 0) {
      const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
      return grad * where(self.eq(self.mean()), full({}, nan, self.dtype()), full({}, inf, self.dtype()));
    }
    return grad * (2.0 / dof) * (self - self.mean());
  }
  const Shape dims = reduced_dims(dim, static_cast<size_t>(rank));
  int64_t count = 1;
  for (int64_t d : dims) count *= self.size(d < 0 ? d + rank : d);
  const Tensor g = unreduce(grad, self.shape(), dims, keepdim);
  return g * (2.0 / (static_cast<double>(count) - c)) * (self - self.mean(dims, true));
}

Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, const std::optional<IntList>& dim,
                    bool unbiased, bool keepdim, const std::optional<int64_t>& correction) {
  const Tensor grad_var = zero_where(result.eq(0.0), grad / (result * 2.0));
  return var_backward(grad_var, self, dim, unbiased, keepdim, correction);
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const Scalar& p_arg, const Tensor& result,
                     const std::optional<IntList>& dim, bool keepdim) {
  const double p = p_arg.to<double>();
  if (p == 0.0) return zeros(self.shape(), self.dtype());
  const Shape dims = reduced_dims(dim, static_cast<size_t>(self.dim()));
  const bool kept = keepdim || !dim;  // without a dim the 0-d result broadcasts as it is
  const Tensor g = unreduce(grad, self.shape(), dims, kept), norm = unreduce(result, self.shape(), dims, kept);
  if (p == 1.0) return abs_backward(g, self);
  if (p == 2.0) return g * zero_where(norm.eq(0.0), self / norm);
  if (std::isinf(p)) {
    const Tensor a = self.abs(), nan = a.ne(a);
    const Tensor mask = where(nan, nan, a.eq(norm)).to(self.dtype());
    return abs_backward(g / mask.sum(dims, true) * mask, self);
  }
  if (p < 1.0) return abs_backward(zero_where(self.eq(0.0), self.abs().pow(p - 1)) * g * norm.pow(1 - p), self);
  const Tensor scale = zero_where(norm.eq(0.0), g / norm.pow(p - 1));
  if (p < 2.0) return abs_backward(self.abs().pow(p - 1) * scale, self);
  return self * self.abs().pow(p - 2) * scale;
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.numel() <= 1 || grad.dim() == 0) return grad;
  const int64_t d = dim < 0 ? dim + grad.dim() : dim;
  return grad.size(d) == 1 ? grad : reversed_cumsum(grad, d);
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result) {
  if (self.numel() <= 1 || self.dim() == 0) return grad;
  const int64_t d = dim < 0 ? dim + self.dim() : dim;
  if (self.size(d) == 1) return grad;
  const Tensor is_zero = self.eq(0.0), zeros_so_far = is_zero.cumsum(d);
  const Tensor before = zeros_so_far.eq(0), first = is_zero * zeros_so_far.eq(1);
  // Before the first zero self divides safely; there the products that skip it are cumprod with it set to 1.
  const Tensor one = ones({}, self.dtype());
  const Tensor before_grad = reversed_cumsum(result * grad, d) / where(before, self, one);
  const Tensor skipping = where(first, one, self).cumprod(d);
  const Tensor first_grad = (zero_where(zeros_so_far.ne(1), grad) * skipping).sum(d, true);
  const Tensor zero = zeros({}, self.dtype());
  return where(before, before_grad, where(first, first_grad, zero));
}

// Gathered instead of scattered: round k takes, for every position, the k-th slice that selected it (or a
// zero slice), so duplicates need as many rounds as the most repeated index.
Tensor index_select_backward(const Tensor& grad, const TensorInfo& self, int64_t dim, const Tensor& index) {
  if (self.shape.empty()) return grad.reshape(self.shape);
  const int64_t rank = self.shape.size();
  const int64_t d = dim < 0 ? dim + rank : dim, size = self.shape[d];
  const Tensor flat = index.reshape({-1}).contiguous();
  const int64_t n = flat.numel();
  std::vector<std::vector<int64_t>> picked_by(static_cast<size_t>(size));
  size_t rounds = 0;
  const int64_t* idx = flat.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    auto& list = picked_by[static_cast<size_t>(idx[i])];
    list.push_back(i);
    rounds = std::max(rounds, list.size());
  }
  Shape zero_shape = grad.shape();
  zero_shape[d] = 1;
  const Tensor padded = cat(TensorList{grad, zeros(zero_shape, grad.dtype())}, d);  // slice n is zeros
  Tensor result = zeros(self.shape, self.dtype);
  for (size_t k = 0; k < rounds; ++k) {
    std::vector<int64_t> take(static_cast<size_t>(size), n);
    for (int64_t s = 0; s < size; ++s)
      if (k < picked_by[s].size()) take[s] = picked_by[s][k];
    result = k == 0 ? padded.index_select(d, from_vector(take, {size}))
                    : result + padded.index_select(d, from_vector(take, {size}));
  }
  return result;
}

Tensor index_backward(const TensorInfo& self, const TensorList& indices, const Tensor& grad) {
  return index_put(zeros(self.shape, grad.dtype()), indices, grad, true);
}

Tensor index_put_self_backward(const Tensor& grad, const TensorList& indices, const TensorInfo& values) {
  return index_put(grad, indices, zeros(values.shape, grad.dtype()), false);
}

Tensor index_put_values_backward(const Tensor& grad, const TensorList& indices, const TensorInfo& values) {
  return sum_to(index(grad, indices), values.shape);
}

// A gather from (0, g...): position j reads 1 + its rank among the selected, or 0.
Tensor masked_select_backward(const Tensor& grad, const TensorInfo& self, const Tensor& mask) {
  const Shape shape = broadcast_shapes(self.shape, mask.shape(), "masked_select");
  const Tensor m = mask.expand(shape).contiguous();
  const bool* mp = m.data<bool>();
  std::vector<int64_t> take(static_cast<size_t>(m.numel()), 0);
  int64_t next = 0;
  for (int64_t j = 0; j < static_cast<int64_t>(take.size()); ++j)
    if (mp[j]) take[j] = ++next;
  const Tensor padded = cat(TensorList{zeros({1}, grad.dtype()), grad.reshape({-1})}, 0);
  return padded.index_select(0, from_vector(take, {m.numel()})).reshape(shape);
}

Tensor gather_backward(const Tensor& grad, const TensorInfo& self, int64_t dim, const Tensor& index) {
  return zeros(self.shape, grad.dtype()).scatter_add(dim, index, grad);
}

Tensor scatter_src_backward(const Tensor& grad, const TensorInfo& src, int64_t dim, const Tensor& index) {
  const Tensor picked = grad.gather(dim, index);
  if (picked.shape() == src.shape) return picked;
  const Tensor out = zeros(src.shape, grad.dtype());
  Tensor covered = out;  // the leading index-shaped block of src
  for (int64_t d = 0; d < index.dim(); ++d) covered = covered.slice(d, 0, index.size(d));
  covered.copy_(picked);
  return out;
}

// A 0-d source took one slice: index's one value picks it without the dim (ATen's squeeze(0)).
Tensor index_add_source_backward(const Tensor& grad, const TensorInfo& source, int64_t dim, const Tensor& index,
                                 const Scalar& alpha) {
  const Tensor picked = source.shape.empty() ? grad.index_select(dim, index.reshape({1})).reshape({})
                                             : grad.index_select(dim, index).expand(source.shape);
  return maybe_multiply(picked, alpha);
}

TensorList cat_backward(const Tensor& grad, const std::vector<TensorInfo>& tensors, int64_t dim) {
  TensorList out;
  int64_t offset = 0;
  if (dim < 0) dim += grad.dim();
  for (const TensorInfo& in : tensors) {
    if (in.shape.size() == 1 && in.shape[0] == 0 && grad.dim() != 1) {  // legacy empty (0,) inputs take no part
      out.push_back(zeros(in.shape, in.dtype));
      continue;
    }
    out.push_back(grad.slice(dim, offset, offset + in.shape[dim]));
    offset += in.shape[dim];
  }
  return out;
}

TensorList stack_backward(const Tensor& grad, size_t count, int64_t dim) {
  TensorList out;
  if (dim < 0) dim += grad.dim();
  for (size_t i = 0; i < count; ++i) out.push_back(grad.select(dim, static_cast<int64_t>(i)));
  return out;
}

Tensor matmul_backward_self(const Tensor& grad, const TensorInfo& self, const Tensor& other) {
  const bool a_vec = self.shape.size() == 1, b_vec = other.dim() == 1;
  if (a_vec && b_vec) return grad * other;  // a dot product
  Shape a_shape = self.shape;
  Tensor g = grad;
  if (a_vec) {
    a_shape.insert(0, 1);
    g = g.unsqueeze(-2);
  }
  if (b_vec) g = g.unsqueeze(-1);
  const Tensor b = b_vec ? other.unsqueeze(-1) : other;
  Tensor ga = sum_to(g.matmul(b.transpose(-1, -2)), a_shape);
  return a_vec ? ga.squeeze(0) : ga;
}

Tensor matmul_backward_other(const Tensor& grad, const Tensor& self, const TensorInfo& other) {
  const bool a_vec = self.dim() == 1, b_vec = other.shape.size() == 1;
  if (a_vec && b_vec) return grad * self;
  Shape b_shape = other.shape;
  Tensor g = grad;
  if (a_vec) g = g.unsqueeze(-2);
  if (b_vec) {
    b_shape.push_back(1);
    g = g.unsqueeze(-1);
  }
  const Tensor a = a_vec ? self.unsqueeze(0) : self;
  Tensor gb = sum_to(a.transpose(-1, -2).matmul(g), b_shape);
  return b_vec ? gb.squeeze(-1) : gb;
}

Tensor linear_backward_weight(const Tensor& grad, const Tensor& input, const TensorInfo& weight) {
  const Shape& w = weight.shape;  // (out_features, in_features)
  return as_rows(grad, w[0]).t().mm(as_rows(input, w[1]));
}

Tensor linear_backward_bias(const Tensor& grad, const TensorInfo& weight) {
  return as_rows(grad, weight.shape[0]).sum(Shape{0});
}

namespace {

/// convolution_backward of a 1-d or 2-d, plain or transposed convolution, on the 4-D operands ATen's
/// convolution_backward takes: an unbatched input and its grad get a batch of one, a 1-d convolution's
/// operands a unit dim at 2 (its window's values are the W ones of (1 or 0, value) pairs).
std::tuple<Tensor, Tensor, Tensor> convolution_grads(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                     const TensorInfo& bias, int64_t spatial, const Shape& stride,
                                                     const Shape& padding, const Shape& dilation, bool transposed,
                                                     const Shape& output_padding, int64_t groups,
                                                     const std::array<bool, 3>& mask) {
  const bool unbatched = input.dim() == spatial + 1;
  auto as_4d = [&](Tensor t, bool batched) {
    if (batched && unbatched) t = t.unsqueeze(0);
    return spatial == 1 ? t.unsqueeze(2) : t;
  };
  auto [gi, gw, gb] = convolution_backward(as_4d(grad, true), as_4d(input, true), as_4d(weight, false),
                                           bias.defined ? std::optional<Shape>(bias.shape) : std::nullopt, stride,
                                           padding, dilation, transposed, output_padding, groups, mask);
  if (gi.defined() && spatial == 1) gi = gi.squeeze(2);
  if (gi.defined() && unbatched) gi = gi.squeeze(0);
  if (gw.defined() && spatial == 1) gw = gw.squeeze(2);
  return {gi, gw, gb};
}

/// A 1-d convolution's int[1] argument as the (H, W) pair of the 2-d one it runs as.
Shape pair_1d(const IntList& value, int64_t h) { return Shape{h, value.values[0]}; }

}  // namespace

std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                   const TensorInfo& bias, const Conv2dArgs& args,
                                                   const std::array<bool, 3>& grad_input_mask) {
  return convolution_grads(grad, input, weight, bias, 2, shape_of(args.stride), shape_of(args.padding),
                           shape_of(args.dilation), false, Shape{0, 0}, args.groups, grad_input_mask);
}

std::tuple<Tensor, Tensor, Tensor> conv1d_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                   const TensorInfo& bias, const Conv1dArgs& args,
                                                   const std::array<bool, 3>& grad_input_mask) {
  return convolution_grads(grad, input, weight, bias, 1, pair_1d(args.stride, 1), pair_1d(args.padding, 0),
                           pair_1d(args.dilation, 1), false, Shape{0, 0}, args.groups, grad_input_mask);
}

std::tuple<Tensor, Tensor, Tensor> conv_transpose2d_backward(const Tensor& grad, const Tensor& input,
                                                             const Tensor& weight, const TensorInfo& bias,
                                                             const ConvTranspose2dArgs& args,
                                                             const std::array<bool, 3>& grad_input_mask) {
  return convolution_grads(grad, input, weight, bias, 2, shape_of(args.stride), shape_of(args.padding),
                           shape_of(args.dilation), true, shape_of(args.output_padding), args.groups,
                           grad_input_mask);
}

std::tuple<Tensor, Tensor, Tensor> conv_transpose1d_backward(const Tensor& grad, const Tensor& input,
                                                             const Tensor& weight, const TensorInfo& bias,
                                                             const ConvTranspose1dArgs& args,
                                                             const std::array<bool, 3>& grad_input_mask) {
  return convolution_grads(grad, input, weight, bias, 1, pair_1d(args.stride, 1), pair_1d(args.padding, 0),
                           pair_1d(args.dilation, 1), true, pair_1d(args.output_padding, 0), args.groups,
                           grad_input_mask);
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& running_mean, const Tensor& running_var,
                                                       const BatchNormArgs& args,
                                                       const std::array<bool, 3>& grad_input_mask) {
  const bool training = args.training;
  return native_batch_norm_backward(grad, input, weight, training ? Tensor() : running_mean,
                                    training ? Tensor() : running_var, Tensor(), Tensor(), training, args.eps,
                                    grad_input_mask);
}

Tensor max_pool2d_grad(const Tensor& grad, const Tensor& self, const MaxPool2dWithIndicesArgs& args,
                       const Tensor& indices) {
  return max_pool2d_with_indices_backward(grad, self, shape_of(args.kernel_size),
                                          shape_of(args.stride.value_or(args.kernel_size)), shape_of(args.padding),
                                          shape_of(args.dilation), args.ceil_mode, indices);
}

Tensor avg_pool2d_grad(const Tensor& grad, const Tensor& self, const AvgPool2dArgs& args) {
  return avg_pool2d_backward(grad, self, shape_of(args.kernel_size), shape_of(args.stride.value_or(args.kernel_size)),
                             shape_of(args.padding), args.ceil_mode, args.count_include_pad, args.divisor_override);
}

Tensor constant_pad_nd_backward(const Tensor& grad, const Shape& pad) {
  Shape negated = pad;
  for (int64_t& p : negated) p = -p;
  return constant_pad_nd(grad, negated, 0);
}

Tensor im2col_backward(const Tensor& grad, const TensorInfo& self, const Im2colArgs& args) {
  const Shape& s = self.shape;
  return col2im(grad, Shape{s[s.size() - 2], s[s.size() - 1]}, shape_of(args.kernel_size), shape_of(args.dilation),
                shape_of(args.padding), shape_of(args.stride));
}

Tensor col2im_backward(const Tensor& grad, const Col2imArgs& args) {
  return im2col(grad, shape_of(args.kernel_size), shape_of(args.dilation), shape_of(args.padding),
                shape_of(args.stride));
}

std::tuple<Tensor, Tensor> mse_loss_grads(const Tensor& grad, const Tensor& self, const Tensor& target,
                                          int64_t reduction, const std::array<bool, 2>& grad_input_mask) {
  const Tensor g = mse_loss_backward(grad, self, target, reduction);
  return {g, grad_input_mask[1] ? g.neg() : Tensor()};
}

namespace {

// The mean reduction's 1 / numel, applied last as ATen's loss backwards do.
Tensor loss_grad_reduced(const Tensor& g, const Tensor& weight, int64_t reduction, int64_t numel) {
  const Tensor weighted = weight.defined() ? g * weight : g;
  return reduction == Reduction::Mean ? weighted / static_cast<double>(numel) : weighted;
}

// log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|)), finite for every finite x.
Tensor log_sigmoid(const Tensor& x) { return x.clamp_max(0) - (x.abs().neg().exp() + 1).log(); }

}  // namespace

Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            const Tensor& weight, int64_t reduction) {
  const Tensor logit = (self / (1 - self)).log();
  return loss_grad_reduced(logit.neg() * grad, weight, reduction, target.numel());
}

Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                 const Tensor& weight, const Tensor& pos_weight, int64_t reduction) {
  Tensor g;
  if (pos_weight.defined()) {
    const Tensor t = pos_weight * target;
    g = (t + 1 - target) * self.sigmoid() - t;
  } else {
    g = self.sigmoid() - target;
  }
  return loss_grad_reduced(g * grad, weight, reduction, self.numel());
}

Tensor binary_cross_entropy_with_logits_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                        const Tensor& weight, const Tensor& pos_weight,
                                                        int64_t reduction) {
  const Tensor g = pos_weight.defined() ? log_sigmoid(self.neg()) - log_sigmoid(self) * pos_weight : self.neg();
  return loss_grad_reduced(g * grad, weight, reduction, target.numel());
}

Tensor constant_input_grad(const char* op, const char* input, const char* why) {
  TL_CHECK(false, "the derivative for '", input, "' of ", op, " is not implemented (", why, "); detach() them");
  return {};
}

TensorList max_pool1d_decomposition(std::span<const Tensor> in, const MaxPool1dArgs& args) {
  return {std::get<0>(max_pool1d_with_indices(in[0], args.kernel_size.values, args.stride.values,
                                              args.padding.values, args.dilation.values, args.ceil_mode))};
}

TensorList max_pool2d_decomposition(std::span<const Tensor> in, const MaxPool2dArgs& args) {
  return {std::get<0>(max_pool2d_with_indices(in[0], shape_of(args.kernel_size),
                                              args.stride ? shape_of(*args.stride) : Shape{}, shape_of(args.padding),
                                              shape_of(args.dilation), args.ceil_mode))};
}

// ATen's CPU dropout, recorded op by op (so the graph is PyTorch's: MulBackward0 into the input):
// noise = empty_like(x).bernoulli_(1 - p); noise.div_(1 - p); x * noise; p == 1 is x * 0.
TensorList dropout_decomposition(std::span<const Tensor> in, const DropoutArgs& args) {
  const Tensor& x = in[0];
  if (!args.train || args.p == 0.0 || x.numel() == 0) return {x.clone()};
  if (args.p == 1.0) return {x * zeros({}, x.dtype())};
  Tensor noise = empty(x.shape(), x.dtype());
  noise.bernoulli_(1.0 - args.p);
  noise.div_(1.0 - args.p);
  return {x * noise};
}

}  // namespace tl::autograd
