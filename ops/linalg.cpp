// ops/linalg.cpp — mm, bmm, matmul (torch.matmul's 1-D / 2-D / broadcast-batch rules), addmm, baddbmm,
// outer and linear. Products run on ops/gemm.h over the operands' own strides (a dense copy only when a matrix
// has no unit stride); results are fresh contiguous tensors. float32 and float64; bfloat16 (autocast's
// products) multiplies in float32 and rounds the result once, as oneDNN's bf16 GEMM accumulates.
#include <algorithm>
#include <optional>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/aten_scope.h"
#include "ops/elementwise.h"
#include "ops/gemm.h"
#include "ops/ops.h"
#include "ops/reduce_plan.h"

namespace tl::kernels {
namespace {

using detail::OffsetCounter;
using detail::ReduceDim;

// Multiply-adds per parallel chunk of small batched products; from this size on, a single product
// is better threaded by Eigen itself than run beside others.
constexpr int64_t kBatchGrain = int64_t{1} << 21;
constexpr int64_t kEigenThreadedWork = int64_t{1} << 26;

void check_operands(const char* op, const Tensor& a, const Tensor& b) {
  TL_CHECK(a.dtype() == b.dtype(), op, ": expected both operands to have the same dtype, got ", a.dtype(), " and ",
           b.dtype());
  TL_CHECK(a.dtype() == DType::Float32 || a.dtype() == DType::Float64 || a.dtype() == DType::BFloat16, op,
           ": expected float32, float64 or bfloat16 operands, got ", a.dtype());
}

void check_matrices(const char* op, const Tensor& a, const Tensor& b) {
  TL_CHECK(a.dim() == 2 && b.dim() == 2, op, ": expected 2-D matrices, got mat1 of size ", a.shape(),
           " and mat2 of size ", b.shape());
  check_operands(op, a, b);
  TL_CHECK(a.size(1) == b.size(0), op, ": mat1 and mat2 shapes cannot be multiplied (", a.size(0), "x", a.size(1),
           " and ", b.size(0), "x", b.size(1), ")");
}

// Whether `from` expands to `to` (Tensor::expand's rule: aligned right, each size equal or 1): addmm's
// and baddbmm's self against the product.
bool expands_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  for (int64_t d = 0; d < from.size(); ++d) {
    const int64_t target = to[to.size() - from.size() + d];
    if (from[d] != target && from[d] != 1) return false;
  }
  return true;
}

// `t` itself when its matrices (last two dims) can be read by gemm, else a dense copy (no dispatch).
Tensor gemm_ready(const Tensor& t) {
  const int64_t r = t.dim();
  if (detail::gemm_operand_ok(t.size(r - 2), t.size(r - 1), t.stride(r - 2), t.stride(r - 1))) return t;
  Tensor copy = Tensor::allocate(t.shape(), t.dtype());
  detail::copy_elements(copy, t);
  return copy;
}

// Batch dims of `t` (rank >= 2) aligned right to `batch`, with stride 0 where t is broadcast.
std::vector<ReduceDim> batch_dims(const Tensor& t, const Shape& batch) {
  const int64_t lead = batch.size() - (t.dim() - 2);
  std::vector<ReduceDim> dims;
  for (int64_t d = 0; d < batch.size(); ++d) {
    const int64_t td = d - lead;
    dims.push_back({batch[d], td < 0 || t.size(td) == 1 ? 0 : t.stride(td)});
  }
  return dims;
}

detail::GemmOperand operand(const Tensor& t, int64_t offset) {
  return {static_cast<const char*>(t.raw_data()) + offset * t.element_size(), t.stride(-2), t.stride(-1)};
}

// out (batch..., m, n), contiguous = alpha * a (.., m, k) @ b (.., k, n) + beta * out; the batch
// dims of a and b broadcast to out's. Small products run side by side, large ones one at a time.
void batched_gemm(const Tensor& a_in, const Tensor& b_in, const Tensor& out, double alpha, double beta) {
  if (out.numel() == 0) return;
  if (out.dtype() == DType::BFloat16) {
    // float32 operands and accumulator; the result rounds to bfloat16 once.
    auto widened = [](const Tensor& t) {
      Tensor w = Tensor::allocate(t.shape(), DType::Float32);
      detail::copy_elements(w, t);
      return w;
    };
    const Tensor out32 = beta != 0 ? widened(out) : Tensor::allocate(out.shape(), DType::Float32);
    batched_gemm(widened(a_in), widened(b_in), out32, alpha, beta);
    detail::copy_elements(out, out32);
    return;
  }
  const Tensor a = gemm_ready(a_in), b = gemm_ready(b_in);
  const int64_t m = out.size(-2), n = out.size(-1), k = a.size(-1);
  const Shape batch(std::vector<int64_t>(out.shape().begin(), out.shape().end() - 2));
  const std::vector<ReduceDim> da = batch_dims(a, batch), db = batch_dims(b, batch);
  const int64_t batches = numel_of(batch), work = m * n * std::max<int64_t>(k, 1);
  const int64_t grain = work >= kEigenThreadedWork ? batches : std::max<int64_t>(1, kBatchGrain / work);
  char* c = static_cast<char*>(out.raw_data());
  parallel_for(0, batches, grain, [&](int64_t first, int64_t last) {
    OffsetCounter ia(da, first), ib(db, first);
    for (int64_t i = first; i < last; ++i, ia.advance(), ib.advance()) {
      detail::gemm(out.dtype(), m, n, k, alpha, operand(a, ia.offset()), operand(b, ib.offset()), beta,
                   c + i * m * n * out.element_size(), n);
    }
  });
}

// a (batch..., m, k) as one (rows, k) matrix when its batch and row dims share one stride.
bool fold_rows(const Tensor& a, int64_t& rows, int64_t& row_stride) {
  std::vector<ReduceDim> dims;
  for (int64_t d = 0; d + 1 < a.dim(); ++d) dims.push_back({a.size(d), a.stride(d)});
  rows = numel_of(Shape(std::vector<int64_t>(a.shape().begin(), a.shape().end() - 1)));
  if (rows == 0) return false;
  dims = detail::coalesce(dims);
  row_stride = dims[0].size == 1 ? a.size(-1) : dims[0].stride;
  return dims.size() == 1;
}

// A 1-D tensor (k) as a (1, k) row or a (k, 1) column (a view, no dispatch).
Tensor as_matrix(const Tensor& v, bool row) {
  const int64_t k = v.size(0), s = v.stride(0);
  return row ? Tensor::make(v.storage(), {1, k}, {k * s, s}, v.storage_offset(), v.dtype())
             : Tensor::make(v.storage(), {k, 1}, {s, 1}, v.storage_offset(), v.dtype());
}

// What ATen's addmm_impl_cpu_ records before its gemm: resolve_conj of the result, then of each operand
// it hands to BLAS as it is (a row-major one; a column-major one goes transposed, unresolved), mat2 first.
void gemm_conj_scopes(const Tensor& out, const Tensor& mat1, const Tensor& mat2) {
  detail::instant_scope("aten::resolve_conj", [&] { return ScopeArgs{out}; });
  if (mat2.stride(1) == 1) detail::instant_scope("aten::resolve_conj", [&] { return ScopeArgs{mat2}; });
  if (mat1.stride(1) == 1) detail::instant_scope("aten::resolve_conj", [&] { return ScopeArgs{mat1}; });
}

// What ATen's bmm records before its products: resolve_conj of both operands, then, for products of 400
// multiply-adds or more, per batch entry the select (-> as_strided) of the result, mat2 and self, and
// gemm_conj_scopes of those matrices. Only instants: skipped when no profile observes the thread.
void bmm_scopes(const Tensor& out, const Tensor& self, const Tensor& mat2) {
  if (scope_observer() == nullptr) return;
  detail::instant_scope("aten::resolve_conj", [&] { return ScopeArgs{mat2}; });
  detail::instant_scope("aten::resolve_conj", [&] { return ScopeArgs{self}; });
  if (self.size(1) * self.size(2) * mat2.size(2) < 400) return;
  auto select = [](const Tensor& t, int64_t i) {
    RecordFunction scope("aten::select", [&] { return ScopeArgs{t, AttrValue(int64_t{0}), AttrValue(i)}; });
    detail::as_strided_scope(t);
    return Tensor::make(t.storage(), {t.size(1), t.size(2)}, {t.stride(1), t.stride(2)},
                        t.storage_offset() + i * t.stride(0), t.dtype());
  };
  for (int64_t i = 0; i < out.size(0); ++i) {
    const Tensor r = select(out, i), b = select(mat2, i), a = select(self, i);
    gemm_conj_scopes(r, a, b);
  }
}

// The batch dims of `t` (rank >= 3) broadcast to `batch`, flattened into one, as a (B, r, c) view; false
// when they do not share one stride (ATen's reshape then copies).
bool flat_batch(const Tensor& t, const Shape& batch, Tensor& flat) {
  const std::vector<ReduceDim> dims = detail::coalesce(batch_dims(t, batch));
  if (dims.size() != 1) return false;
  flat = Tensor::make(t.storage(), {numel_of(batch), t.size(-2), t.size(-1)}, {dims[0].stride, t.stride(-2), t.stride(-1)},
                      t.storage_offset(), t.dtype());
  return true;
}

// What ATen's mv records: addmv_ into its (m) result.
void mv_scopes(const Tensor& mat, const Tensor& vec) {
  detail::instant_scope("aten::addmv_", [&] {
    return ScopeArgs{TensorType{{mat.size(0)}, mat.dtype()}, mat, vec, AttrValue(int64_t{0}), AttrValue(int64_t{1})};
  });
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  check_matrices("mm", a, b);
  Tensor out = Tensor::allocate({a.size(0), b.size(1)}, a.dtype());
  gemm_conj_scopes(out, a, b);
  batched_gemm(a, b, out, 1, 0);
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  TL_CHECK(a.dim() == 3 && b.dim() == 3, "bmm: expected 3-D tensors, got self of size ", a.shape(),
           " and mat2 of size ", b.shape());
  check_operands("bmm", a, b);
  TL_CHECK(b.size(0) == a.size(0) && b.size(1) == a.size(2), "bmm: expected mat2 of size [", a.size(0), ", ",
           a.size(2), ", *] to multiply self of size ", a.shape(), ", got ", b.shape());
  Tensor out = Tensor::allocate({a.size(0), a.size(1), b.size(2)}, a.dtype());
  bmm_scopes(out, a, b);
  batched_gemm(a, b, out, 1, 0);
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  TL_CHECK(a.dim() >= 1 && b.dim() >= 1, "matmul: both arguments need to be at least 1D, but they are ", a.dim(),
           "D and ", b.dim(), "D");
  check_operands("matmul", a, b);
  // A 1-D operand multiplies as a row (self) or a column (other), and that dim leaves the result.
  const Tensor a2 = a.dim() == 1 ? as_matrix(a, true) : a;
  const Tensor b2 = b.dim() == 1 ? as_matrix(b, false) : b;
  const int64_t m = a2.size(-2), k = a2.size(-1), n = b2.size(-1);
  TL_CHECK(b2.size(-2) == k, "matmul: self of size ", a.shape(), " and other of size ", b.shape(),
           " cannot be multiplied (", k, " vs ", b2.size(-2), " in the contracted dimension)");
  const Shape batch = broadcast_shapes(Shape(std::vector<int64_t>(a2.shape().begin(), a2.shape().end() - 2)),
                                       Shape(std::vector<int64_t>(b2.shape().begin(), b2.shape().end() - 2)), "matmul");
  Shape shape = batch, full = batch;
  if (a.dim() > 1) shape.push_back(m);
  if (b.dim() > 1) shape.push_back(n);
  full.push_back(m);
  full.push_back(n);
  Tensor out = Tensor::allocate(shape, a.dtype());
  // The ops ATen's matmul runs, as scopes: dot, mv, or unsqueeze -> mm -> squeeze_ for a vector
  // operand; mm for two matrices; reshape, mm (mv), _unsafe_view for a batch of matrices times a matrix
  // (a vector); expand and reshape of each operand, bmm, _unsafe_view for broadcast batches. A vector or
  // matrix times a batch, an unfoldable batch times a matrix, and batches whose broadcast does not flatten
  // to a view record matmul alone.
  const int64_t da = a.dim(), db = b.dim();
  int64_t rows = 0, row_stride = 0;
  if (db <= 2 && da > 2 && fold_rows(a2, rows, row_stride)) {
    // (batch..., m, k) @ (k, n) is one (batch * m, k) @ (k, n) product, as PyTorch folds it.
    const Tensor flat = Tensor::make(a2.storage(), {rows, k}, {row_stride, a2.stride(-1)}, a2.storage_offset(), a2.dtype());
    const Tensor flat_out = Tensor::make(out.storage(), {rows, n}, {n, 1}, 0, out.dtype());
    detail::reshape_scopes({a.shape(), a.dtype()}, flat.shape(), true);
    {
      RecordFunction product(db == 2 ? "aten::mm" : "aten::mv", [&] { return ScopeArgs{flat, b}; });
      if (db == 2) gemm_conj_scopes(flat_out, flat, b);
      else mv_scopes(flat, b);
      batched_gemm(flat, b2, flat_out, 1, 0);
    }
    detail::instant_scope("aten::_unsafe_view", [&] {
      return ScopeArgs{TensorType{db == 2 ? flat_out.shape() : Shape{rows}, out.dtype()}, AttrValue(shape)};
    });
    return out;
  }
  const Tensor full_out = Tensor::make(out.storage(), full, contiguous_strides(full), 0, out.dtype());
  Tensor flat_a, flat_b;
  if (da == 1 && db == 1) {
    RecordFunction dot("aten::dot", [&] { return ScopeArgs{a, b}; });
    detail::instant_scope("aten::fill_", [&] { return ScopeArgs{TensorType{{}, out.dtype()}, AttrValue{}}; });
    batched_gemm(a2, b2, full_out, 1, 0);
  } else if (da == 2 && db == 1) {
    RecordFunction mv("aten::mv", [&] { return ScopeArgs{a, b}; });
    mv_scopes(a, b);
    batched_gemm(a2, b2, full_out, 1, 0);
  } else if (da == 1 && db == 2) {
    {
      RecordFunction unsqueeze("aten::unsqueeze", [&] { return ScopeArgs{a, AttrValue(int64_t{0})}; });
      detail::as_strided_scope(a);
    }
    {
      RecordFunction mm("aten::mm", [&] { return ScopeArgs{a2, b}; });
      gemm_conj_scopes(full_out, a2, b);
      batched_gemm(a2, b2, full_out, 1, 0);
    }
    detail::instant_scope("aten::squeeze_", [&] { return ScopeArgs{full_out, AttrValue(int64_t{0})}; });
  } else if (da == 2 && db == 2) {
    RecordFunction mm("aten::mm", [&] { return ScopeArgs{a, b}; });
    gemm_conj_scopes(out, a, b);
    batched_gemm(a2, b2, full_out, 1, 0);
  } else if (da >= 3 && db >= 3 && flat_batch(a, batch, flat_a) && flat_batch(b, batch, flat_b)) {
    for (const Tensor* t : {&a, &b}) {
      Shape expanded = batch;
      expanded.push_back(t->size(-2));
      expanded.push_back(t->size(-1));
      {
        RecordFunction expand("aten::expand", [&] { return ScopeArgs{*t, AttrValue(expanded), AttrValue(false)}; });
        detail::as_strided_scope(*t);
      }
      detail::reshape_scopes({expanded, t->dtype()}, (t == &a ? flat_a : flat_b).shape(), true);
    }
    const Tensor flat_out = Tensor::make(out.storage(), {numel_of(batch), m, n}, contiguous_strides({numel_of(batch), m, n}),
                                         0, out.dtype());
    {
      RecordFunction bmm("aten::bmm", [&] { return ScopeArgs{flat_a, flat_b}; });
      bmm_scopes(flat_out, flat_a, flat_b);
      batched_gemm(a2, b2, full_out, 1, 0);
    }
    detail::instant_scope("aten::_unsafe_view", [&] { return ScopeArgs{flat_out, AttrValue(shape)}; });
  } else {
    batched_gemm(a2, b2, full_out, 1, 0);
  }
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const AddmmArgs& args) {
  TL_CHECK(self.defined(), "addmm: expected a tensor for self, got None");
  check_matrices("addmm", mat1, mat2);
  TL_CHECK(self.dtype() == mat1.dtype(), "addmm: expected self to have dtype ", mat1.dtype(), " like mat1, got ",
           self.dtype());
  const Shape product{mat1.size(0), mat2.size(1)};
  TL_CHECK(expands_to(self.shape(), product), "addmm: self of size ", self.shape(),
           " cannot be broadcast to the product's size ", product);
  const double beta = args.beta.to<double>(), alpha = args.alpha.to<double>();
  Tensor out = Tensor::allocate(product, self.dtype());
  // ATen's addmm expands self to the product's size (a view), copies it into the result (beta == 0 never
  // reads self, so its NaNs do not propagate) and resolves the conjugate bits of the result and mat1;
  // the gemm is its own work.
  {
    RecordFunction expand("aten::expand", [&] { return ScopeArgs{self, AttrValue(product), AttrValue(false)}; });
    detail::instant_scope("aten::as_strided", [&] { return ScopeArgs{self, AttrValue(product), AttrValue{}, AttrValue{}}; });
  }
  if (beta != 0) {
    RecordFunction copy("aten::copy_",
                        [&] { return ScopeArgs{out, TensorType{product, self.dtype()}, AttrValue(false)}; });
    detail::copy_elements(out, self);
  }
  gemm_conj_scopes(out, mat1, mat2);
  batched_gemm(mat1, mat2, out, alpha, beta);
  return out;
}

// beta * self + alpha * bmm(batch1, batch2), composed of bmm, mul and add; beta == 0 never reads self (its
// NaNs do not propagate), as ATen's baddbmm.
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const BaddbmmArgs& args) {
  TL_CHECK(batch1.dim() == 3, "baddbmm: batch1 must be a 3D tensor, got size ", batch1.shape());
  TL_CHECK(batch2.dim() == 3, "baddbmm: batch2 must be a 3D tensor, got size ", batch2.shape());
  TL_CHECK(batch2.size(0) == batch1.size(0) && batch2.size(1) == batch1.size(2),
           "baddbmm: Expected size for first two dimensions of batch2 tensor to be: [", batch1.size(0), ", ",
           batch1.size(2), "] but got: [", batch2.size(0), ", ", batch2.size(1), "]");
  const Shape product{batch1.size(0), batch1.size(1), batch2.size(2)};
  TL_CHECK(expands_to(self.shape(), product), "baddbmm: self of size ", self.shape(),
           " cannot be broadcast to the product's size ", product);
  const double beta = args.beta.to<double>(), alpha = args.alpha.to<double>();
  Tensor out = tl::bmm(batch1, batch2);
  if (alpha != 1) out = out * alpha;
  return beta == 0 ? out : tl::add(out, self, beta);
}

// The outer product of two vectors: self as a column times vec2, as ATen composes it.
Tensor outer(const Tensor& self, const Tensor& vec2) {
  TL_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  TL_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return self.reshape({self.size(0), 1}) * vec2;
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  TL_CHECK(input.defined() && weight.defined(), "linear: expected input and weight tensors, got None");
  // PyTorch's composition, so profiles show the same children: addmm for 2-D input with a bias
  // (and for contiguous 3-D input, flattened), otherwise matmul then an in-place add.
  const Tensor weight_t = weight.t();
  if (input.dim() == 2 && bias.defined()) return tl::addmm(bias, input, weight_t);
  if (input.dim() == 3 && bias.defined() && input.is_contiguous()) {
    const Tensor flat = input.view({input.size(0) * input.size(1), input.size(2)});
    const Tensor out = tl::addmm(bias, flat, weight_t);
    return out.view({input.size(0), input.size(1), out.size(1)});
  }
  Tensor out = tl::matmul(input, weight_t);
  if (bias.defined()) out.add_(bias);
  return out;
}

}  // namespace tl::kernels
