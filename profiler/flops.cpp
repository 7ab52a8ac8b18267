// profiler/flops.cpp — the flop formulas; every size is checked first so a malformed call gives 0
// here and leaves the error message to the op.
#include "profiler/flops.h"

#include <algorithm>

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

const AttrValue* find_attr(const Attrs& attrs, std::string_view name) {
  for (const Attrs::Item& item : attrs.items())
    if (item.name == name) return &item.value;
  return nullptr;
}

// A stride/padding/dilation attribute as two values (a single value applies to both sides).
bool pair_attr(const Attrs& attrs, const char* name, int64_t fallback, int64_t out[2]) {
  const AttrValue* v = find_attr(attrs, name);
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
  int64_t stride[2], padding[2], dilation[2];
  if (!pair_attr(attrs, "stride", 1, stride) || !pair_attr(attrs, "padding", 0, padding) ||
      !pair_attr(attrs, "dilation", 1, dilation))
    return 0;
  const AttrValue* g = find_attr(attrs, "groups");
  const int64_t groups = g && std::holds_alternative<int64_t>(*g) ? std::get<int64_t>(*g) : 1;
  if (groups <= 0 || stride[0] <= 0 || stride[1] <= 0) return 0;
  const int64_t span_h = x[2] + 2 * padding[0] - dilation[0] * (w[2] - 1) - 1;
  const int64_t span_w = x[3] + 2 * padding[1] - dilation[1] * (w[3] - 1) - 1;
  if (span_h < 0 || span_w < 0) return 0;
  const int64_t out_h = span_h / stride[0] + 1, out_w = span_w / stride[1] + 1;
  return 2 * x[0] * out_h * out_w * w[2] * w[3] * x[1] * w[0] / groups;
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
