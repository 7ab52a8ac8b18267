// ops/pool_windows.h — the input windows of avg_pool2d and adaptive_avg_pool2d along one axis, with
// PyTorch's divisors (internal to ops/): the forwards (ops/pool.cpp) and their backward kernels
// (ops/pool_backward.cpp) read the same windows, so a gradient flows exactly where a value came from.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tl::kernels {

/// Per output index along one axis: the input range [begin, end) the window reads (clipped to the
/// input) and this axis's factor of the averaging divisor.
struct AxisWindows {
  std::vector<int64_t> begin, end, divisor;
};

/// avg_pool2d's windows along one axis (PyTorch's rule: with count_include_pad the divisor counts
/// padding, but not the part of a ceil_mode window beyond it).
inline AxisWindows avg_axis(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding,
                            bool count_include_pad) {
  AxisWindows a;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * stride - padding, stop = std::min(start + kernel, in + padding);
    const int64_t begin = std::max<int64_t>(start, 0), end = std::min(stop, in);
    a.begin.push_back(begin);
    a.end.push_back(end);
    a.divisor.push_back(count_include_pad ? stop - start : end - begin);
  }
  return a;
}

/// adaptive_avg_pool2d's windows: [floor(o * in / out), ceil((o + 1) * in / out)).
inline AxisWindows adaptive_axis(int64_t in, int64_t out) {
  AxisWindows a;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t begin = o * in / out, end = ((o + 1) * in + out - 1) / out;
    a.begin.push_back(begin);
    a.end.push_back(end);
    a.divisor.push_back(end - begin);
  }
  return a;
}

}  // namespace tl::kernels
