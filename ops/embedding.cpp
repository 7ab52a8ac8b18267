// ops/embedding.cpp — embedding (rows of a (num_embeddings, embedding_dim) weight picked by integer indices, as
// ATen's: index_select of the flattened indices, viewed back) and its dense backward, which sums the gradient rows
// into the rows they came from, skipping padding_idx; deterministic (each weight row sums in index order).
// Also embedding_renorm_ (max_norm) and _embedding_bag (sums, means or maxima of bags of rows) with its backward.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/norm_moments.h"
#include "ops/onednn/memory.h"
#include "ops/ops.h"
#include "ops/vector_kernels.h"

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

/// The values of a 1-D int64 / int32 tensor (offsets, bag bookkeeping), unchecked.
std::vector<int64_t> int_values(const Tensor& t, const char* op) {
  const Tensor c = onednn::to_contiguous(t, op);
  std::vector<int64_t> values(static_cast<size_t>(c.numel()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = c.dtype() == DType::Int64 ? c.data<int64_t>()[i] : c.data<int32_t>()[i];
  return values;
}

Tensor int64_tensor(const std::vector<int64_t>& values, Shape shape) {
  Tensor t = tl::empty(std::move(shape), DType::Int64);
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return t;
}

enum BagMode : int64_t { kSum = 0, kMean = 1, kMax = 2 };

/// The bags of _embedding_bag: bag b holds positions [begin[b], end[b]) of the indices; bag_of[i] is position i's
/// bag (-1 past the last bag with include_last_offset).
struct Bags {
  std::vector<int64_t> begin, end, bag_of;
};

/// ATen's check_arguments of embedding_bag (indices and offsets may differ in integer dtype: ATen promotes them),
/// then the bags the offsets describe.
Bags make_bags(const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
               const Tensor& per_sample_weights, bool include_last_offset) {
  const char* op = "embedding_bag";
  TL_CHECK(indices.dtype() == DType::Int64 || indices.dtype() == DType::Int32, op,
           ": expected indices of dtype Int64 or Int32, got ", indices.dtype());
  TL_CHECK(offsets.dtype() == DType::Int64 || offsets.dtype() == DType::Int32, op,
           ": expected offsets of dtype Int64 or Int32, got ", offsets.dtype());
  TL_CHECK(is_floating_point(weight.dtype()), op, ": expected a floating point weight, got ", weight.dtype());
  TL_CHECK(weight.dim() == 2, op, ": weight has to be a 2D Tensor, but got Tensor of dimension ", weight.dim());
  TL_CHECK(indices.dim() == 1 && offsets.dim() == 1, op, ": expected 1-D indices and offsets, got ", indices.shape(),
           " and ", offsets.shape());
  TL_CHECK(mode == kSum || mode == kMean || mode == kMax, op, ": mode has to be 0 (sum), 1 (mean) or 2 (max), got ",
           mode);
  const int64_t n = indices.size(0);
  const std::vector<int64_t> offs = int_values(offsets, op);
  if (!offs.empty()) {
    TL_CHECK(offs.front() == 0, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
             "from position 0. However, got ", offs.front());
    TL_CHECK(offs.back() <= n, "offsets[-1] can not be greater than input's length ", n, " but got offsets[-1] of ",
             offs.back());
  }
  if (per_sample_weights.defined()) {
    TL_CHECK(mode == kSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    TL_CHECK(per_sample_weights.dtype() == weight.dtype(), op, ": expected per_sample_weights of the weight's dtype ",
             weight.dtype(), ", got ", per_sample_weights.dtype());
    TL_CHECK(per_sample_weights.dim() == 1 && per_sample_weights.numel() == n, op,
             ": expected 1-D per_sample_weights of one weight per index (", n, "), got ", per_sample_weights.shape());
  }
  if (include_last_offset)
    TL_CHECK(!offs.empty(), "include_last_offset: number of offset should be at least 1");
  const size_t bags = include_last_offset ? offs.size() - 1 : offs.size();
  Bags out;
  out.bag_of.assign(static_cast<size_t>(n), -1);
  for (size_t b = 0; b < bags; ++b) {
    const int64_t begin = offs[b], end = b + 1 < offs.size() ? offs[b + 1] : n;
    TL_CHECK(begin <= end, op, ": offsets must be non-decreasing, got offsets[", b, "] = ", begin, " after ", end);
    out.begin.push_back(begin);
    out.end.push_back(end);
    for (int64_t i = begin; i < end; ++i) out.bag_of[static_cast<size_t>(i)] = static_cast<int64_t>(b);
  }
  return out;
}

/// Throws unless every entry of offset2bag names one of the `bags` gradient rows (or -1: in no bag).
void check_bags(const std::vector<int64_t>& bag_of, int64_t bags, const char* op) {
  for (int64_t b : bag_of) TL_CHECK(b >= -1 && b < bags, op, ": offset2bag entry ", b, " is not a bag of ", bags);
}

/// The indices' values, each checked against [0, num_weights) with ATen's embedding_bag text.
std::vector<int64_t> bag_index_values(const Tensor& indices, int64_t num_weights) {
  std::vector<int64_t> values = int_values(indices, "embedding_bag");
  for (int64_t v : values)
    TL_CHECK(v >= 0 && v < num_weights, "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be ",
             v);
  return values;
}

}  // namespace

// self (num_embeddings, embedding_dim), written in place: each row named by `indices` (once, however often
// named) whose norm_type-norm exceeds max_norm is scaled by max_norm / (norm + 1e-7), as ATen's.
Tensor embedding_renorm_(const Tensor& self, const Tensor& indices, const EmbeddingRenormArgs& args) {
  const char* op = "embedding_renorm_";
  TL_CHECK(self.dim() == 2, op, ": expected 2-D self (num_embeddings, embedding_dim), got ", self.shape());
  check_indices(indices, op);
  TL_CHECK(is_floating_point(self.dtype()), op, ": expected a floating point self, got ", self.dtype());
  std::vector<int64_t> rows = int_values(indices, op);
  for (int64_t v : rows)  // ATen's text: its renorm selects each row
    TL_CHECK(v >= -self.size(0) && v < self.size(0), "select(): index ", v, " out of range for tensor of size ",
             self.shape(), " at dimension 0");
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  const int64_t D = self.size(1);
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    using A = detail::acc_t<scalar_t>;
    for (int64_t k : rows) {
      if (k < 0) k += self.size(0);
      const int64_t s0 = self.strides()[0], s1 = self.strides()[1];
      scalar_t* row = self.data<scalar_t>() + k * s0;
      double norm = 0.0;
      if (args.norm_type == INFINITY) {
        for (int64_t d = 0; d < D; ++d) norm = std::max(norm, std::abs(static_cast<double>(static_cast<A>(row[d * s1]))));
      } else if (args.norm_type == 0.0) {
        for (int64_t d = 0; d < D; ++d) norm += static_cast<A>(row[d * s1]) != A(0);
      } else {
        A sum = 0;
        for (int64_t d = 0; d < D; ++d)
          sum += static_cast<A>(std::pow(std::abs(static_cast<A>(row[d * s1])), static_cast<A>(args.norm_type)));
        const A p = static_cast<A>(args.norm_type);
        norm = static_cast<double>(p == A(2) ? std::sqrt(sum) : std::pow(sum, A(1) / p));  // in A, as ATen's norm
      }
      if (!(norm > args.max_norm)) continue;
      const A scale = static_cast<A>(args.max_norm / (norm + 1e-7));
      for (int64_t d = 0; d < D; ++d) row[d * s1] = detail::narrow<scalar_t>(static_cast<A>(row[d * s1]) * scale);
    }
  });
  return self;
}

