// ao/quantization/observer_math.h — the PyTorch 1.13 kernels the observers lean on (torch.aminmax, torch.histc,
// floor division, float32 sums, Python's int() and format()), written over float32 values as PyTorch's CPU
// kernels round them. Private to ao/quantization (not installed).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tl::ao::quantization::detail {

/// x as a contiguous float32 tensor without autograd history.
Tensor float_values(const Tensor& x);
/// torch.aminmax over n floats: (NaN, NaN) when one is NaN; (inf, -inf) for none.
std::pair<float, float> aminmax(const float* p, int64_t n);
/// torch.histc(x, bins, min=lo, max=hi) on CPU: elements outside [lo, hi] (and NaN) are skipped; lo == hi
/// takes the data's range, then widens an empty one by 1 on each side. The range must be finite.
std::vector<float> histc(const float* p, int64_t n, int64_t bins, double lo, double hi);
/// torch.div(a, b, rounding_mode='floor') for float32 (c10's div_floor_floating).
float div_floor(float a, float b);
/// Python's int() of a float: truncation toward zero.
double py_int(float v);
/// torch.sum over n float32 values as .item() returns it: accumulated in double, rounded to float32 once
/// (PyTorch's vectorised float32 cascade can differ in the last bit; the observers only compare such sums).
double float_sum(const float* p, int64_t n);
/// Python's format(t) of an observer's buffer: a 0-dim tensor formats as its float ("inf", "0.5"),
/// others as str(t) ("tensor([])").
std::string format_buffer(const Tensor& t);

}  // namespace tl::ao::quantization::detail
