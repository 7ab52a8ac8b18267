// ops/advanced_index.cpp — aten::index and index_put_ (x[mask], x[idx], x[:, idx] = v): integer and
// boolean tensors index dimensions of self, as ATen's advanced indexing does. One plan serves reading
// and writing; every index value is checked before anything is written, so a call that throws leaves
// self as it was.
#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/reduce_plan.h"

namespace tl::kernels {
namespace {

using detail::OffsetCounter;
using detail::ReduceDim;

// One index per dimension of self (undefined: the whole dimension), int64 only: boolean masks are
// replaced by the integer indices of their true elements, one per dimension they cover, as ATen's
// expandTensors does.
std::vector<Tensor> expand_masks(const Tensor& self, std::span<const Tensor> indices) {
  std::vector<Tensor> out;
  for (const Tensor& index : indices) {
    if (!index.defined()) {
      out.emplace_back();
      continue;
    }
    const DType t = index.dtype();
    TL_CHECK(t == DType::Int64 || t == DType::Bool,
             "tensors used as indices must be long, byte or bool tensors, got ", t);
    if (t == DType::Int64) {
      out.push_back(index);
      continue;
    }
    TL_CHECK(index.dim() > 0, "index: a 0-dim boolean index cannot go to aten::index itself; x.index({mask}) ",
             "takes it as a new dimension, as Python's x[mask] does");
    const int64_t first = static_cast<int64_t>(out.size());
    for (int64_t d = 0; d < index.dim(); ++d)
      TL_CHECK(first + d < self.dim() && index.size(d) == self.size(first + d), "The shape of the mask ",
               index.shape(), " at index ", d, " does not match the shape of the indexed tensor ", self.shape(),
               " at index ", first + d);
    const Tensor where = nonzero(index);  // (true elements, mask dims)
    for (int64_t d = 0; d < index.dim(); ++d) out.push_back(where.select(1, d));
  }
  TL_CHECK(static_cast<int64_t>(out.size()) <= self.dim(), "too many indices for tensor of dimension ", self.dim(),
           " (got ", out.size(), ")");
  out.resize(static_cast<size_t>(self.dim()));
  return out;
}

// The shape `a` and `b` broadcast to, or none when they do not.
std::optional<Shape> broadcast_of(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t x = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    const int64_t y = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out.push_back(x == 1 ? y : x);
  }
  return out;
}

// `t` walked as if expanded to `to` (which it broadcasts to): stride 0 along the dimensions it repeats.
std::vector<ReduceDim> expanded_walk(const Tensor& t, const Shape& to) {
  std::vector<ReduceDim> walk;
  const int64_t lead = static_cast<int64_t>(to.size()) - t.dim();
  for (int64_t d = 0; d < static_cast<int64_t>(to.size()); ++d)
    walk.push_back({to[d], d < lead || t.size(d - lead) == 1 ? 0 : t.stride(d - lead)});
  return walk;
}

// Where advanced indexing reads or writes: the result is [before][broadcast indices][after], element
// (p, b, q) at self's offset before[p] + indexed[b] + after[q] (in elements, from self's first).
struct IndexPlan {
  Shape result;
  std::vector<int64_t> before, indexed, after;
};

std::vector<int64_t> offsets_of(const std::vector<ReduceDim>& dims) {
  int64_t n = 1;
  for (const ReduceDim& d : dims) n *= d.size;
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (n == 0) return out;
  OffsetCounter at(dims, 0);
  for (int64_t k = 0; k < n; ++k, at.advance()) out[static_cast<size_t>(k)] = at.offset();
  return out;
}

IndexPlan plan_index(const Tensor& self, std::span<const Tensor> given) {
  const std::vector<Tensor> indices = expand_masks(self, given);
  std::vector<int64_t> dims;  // the indexed dimensions of self
  Shape broadcast;
  std::ostringstream shapes;
  bool compatible = true;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!indices[d].defined()) continue;
    shapes << (dims.empty() ? "" : ", ") << indices[d].shape();
    if (dims.empty()) {
      broadcast = indices[d].shape();
    } else if (const std::optional<Shape> both = broadcast_of(broadcast, indices[d].shape())) {
      broadcast = *both;
    } else {
      compatible = false;
    }
    dims.push_back(d);
  }
  TL_CHECK(compatible, "shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes.str());
  TL_CHECK(!dims.empty(), "index: at least one index tensor is needed");
  // Indexed dimensions next to each other keep their place; apart, the broadcast dimensions come first.
  const bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  IndexPlan plan;
  std::vector<ReduceDim> before, after;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (indices[d].defined()) continue;
    (adjacent && d < dims.front() ? before : after).push_back({self.size(d), self.stride(d)});
  }
  for (const ReduceDim& d : before) plan.result.push_back(d.size);
  for (int64_t s : broadcast) plan.result.push_back(s);
  for (const ReduceDim& d : after) plan.result.push_back(d.size);
  plan.before = offsets_of(before);
  plan.after = offsets_of(after);
  const int64_t n = numel_of(broadcast);
  plan.indexed.assign(static_cast<size_t>(n), 0);
  for (int64_t d : dims) {
    if (n == 0) continue;
    const std::vector<ReduceDim> walk = expanded_walk(indices[d], broadcast);
    const int64_t* values = indices[d].data<int64_t>();
    const int64_t size = self.size(d), stride = self.stride(d);
    OffsetCounter at(walk, 0);
    for (int64_t k = 0; k < n; ++k, at.advance()) {
      int64_t v = values[at.offset()];
      TL_CHECK(v >= -size && v < size, "index ", v, " is out of bounds for dimension ", d, " with size ", size);
      if (v < 0) v += size;
      plan.indexed[static_cast<size_t>(k)] += v * stride;
    }
  }
  return plan;
}

