// profiler/flops.cpp — the flop formulas; every size is checked first (conv's output size by
// ops/conv_shape.h, whose error is caught) so a malformed call gives 0 here and leaves the message to the op.
#include "profiler/flops.h"

#include <algorithm>
#include <array>

#include "core/op_kind.h"
#include "ops/conv_shape.h"

namespace tl::profiler {
namespace {

bool usable(std::span<const Tensor> inputs, size_t count) {
  if (inputs.size() < count) return false;
  for (size_t i = 0; i < count; ++i)
    if (!inputs[i].defined() || inputs[i].is_proxy()) return false;
  return true;
}

int64_t product(const Shape& s) {
  int64_t p = 1;
  for (int64_t d : s) p *= d;
  return p;
}

// A stride/padding/dilation attribute as two values (a single value applies to both sides).
bool pair_attr(const Attrs& attrs, const char* name, int64_t fallback, std::array<int64_t, 2>& out) {
  const AttrValue* v = attrs.find(name);
  if (v == nullptr || std::holds_alternative<std::monostate>(*v)) {
    out[0] = out[1] = fallback;
    return true;
  }
  if (const int64_t* i = std::get_if<int64_t>(v)) {
    out[0] = out[1] = *i;
    return true;
  }
  const Shape* s = std::get_if<Shape>(v);
  if (s == nullptr) return false;
  if (s->size() == 1) out[0] = out[1] = (*s)[0];
  else if (s->size() == 2) out[0] = (*s)[0], out[1] = (*s)[1];
  else return false;
  return true;
}

int64_t conv2d_flops(std::span<const Tensor> inputs, const Attrs& attrs) {
  if (!usable(inputs, 2)) return 0;
  const Shape& x = inputs[0].shape();  // (N, C_in, H, W)
  const Shape& w = inputs[1].shape();  // (C_out, C_in / groups, kH, kW)
  if (x.size() != 4 || w.size() != 4) return 0;
  std::array<int64_t, 2> stride, padding, dilation;
  if (!pair_attr(attrs, "stride", 1, stride) || !pair_attr(attrs, "padding", 0, padding) ||
      !pair_attr(attrs, "dilation", 1, dilation))
    return 0;
  const AttrValue* g = attrs.find("groups");
  const int64_t groups = g && std::holds_alternative<int64_t>(*g) ? std::get<int64_t>(*g) : 1;
  if (groups <= 0) return 0;
  std::array<int64_t, 2> out;
  try {
    out = conv_output_size("conv2d", x, {w[2], w[3]}, stride, padding, dilation);
  } catch (const Error&) {
    return 0;
  }
  return 2 * x[0] * out[0] * out[1] * w[2] * w[3] * x[1] * w[0] / groups;
}

// PyTorch's mm formula: prod(mat1) / K * prod(mat2) * 2.
int64_t gemm_flops(const Tensor& mat1, const Tensor& mat2) {
  const Shape& a = mat1.shape();
  if (a.empty() || a[a.size() - 1] == 0) return 0;
  return product(a) / a[a.size() - 1] * product(mat2.shape()) * 2;
}

int64_t bmm_flops(std::span<const Tensor> inputs) {
  if (!usable(inputs, 2)) return 0;
  const Shape& a = inputs[0].shape();
  if (a.size() != 3 || a[0] == 0 || a[2] == 0) return 0;
  return product(a) / a[2] / a[0] * product(inputs[1].shape()) * 2;
}

int64_t matmul_flops(std::span<const Tensor> inputs) {
  if (!usable(inputs, 2)) return 0;
  const Shape& a = inputs[0].shape();
  const Shape& b = inputs[1].shape();
  if (a.empty() || b.empty()) return 0;
  const int64_t k = a[a.size() - 1];
  const int64_t m = a.size() >= 2 ? a[a.size() - 2] : 1;
  const int64_t n = b.size() >= 2 ? b[b.size() - 1] : 1;
  // Broadcast the batch dimensions (all but the last two of each operand).
  const int64_t batch_a = std::max<int64_t>(0, a.size() - 2), batch_b = std::max<int64_t>(0, b.size() - 2);
  int64_t batch = 1;
  for (int64_t i = 0; i < std::max(batch_a, batch_b); ++i) {
    const int64_t da = i < batch_a ? a[batch_a - 1 - i] : 1;
    const int64_t db = i < batch_b ? b[batch_b - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return 0;
    batch *= da == 1 ? db : da;
  }
  return 2 * batch * m * n * k;
}

int64_t linear_flops(std::span<const Tensor> inputs) {
  if (!usable(inputs, 2)) return 0;
  const Shape& w = inputs[1].shape();  // (out_features, in_features)
  if (w.size() != 2) return 0;
  return 2 * inputs[0].numel() * w[0];
}

}  // namespace

int64_t estimate_flops(OpKind op, std::span<const Tensor> inputs, const Attrs& attrs) {
  switch (op) {
    case OpKind::Conv2d: return conv2d_flops(inputs, attrs);
    case OpKind::Mm: return usable(inputs, 2) ? gemm_flops(inputs[0], inputs[1]) : 0;
    case OpKind::Addmm: return usable(inputs, 3) ? gemm_flops(inputs[1], inputs[2]) : 0;
    case OpKind::Bmm: return bmm_flops(inputs);
    case OpKind::Matmul: return matmul_flops(inputs);
    case OpKind::Linear: return linear_flops(inputs);
    case OpKind::Add:
    case OpKind::Mul: return usable(inputs, 1) ? inputs[0].numel() : 0;
    default: return 0;
  }
}

}  // namespace tl::profiler
