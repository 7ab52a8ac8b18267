// ops/onednn/memory.cpp — descriptors over tensors' strides and the cached reorder that makes a
// strided tensor contiguous. Tensors never own oneDNN memory: descriptors point at tensor bytes.
#include "ops/onednn/memory.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <optional>

#include <sys/mman.h>

#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/primitive_cache.h"

namespace tl::onednn {
namespace {

struct ReorderPlan : CachedPlan {
  Primitive reorder;
  dnnl::memory::desc src, dst;
};

/// Grows, never shrinks (up to kMaxReusedStagingBytes): as large as the largest use so far. From 2 MiB on it
/// is whole transparent huge pages, as core/storage's large blocks are: ResNet18's largest scratchpad at batch
/// 1 (10 MiB) on 4 KiB pages took 890 of its first inference's 4,950 page faults, each costing tens of
/// microseconds on the virtual machines we measure on (docs/deployment.md, first inference).
class StagingBuffer {
 public:
  void* reserve(size_t bytes) {
    if (bytes <= size_) return data_.get();
    constexpr size_t kAlignment = 64, kHugePage = size_t{2} << 20;
    const size_t unit = bytes >= kHugePage ? kHugePage : kAlignment;
    const size_t rounded = std::max<size_t>(unit, (bytes + unit - 1) / unit * unit);
    void* p = nullptr;
    data_.reset(posix_memalign(&p, unit, rounded) == 0 ? static_cast<char*>(p) : nullptr);
    size_ = data_ ? rounded : 0;
    TL_CHECK(data_ != nullptr, "onednn: out of memory allocating a ", bytes, "-byte staging buffer");
    if (unit == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);  // only a hint: failure is harmless
    return data_.get();
  }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data_;
  size_t size_ = 0;
};

std::optional<dnnl::memory::desc> try_strided_desc(const Tensor& t) {
  try {
    return strided_desc(t);
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

}  // namespace

void check_dtype(const char* op, const char* what, DType dtype) {
  TL_CHECK(dtype == DType::Float32 || dtype == DType::BFloat16, op, ": expected ", what,
           " to be float32 or bfloat16, got ", dtype);
}

dnnl::memory::data_type data_type(DType dtype) {
  switch (dtype) {
    case DType::Float32: return dnnl::memory::data_type::f32;
    case DType::BFloat16: return dnnl::memory::data_type::bf16;
    case DType::UInt8:
    case DType::QUInt8: return dnnl::memory::data_type::u8;
    case DType::Int8:
    case DType::QInt8: return dnnl::memory::data_type::s8;
    case DType::Int32:
    case DType::QInt32: return dnnl::memory::data_type::s32;
    default: break;
  }
  TL_INTERNAL_ASSERT(false, "onednn: no oneDNN data type for ", dtype);
  return dnnl::memory::data_type::undef;
}

dnnl::memory::dims dims(const Shape& shape) { return dnnl::memory::dims(shape.begin(), shape.end()); }

dnnl::memory::desc strided_desc(const Shape& sizes, const Strides& strides, DType dtype) {
  return dnnl::memory::desc(dims(sizes), data_type(dtype), dims(strides));
}

dnnl::memory::desc strided_desc(const Tensor& t) { return strided_desc(t.sizes(), t.strides(), t.dtype()); }

dnnl::memory::desc plain_desc(const Shape& sizes, DType dtype) {
  return strided_desc(sizes, contiguous_strides(sizes), dtype);
}

dnnl::memory::desc grouped_weights_desc(const Tensor& w, int64_t groups) {
  if (groups == 1) return strided_desc(w);
  const Shape sizes{groups, w.size(0) / groups, w.size(1), w.size(2), w.size(3)};
  const Strides strides{w.stride(0) * (w.size(0) / groups), w.stride(0), w.stride(1), w.stride(2), w.stride(3)};
  return strided_desc(sizes, strides, w.dtype());
}

dnnl::memory memory_of(const Tensor& t, const dnnl::memory::desc& desc) { return memory_of(t.raw_data(), desc); }

dnnl::memory memory_of(void* data, const dnnl::memory::desc& desc) { return dnnl::memory(desc, engine(), data); }

dnnl::memory staging_memory(Staging kind, const dnnl::memory::desc& desc, std::shared_ptr<Storage>& keep) {
  thread_local std::array<StagingBuffer, 4> buffers;
  const size_t bytes = desc.get_size();
  if (bytes > kMaxReusedStagingBytes) {
    keep = Storage::allocate(static_cast<int64_t>(bytes));
    return memory_of(keep->data(), desc);
  }
  return memory_of(buffers[static_cast<size_t>(kind)].reserve(bytes), desc);
}

dnnl::memory staged_input(const dnnl::memory& user, const Primitive& reorder, Staging kind,
                          const dnnl::memory::desc& desc, std::shared_ptr<Storage>& keep) {
  if (!reorder) return user;
  dnnl::memory staged = staging_memory(kind, desc, keep);
  reorder.execute({{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, staged}});
  return staged;
}

Tensor to_contiguous(const Tensor& t, const char* op) {
  if (t.is_contiguous()) return t;
  if (t.dtype() != DType::Float32 && t.dtype() != DType::BFloat16) return t.contiguous();
  const std::optional<dnnl::memory::desc> src = try_strided_desc(t);
  if (!src) return t.contiguous();
  Tensor out = Tensor::allocate(t.sizes(), t.dtype());
  if (t.numel() == 0) return out;
  auto context = [&] { return detail::str_cat("copying input ", t.shape(), " with strides ", t.strides()); };
  guarded(op, context, [&] {
    PrimitiveKey key("to_contiguous");
    key.add(t);
    auto plan = primitive_cache().get_or_create<ReorderPlan>(key, [&] {
      ReorderPlan p;
      p.src = *src;
      p.dst = plain_desc(t.sizes(), t.dtype());
      p.reorder = make_reorder(p.src, p.dst);
      return p;
    });
    plan->reorder.execute({{DNNL_ARG_FROM, memory_of(t, plan->src)}, {DNNL_ARG_TO, memory_of(out, plan->dst)}});
  });
  return out;
}

Tensor add_unit_dim(const Tensor& t, int64_t dim) {
  TL_INTERNAL_ASSERT(dim >= 0 && dim <= t.dim(), "add_unit_dim: dim ", dim, " out of range for ", t.shape());
  Shape sizes = t.sizes();
  Strides strides = t.strides();
  // Any stride fits a size-1 dim; the one a contiguous tensor would have keeps a contiguous result so.
  const int64_t stride = dim == t.dim() ? 1 : std::max<int64_t>(1, strides[dim] * sizes[dim]);
  strides.insert(dim, stride);
  sizes.insert(dim, 1);
  return Tensor::make(t.storage(), std::move(sizes), std::move(strides), t.storage_offset(), t.dtype());
}

Tensor drop_unit_dim(const Tensor& t, int64_t dim) {
  TL_INTERNAL_ASSERT(dim >= 0 && dim < t.dim() && t.size(dim) == 1, "drop_unit_dim: size of dim ", dim,
                     " is not 1 in ", t.shape());
  Shape sizes = t.sizes();
  Strides strides = t.strides();
  sizes.erase(dim);
  strides.erase(dim);
  return Tensor::make(t.storage(), std::move(sizes), std::move(strides), t.storage_offset(), t.dtype());
}

}  // namespace tl::onednn