// weight (V, D); indices (n) and offsets (B or B + 1 with include_last_offset) of one integer dtype;
// per_sample_weights (n) or undefined (mode sum only) -> output (B, D) in weight's dtype, offset2bag (n), bag_size
// (B), max_indices ((B, D) for mode max, else bag_size), int64. A bag sums, averages or takes the elementwise
// maximum of its rows (the first row of a bag, then a greater value, as ATen: NaN only from the first), padding_idx
// rows skipped and not counted; an empty bag gives zeros (max_indices -1).
std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag(const Tensor& weight, const Tensor& indices,
                                                          const Tensor& offsets, const Tensor& per_sample_weights,
                                                          const EmbeddingBagArgs& args) {
  const char* op = "embedding_bag";
  TL_CHECK(!args.sparse, op, ": sparse gradients are not supported (sparse=True)");
  const Bags bags = make_bags(weight, indices, offsets, args.mode, per_sample_weights, args.include_last_offset);
  const int64_t V = weight.size(0), D = weight.size(1), B = static_cast<int64_t>(bags.begin.size());
  const std::vector<int64_t> index = bag_index_values(indices, V);
  std::vector<int64_t> bag_size(static_cast<size_t>(B), 0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = bags.begin[b]; i < bags.end[b]; ++i) bag_size[b] += index[i] != args.padding_idx;
  Tensor output = tl::zeros({B, D}, weight.dtype());
  std::vector<int64_t> max_index(args.mode == kMax ? static_cast<size_t>(B * D) : 0, -1);
  const Tensor w = onednn::to_contiguous(weight, op);
  const Tensor psw = per_sample_weights.defined() ? onednn::to_contiguous(per_sample_weights, op) : Tensor();
  TL_DISPATCH_FLOATING_TYPES(w.dtype(), op, [&] {
    using A = detail::acc_t<scalar_t>;
    const scalar_t* wd = w.data<scalar_t>();
    const scalar_t* pd = psw.defined() ? psw.data<scalar_t>() : nullptr;
    scalar_t* out = output.data<scalar_t>();
    parallel_for(0, B, std::max<int64_t>(1, 4096 / std::max<int64_t>(D, 1)), [&](int64_t first, int64_t last) {
      std::vector<A> acc(static_cast<size_t>(D));
      for (int64_t b = first; b < last; ++b) {
        std::fill(acc.begin(), acc.end(), A(0));
        bool seen = false;
        for (int64_t i = bags.begin[b]; i < bags.end[b]; ++i) {
          const int64_t k = index[i];
          if (k == args.padding_idx) continue;
          const scalar_t* row = wd + k * D;
          if (args.mode == kMax) {
            for (int64_t d = 0; d < D; ++d)
              if (!seen || static_cast<A>(row[d]) > acc[d]) {
                acc[d] = static_cast<A>(row[d]);
                max_index[b * D + d] = k;
              }
          } else {
            const A s = pd != nullptr ? static_cast<A>(pd[i]) : A(1);
            for (int64_t d = 0; d < D; ++d) acc[d] += static_cast<A>(row[d]) * s;
          }
          seen = true;
        }
        const A divisor = args.mode == kMean ? static_cast<A>(std::max<int64_t>(bag_size[b], 1)) : A(1);
        for (int64_t d = 0; d < D; ++d) out[b * D + d] = detail::narrow<scalar_t>(acc[d] / divisor);
      }
    });
  });
  Tensor sizes = int64_tensor(bag_size, {B});
  Tensor maxima = args.mode == kMax ? int64_tensor(max_index, {B, D}) : sizes.clone();
  return {output, int64_tensor(bags.bag_of, {static_cast<int64_t>(bags.bag_of.size())}), sizes, maxima};
}

