// ops/finite.cpp — all_finite and has_nan: parallel scans for NaN (and ±inf), used to keep fast paths
// whose results differ from eager's only on such input (Winograd convolution, oneDNN's max pooling) away from it.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/parallel.h"
#include "ops/ops.h"

namespace tl {
namespace {

/// True when some element in [begin, end) has an all-ones exponent — NaN or ±inf, or with kNanOnly
/// NaN alone (a non-zero mantissa too) — i.e. its magnitude bits, read as a signed integer, reach
/// (exceed) the exponent mask. Signed compares and an OR reduction, so the loop vectorizes even for
/// the baseline x86-64 ISA (SSE2 has no unsigned max).
template <typename Bits, Bits kExponent, bool kNanOnly>
bool any_non_finite(const void* data, int64_t begin, int64_t end) {
  constexpr Bits kMagnitude = std::numeric_limits<Bits>::max();
  const auto* bytes = static_cast<const unsigned char*>(data);
  Bits bad = 0;
  for (int64_t i = begin; i < end; ++i) {
    Bits v;
    std::memcpy(&v, bytes + i * static_cast<int64_t>(sizeof v), sizeof v);
    const Bits magnitude = v & kMagnitude;
    bad |= static_cast<Bits>(-static_cast<Bits>(kNanOnly ? magnitude > kExponent : magnitude >= kExponent));
  }
  return bad != 0;
}

template <bool kNanOnly>
bool any_non_finite(const Tensor& x) {
  if (!is_floating_point(x.dtype()) || x.numel() == 0) return false;
  const Tensor c = x.contiguous();
  // A memory-bound scan: one thread reads a ResNet activation of a few MB from cache faster than a
  // parallel region starts, so only scans of more than 2^20 elements are split.
  constexpr int64_t kScanGrain = int64_t{1} << 20;
  std::atomic<bool> bad{false};
  parallel_for(0, c.numel(), kScanGrain, [&](int64_t b, int64_t e) {
    if (bad.load(std::memory_order_relaxed)) return;
    bool found = false;
    switch (c.dtype()) {
      case DType::Float32:
        found = any_non_finite<int32_t, 0x7f800000, kNanOnly>(c.raw_data(), b, e);
        break;
      case DType::BFloat16:
        found = any_non_finite<int16_t, 0x7f80, kNanOnly>(c.raw_data(), b, e);
        break;
      default:
        found = any_non_finite<int64_t, 0x7ff0000000000000ll, kNanOnly>(c.raw_data(), b, e);
    }
    if (found) bad.store(true, std::memory_order_relaxed);
  });
  return bad.load();
}

}  // namespace

bool all_finite(const Tensor& x) { return !any_non_finite</*kNanOnly=*/false>(x); }

bool has_nan(const Tensor& x) { return any_non_finite</*kNanOnly=*/true>(x); }

}  // namespace tl
