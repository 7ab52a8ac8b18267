// ops/embedding.cpp — embedding (rows of a (num_embeddings, embedding_dim) weight picked by integer indices, as
// ATen's: index_select of the flattened indices, viewed back) and its dense backward, which sums the gradient rows
// into the rows they came from, skipping padding_idx; deterministic (each weight row sums in index order).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/norm_moments.h"
#include "ops/onednn/memory.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

void check_indices(const Tensor& indices, const char* op) {
  TL_CHECK(indices.dtype() == DType::Int64 || indices.dtype() == DType::Int32, op,
           ": expected indices of dtype Int64 or Int32, got ", indices.dtype());
}

/// The indices' values in row-major order, each checked against [0, num_weights).
std::vector<int64_t> index_values(const Tensor& indices, int64_t num_weights, const char* op) {
  const Tensor idx = onednn::to_contiguous(indices, op);
  std::vector<int64_t> values(static_cast<size_t>(idx.numel()));
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t v = idx.dtype() == DType::Int64 ? idx.data<int64_t>()[i] : idx.data<int32_t>()[i];
    TL_CHECK(v >= 0 && v < num_weights, op, ": index ", v, " is out of range for ", num_weights, " embeddings");
    values[i] = v;
  }
  return values;
}

/// grad_weight[k] += grad[i] * scale[k] for every i with index[i] = k != padding, k in [begin, end), in index
/// order: each thread owns a block of weight rows.
template <typename T>
void add_rows(const T* g, T* out, const std::vector<int64_t>& index, const std::vector<double>& scale, int64_t D,
              int64_t padding, int64_t begin, int64_t end) {
  using A = detail::acc_t<T>;
  for (size_t i = 0; i < index.size(); ++i) {
    const int64_t k = index[i];
    if (k < begin || k >= end || k == padding) continue;
    const A s = static_cast<A>(scale[static_cast<size_t>(k)]);
    T* __restrict row = out + k * D;
    const T* __restrict src = g + static_cast<int64_t>(i) * D;
#pragma omp simd
    for (int64_t d = 0; d < D; ++d) row[d] = detail::narrow<T>(static_cast<A>(row[d]) + static_cast<A>(src[d]) * s);
  }
}

}  // namespace

// weight (num_embeddings, embedding_dim), indices (*) int64 / int32 -> (*, embedding_dim). padding_idx and
// scale_grad_by_freq shape the gradient only; sparse gradients are not supported.
Tensor embedding(const Tensor& weight, const Tensor& indices, const EmbeddingArgs& args) {
  TL_CHECK(weight.dim() == 2, "embedding: 'weight' must be 2-D, got weight of shape ", weight.shape());
  check_indices(indices, "embedding");
  TL_CHECK(!args.sparse, "embedding: sparse gradients are not supported (sparse=True)");
  if (indices.dim() == 1) return weight.index_select(0, indices);
  Shape size = indices.shape();
  size.push_back(weight.size(1));
  return weight.index_select(0, indices.reshape({-1})).view(size);
}

// grad_output (*, embedding_dim), indices (*) -> grad_weight (num_weights, embedding_dim) in grad_output's dtype.
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices,
                                const EmbeddingDenseBackwardArgs& args) {
  const char* op = "embedding_dense_backward";
  check_indices(indices, op);
  TL_CHECK(is_floating_point(grad_output.dtype()), op, ": expected a floating point grad_output, got ",
           grad_output.dtype());
  TL_CHECK(grad_output.dim() >= 1 && grad_output.numel() == indices.numel() * grad_output.size(-1), op,
           ": grad_output ", grad_output.shape(), " does not match indices ", indices.shape());
  TL_CHECK(args.num_weights >= 0, op, ": num_weights must be non-negative, got ", args.num_weights);
  const int64_t V = args.num_weights, D = grad_output.size(-1);
  const std::vector<int64_t> index = index_values(indices, V, op);
  std::vector<double> scale(static_cast<size_t>(V), 1.0);
  if (args.scale_grad_by_freq) {
    std::vector<int64_t> counts(static_cast<size_t>(V), 0);
    for (int64_t k : index) ++counts[static_cast<size_t>(k)];
    for (int64_t k = 0; k < V; ++k)
      if (counts[k] > 0) scale[k] = 1.0 / static_cast<double>(counts[k]);
  }
  Tensor grad_weight = tl::zeros({V, D}, grad_output.dtype());
  if (index.empty() || D == 0) return grad_weight;
  const Tensor grad = onednn::to_contiguous(grad_output, op);
  TL_DISPATCH_FLOATING_TYPES(grad.dtype(), op, [&] {
    const scalar_t* g = grad.data<scalar_t>();
    scalar_t* out = grad_weight.data<scalar_t>();
    parallel_for(0, V, std::max<int64_t>(1, V / 64), [&](int64_t begin, int64_t end) {
      add_rows(g, out, index, scale, D, args.padding_idx, begin, end);
    });
  });
  return grad_weight;
}

}  // namespace tl::kernels