// grad (B, D) -> grad_weight (num_weights, D): each bag's gradient row added to the rows it used (scaled by the
// per-sample weight, by 1 / bag_size for mean, by 1 / frequency with scale_grad_by_freq as ATen 1.13 counts it),
// or for max each element
// to the row it came from; padding_idx rows get none. offsets and sparse as the forward took them.
Tensor _embedding_bag_backward(const Tensor& grad, const Tensor& indices, const Tensor& /*offsets: in offset2bag*/,
                               const Tensor& offset2bag, const Tensor& bag_size, const Tensor& maximum_indices,
                               const Tensor& per_sample_weights, const EmbeddingBagBackwardArgs& args) {
  const char* op = "_embedding_bag_backward";
  TL_CHECK(!args.sparse, op, ": sparse gradients are not supported (sparse=True)");
  TL_CHECK(is_floating_point(grad.dtype()) && grad.dim() == 2, op, ": expected a 2-D floating point grad, got ",
           grad.dtype(), " ", grad.shape());
  TL_CHECK(args.num_weights >= 0, op, ": num_weights must be non-negative, got ", args.num_weights);
  const int64_t V = args.num_weights, D = grad.size(1), B = grad.size(0);
  const std::vector<int64_t> index = int_values(indices, op), bag_of = int_values(offset2bag, op),
                             sizes = int_values(bag_size, op);
  TL_CHECK(index.size() == bag_of.size() && static_cast<int64_t>(sizes.size()) == B, op, ": grad ", grad.shape(),
           ", indices ", indices.shape(), ", offset2bag ", offset2bag.shape(), " and bag_size ", bag_size.shape(),
           " do not match");
  check_bags(bag_of, B, op);
  Tensor grad_weight = tl::zeros({V, D}, grad.dtype());
  const Tensor g = onednn::to_contiguous(grad, op);
  if (args.mode == kMax) {
    const std::vector<int64_t> rows = int_values(maximum_indices.reshape({-1}), op);
    TL_CHECK(static_cast<int64_t>(rows.size()) == B * D, op, ": maximum_indices ", maximum_indices.shape(),
             " does not match grad ", grad.shape());
    TL_DISPATCH_FLOATING_TYPES(g.dtype(), op, [&] {
      using A = detail::acc_t<scalar_t>;
      const scalar_t* gd = g.data<scalar_t>();
      scalar_t* out = grad_weight.data<scalar_t>();
      for (int64_t b = 0; b < B; ++b)
        for (int64_t d = 0; d < D; ++d) {
          const int64_t k = rows[b * D + d];
          if (k >= 0 && k < V && k != args.padding_idx)
            out[k * D + d] = detail::narrow<scalar_t>(static_cast<A>(out[k * D + d]) + static_cast<A>(gd[b * D + d]));
        }
    });
    return grad_weight;
  }
  std::vector<double> scale(index.size(), 1.0);
  std::vector<int64_t> frequency(static_cast<size_t>(V), 1);
  if (args.scale_grad_by_freq) {
    // As ATen 1.13 computes it: the g-th distinct index (ascending) is divided by the count of the g-th entry of
    // the sorted indices, which is its own count only while every smaller index occurs once (PyTorch's numbers).
    std::vector<int64_t> counts(static_cast<size_t>(V), 0), sorted = index;
    for (int64_t k : index)
      if (k >= 0 && k < V) ++counts[static_cast<size_t>(k)];
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> distinct = sorted;
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (size_t g = 0; g < distinct.size(); ++g)
      if (distinct[g] >= 0 && distinct[g] < V && sorted[g] >= 0 && sorted[g] < V)
        frequency[static_cast<size_t>(distinct[g])] = counts[static_cast<size_t>(sorted[g])];
  }
  const Tensor psw = per_sample_weights.defined()
                         ? onednn::to_contiguous(per_sample_weights.to(DType::Float64), op)
                         : Tensor();
  TL_CHECK(!psw.defined() || psw.numel() == static_cast<int64_t>(index.size()), op, ": per_sample_weights ",
           per_sample_weights.shape(), " does not match indices ", indices.shape());
  for (size_t i = 0; i < index.size(); ++i) {
    const int64_t b = bag_of[i];
    if (b < 0 || index[i] < 0 || index[i] >= V) continue;
    if (args.mode == kMean) scale[i] /= static_cast<double>(std::max<int64_t>(sizes[b], 1));
    scale[i] /= static_cast<double>(frequency[static_cast<size_t>(index[i])]);
    if (psw.defined()) scale[i] *= psw.data<double>()[i];
  }
  TL_DISPATCH_FLOATING_TYPES(g.dtype(), op, [&] {
    using A = detail::acc_t<scalar_t>;
    const scalar_t* gd = g.data<scalar_t>();
    scalar_t* out = grad_weight.data<scalar_t>();
    parallel_for(0, V, std::max<int64_t>(1, V / 64), [&](int64_t begin, int64_t end) {
      for (size_t i = 0; i < index.size(); ++i) {
        const int64_t k = index[i], b = bag_of[i];
        if (k < begin || k >= end || k == args.padding_idx || b < 0) continue;
        const A s = static_cast<A>(scale[i]);
        for (int64_t d = 0; d < D; ++d)
          out[k * D + d] = detail::narrow<scalar_t>(static_cast<A>(out[k * D + d]) + static_cast<A>(gd[b * D + d]) * s);
      }
    });
  });
  return grad_weight;
}

