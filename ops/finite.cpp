// ops/finite.cpp — all_finite, has_nan, has_nan_or_subnormal: parallel scans used to keep fast paths whose
// results differ from eager's only on such input (Winograd convolution, oneDNN's max pooling) away from it.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/parallel.h"
#include "ops/memory_format.h"
#include "ops/ops.h"

namespace tl {
namespace {

/// What a scan looks for.
enum class Find { NonFinite, Nan, NanOrSubnormal };

/// True when some element in [begin, end) is what kFind names, told from its magnitude bits read as a
/// signed integer: NaN and ±inf reach the exponent mask (NaN exceeds it), subnormals are non-zero and
/// below the smallest normal. Signed compares and an OR reduction, so the loop vectorizes even for the
/// baseline x86-64 ISA (SSE2 has no unsigned max).
template <typename Bits, Bits kExponent, Find kFind>
bool any_found(const void* data, int64_t begin, int64_t end) {
  constexpr Bits kMinNormal = kExponent & -kExponent;  // the exponent field's lowest bit
  constexpr Bits kMagnitude = std::numeric_limits<Bits>::max();
  const auto* bytes = static_cast<const unsigned char*>(data);
  Bits bad = 0;
  for (int64_t i = begin; i < end; ++i) {
    Bits v;
    std::memcpy(&v, bytes + i * static_cast<int64_t>(sizeof v), sizeof v);
    const Bits magnitude = v & kMagnitude;
    bool found = kFind == Find::NonFinite ? magnitude >= kExponent : magnitude > kExponent;
    if constexpr (kFind == Find::NanOrSubnormal) found |= magnitude != 0 && magnitude < kMinNormal;
    bad |= static_cast<Bits>(-static_cast<Bits>(found));
  }
  return bad != 0;
}

template <Find kFind>
bool any_found(const Tensor& x) {
  if (!is_floating_point(x.dtype()) || x.numel() == 0) return false;
  // A scan inside a kernel: no op event when nothing is copied. A channels-last dense tensor's elements fill one
  // contiguous span too, in another order, which a scan does not mind.
  const Tensor c = x.is_contiguous() || detail::is_channels_last_contiguous(x) ? x : x.contiguous();
  // A memory-bound scan: one thread reads a ResNet activation of a few MB from cache faster than a
  // parallel region starts, so only scans of more than 2^20 elements are split.
  constexpr int64_t kScanGrain = int64_t{1} << 20;
  std::atomic<bool> bad{false};
  parallel_for(0, c.numel(), kScanGrain, [&](int64_t b, int64_t e) {
    if (bad.load(std::memory_order_relaxed)) return;
    bool found = false;
    switch (c.dtype()) {
      case DType::Float32:
        found = any_found<int32_t, 0x7f800000, kFind>(c.raw_data(), b, e);
        break;
      case DType::BFloat16:
        found = any_found<int16_t, 0x7f80, kFind>(c.raw_data(), b, e);
        break;
      default:
        found = any_found<int64_t, 0x7ff0000000000000ll, kFind>(c.raw_data(), b, e);
    }
    if (found) bad.store(true, std::memory_order_relaxed);
  });
  return bad.load();
}

}  // namespace

bool all_finite(const Tensor& x) { return !any_found<Find::NonFinite>(x); }

bool has_nan(const Tensor& x) { return any_found<Find::Nan>(x); }

bool has_nan_or_subnormal(const Tensor& x) { return any_found<Find::NanOrSubnormal>(x); }

}  // namespace tl
