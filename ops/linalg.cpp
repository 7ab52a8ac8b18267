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
#include "ops/matmul_plan.h"
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

// The batch dims of `t` (rank >= 3) broadcast to `batch`, flattened into one, as a (B, r, c) view; false
// when they do not share one stride (ATen's reshape then copies).
bool flat_batch(const Tensor& t, const Shape& batch, Tensor& flat) {
  const std::vector<ReduceDim> dims = detail::coalesce(batch_dims(t, batch));
  if (dims.size() != 1) return false;
  flat = Tensor::make(t.storage(), {numel_of(batch), t.size(-2), t.size(-1)}, {dims[0].stride, t.stride(-2), t.stride(-1)},
                      t.storage_offset(), t.dtype());
  return true;
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  check_matrices("mm", a, b);
  Tensor out = Tensor::allocate({a.size(0), b.size(1)}, a.dtype());
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
  const int64_t k = a2.size(-1);
  TL_CHECK(b2.size(-2) == k, "matmul: self of size ", a.shape(), " and other of size ", b.shape(),
           " cannot be multiplied (", k, " vs ", b2.size(-2), " in the contracted dimension)");
  broadcast_shapes(Shape(std::vector<int64_t>(a2.shape().begin(), a2.shape().end() - 2)),
                   Shape(std::vector<int64_t>(b2.shape().begin(), b2.shape().end() - 2)), "matmul");
  const std::optional<detail::MatmulPlan> plan = detail::plan_matmul(a, b);
  TL_INTERNAL_ASSERT(plan, "matmul: operands the checks accepted have no plan");
  Tensor out = Tensor::allocate(plan->shape, a.dtype());
  // (batch..., m, k) @ (k, n) is one (batch * m, k) @ (k, n) product, as PyTorch folds it; rows that do not fold
  // as a view (MultiheadAttention's (L, N, E) input, a transposed batch) are copied first, as ATen's reshape does,
  // rather than multiplied as batch * m thin products against the same matrix.
  const bool folds = plan->path == detail::MatmulPlan::Path::Folded;
  if (folds || (a.dim() > 2 && b.dim() <= 2 && a.numel() > 0)) {
    Tensor flat = plan->folded;
    if (!folds) {
      const Tensor dense = Tensor::allocate(a.shape(), a.dtype());
      detail::copy_elements(dense, a);
      flat = Tensor::make(dense.storage(), {a.numel() / k, k}, {k, 1}, 0, a.dtype());
    }
    batched_gemm(flat, b2, Tensor::make(out.storage(), {flat.size(0), b2.size(-1)}, {b2.size(-1), 1}, 0, out.dtype()), 1, 0);
    return out;
  }
  // Every other case is one broadcast batched product over the operands' own strides; the ops ATen runs
  // for it (dot, mv, mm, bmm, ...) are the ATen tree's (ops/aten_tree.cpp).
  Shape full = plan->batch;
  full.push_back(a2.size(-2));
  full.push_back(b2.size(-1));
  batched_gemm(a2, b2, Tensor::make(out.storage(), full, contiguous_strides(full), 0, out.dtype()), 1, 0);
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
  // beta == 0 never reads self, so its NaNs do not propagate.
  if (beta != 0) detail::copy_elements(out, self);
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

namespace tl::detail {

std::optional<MatmulPlan> plan_matmul(const Tensor& a, const Tensor& b) {
  if (a.dim() < 1 || b.dim() < 1) return std::nullopt;
  const Tensor a2 = a.dim() == 1 ? kernels::as_matrix(a, true) : a;
  const Tensor b2 = b.dim() == 1 ? kernels::as_matrix(b, false) : b;
  const int64_t m = a2.size(-2), k = a2.size(-1), n = b2.size(-1);
  if (b2.size(-2) != k) return std::nullopt;
  MatmulPlan plan;
  plan.self_matrix = a2;
  plan.other_matrix = b2;
  // The batch dims, aligned right and broadcast.
  const int64_t ra = a2.dim() - 2, rb = b2.dim() - 2, rank = std::max(ra, rb);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t sa = d - (rank - ra) >= 0 ? a2.size(d - (rank - ra)) : 1;
    const int64_t sb = d - (rank - rb) >= 0 ? b2.size(d - (rank - rb)) : 1;
    if (sa != sb && sa != 1 && sb != 1) return std::nullopt;
    plan.batch.push_back(sa == 1 ? sb : sa);
  }
  plan.shape = plan.batch;
  if (a.dim() > 1) plan.shape.push_back(m);
  if (b.dim() > 1) plan.shape.push_back(n);
  const int64_t da = a.dim(), db = b.dim();
  using Path = MatmulPlan::Path;
  int64_t rows = 0, row_stride = 0;
  if (db <= 2 && da > 2 && kernels::fold_rows(a2, rows, row_stride)) {
    // (batch..., m, k) @ (k, n) is one (batch * m, k) @ (k, n) product, as PyTorch folds it.
    plan.path = Path::Folded;
    plan.folded = Tensor::make(a2.storage(), {rows, k}, {row_stride, a2.stride(-1)}, a2.storage_offset(), a2.dtype());
  } else if (da == 1 && db == 1) {
    plan.path = Path::Dot;
  } else if (da == 2 && db == 1) {
    plan.path = Path::Mv;
  } else if (da == 1 && db == 2) {
    plan.path = Path::VecMat;
  } else if (da == 2 && db == 2) {
    plan.path = Path::Mm;
  } else if (da >= 3 && db >= 3 && kernels::flat_batch(a, plan.batch, plan.flat_self) &&
             kernels::flat_batch(b, plan.batch, plan.flat_other)) {
    plan.path = Path::Batched;
  }
  return plan;
}

}  // namespace tl::detail