// grad (B, D), weight (V, D) -> grad_per_sample_weights (n): dot(grad[bag of i], weight[indices[i]]), 0 for a
// padding_idx entry or one past the last bag. Mode sum only, as ATen.
Tensor _embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                  const Tensor& /*offsets: in offset2bag*/,
                                                  const Tensor& offset2bag,
                                                  const EmbeddingBagPerSampleWeightsBackwardArgs& args) {
  const char* op = "_embedding_bag_per_sample_weights_backward";
  TL_CHECK(args.mode == kSum, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  TL_CHECK(grad.dim() == 2 && weight.dim() == 2 && grad.size(1) == weight.size(1), op, ": grad ", grad.shape(),
           " does not match weight ", weight.shape());
  const std::vector<int64_t> index = int_values(indices, op), bag_of = int_values(offset2bag, op);
  const int64_t D = grad.size(1), V = weight.size(0);
  TL_CHECK(index.size() == bag_of.size(), op, ": indices ", indices.shape(), " and offset2bag ", offset2bag.shape(),
           " do not match");
  check_bags(bag_of, grad.size(0), op);
  Tensor result = tl::zeros({static_cast<int64_t>(index.size())}, grad.dtype());
  const Tensor g = onednn::to_contiguous(grad, op), w = onednn::to_contiguous(weight.to(grad.dtype()), op);
  TL_DISPATCH_FLOATING_TYPES(g.dtype(), op, [&] {
    using A = detail::acc_t<scalar_t>;
    const scalar_t* gd = g.data<scalar_t>();
    const scalar_t* wd = w.data<scalar_t>();
    scalar_t* out = result.data<scalar_t>();
    for (size_t i = 0; i < index.size(); ++i) {
      const int64_t k = index[i], b = bag_of[i];
      if (k == args.padding_idx || b < 0 || k < 0 || k >= V) continue;
      A dot = 0;
      for (int64_t d = 0; d < D; ++d) dot += static_cast<A>(gd[b * D + d]) * static_cast<A>(wd[k * D + d]);
      out[i] = detail::narrow<scalar_t>(dot);
    }
  });
  return result;
}

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
    // Every thread reads all of index, so a second one pays only when the rows it adds outweigh waking it.
    const int64_t work = static_cast<int64_t>(index.size()) * D;
    parallel_for(0, V, work < kGrainSize ? V : std::max<int64_t>(1, V / 64), [&](int64_t begin, int64_t end) {
      detail::at_vector_width([&] { add_rows(g, out, index, scale, D, args.padding_idx, begin, end); });
    });
  });
  return grad_weight;
}

}  // namespace tl::kernels