// Calls f(result_linear, self_offset) for every element of the plan's result, threaded over rows of
// `after` unless `serial` (accumulation, where two indices may name one element).
template <typename F>
void for_each_element(const IndexPlan& plan, bool serial, const F& f) {
  const int64_t nb = static_cast<int64_t>(plan.indexed.size()), nq = static_cast<int64_t>(plan.after.size());
  const int64_t rows = static_cast<int64_t>(plan.before.size()) * nb;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t base = plan.before[static_cast<size_t>(r / nb)] + plan.indexed[static_cast<size_t>(r % nb)];
      for (int64_t q = 0; q < nq; ++q) f(r * nq + q, base + plan.after[static_cast<size_t>(q)]);
    }
  };
  if (serial) run(0, rows);
  else parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(nq, 1)), run);
}

template <typename T>
void gather_elements(const IndexPlan& plan, const Tensor& self, const Tensor& out) {
  const T* in = static_cast<const T*>(self.raw_data());
  T* o = static_cast<T*>(out.raw_data());
  for_each_element(plan, false, [&](int64_t i, int64_t at) { o[i] = in[at]; });
}

}  // namespace

Tensor index(const Tensor& self, std::span<const Tensor> indices) {
  const IndexPlan plan = plan_index(self, indices);
  Tensor out = Tensor::allocate(plan.result, self.dtype());
  if (out.numel() == 0) return out;
  switch (self.element_size()) {
    case 1: gather_elements<uint8_t>(plan, self, out); break;
    case 2: gather_elements<uint16_t>(plan, self, out); break;
    case 4: gather_elements<uint32_t>(plan, self, out); break;
    default: gather_elements<uint64_t>(plan, self, out); break;
  }
  return out;
}

Tensor index_put_(const Tensor& self, std::span<const Tensor> indices, const Tensor& values, const IndexPutArgs& args) {
  TL_CHECK(values.dtype() == self.dtype(), "Index put requires the source and destination dtypes match, got ",
           self.dtype(), " for the destination and ", values.dtype(), " for the source.");
  const IndexPlan plan = plan_index(self, indices);
  TL_CHECK(broadcast_of(values.shape(), plan.result) == plan.result, "shape mismatch: value tensor of shape ", values.shape(), " cannot be broadcast to indexing result of shape ",
           plan.result);
  // values broadcast to the result's shape, contiguous, in one buffer (the dispatch point refused values
  // sharing self's memory; an expanded self, which PyTorch 1.13 deprecates, was warned about there)
  Tensor source = Tensor::allocate(plan.result, self.dtype());
  detail::copy_elements(source, values);
  if (source.numel() == 0) return self;
  TL_DISPATCH_ALL_TYPES(self.dtype(), "index_put_", [&] {
    scalar_t* out = static_cast<scalar_t*>(self.raw_data());
    const scalar_t* in = source.data<scalar_t>();
    if (args.accumulate)
      for_each_element(plan, true, [&](int64_t i, int64_t at) { out[at] = static_cast<scalar_t>(out[at] + in[i]); });
    else
      for_each_element(plan, false, [&](int64_t i, int64_t at) { out[at] = in[i]; });
  });
  return self;
}

Tensor index_put(const Tensor& self, std::span<const Tensor> indices, const Tensor& values, const IndexPutArgs& args) {
  Tensor out = Tensor::allocate(self.shape(), self.dtype());
  detail::copy_elements(out, self);
  return index_put_(out, indices, values, args);
}

}  // namespace tl::kernels
