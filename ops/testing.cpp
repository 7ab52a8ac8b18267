// ops/testing.cpp — torch/testing/_comparison.py (PyTorch 1.13): the None and attribute checks,
// torch.isclose in float64 (exactly in int64 for integers and bool) and the mismatch messages.
#include "ops/testing.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "core/py_repr.h"
#include "ops/ops.h"

namespace tl::testing {
namespace {

bool is_floating(DType d) { return d == DType::Float32 || d == DType::Float64 || d == DType::BFloat16; }

[[noreturn]] void attribute_mismatch(const std::string& name, const std::string& actual, const std::string& expected) {
  throw Error("The values for attribute '" + name + "' do not match: " + actual + " != " + expected + ".");
}

// torch.isclose on values promoted to float64 / int64.
bool isclose(double a, double b, double rtol, double atol, bool equal_nan) {
  if (a == b) return true;
  if (equal_nan && std::isnan(a) && std::isnan(b)) return true;
  const double err = std::fabs(a - b);
  return std::isfinite(err) && err <= atol + std::fabs(rtol * b);
}

// torch.max(x, 0): the first maximum, or the first NaN.
template <typename T>
int64_t argmax(const std::vector<T>& x) {
  int64_t best = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    if (std::isnan(static_cast<double>(x[best]))) break;
    if (std::isnan(static_cast<double>(x[i])) || x[i] > x[best]) best = i;
  }
  return best;
}

std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(static_cast<size_t>(shape.size()));
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    index[static_cast<size_t>(d)] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

// _make_mismatch_msg: the header, `extra`, then one line per difference; tolerances only when not
// checking for equality.
std::string mismatch_msg(const std::string& identifier, const std::string& extra, const std::string& abs_diff,
                         const std::string& abs_idx, const std::string& rel_diff, const std::string& rel_idx,
                         double rtol, double atol) {
  const bool equality = rtol == 0 && atol == 0;
  auto diff_line = [&](const std::string& type, const std::string& diff, const std::string& idx, double tol) {
    std::string line = idx.empty() ? std::string(1, static_cast<char>(std::toupper(type[0]))) + type.substr(1) +
                                         " difference: " + diff
                                   : "Greatest " + type + " difference: " + diff + " at index " + idx;
    if (!equality) line += " (up to " + py_float(tol) + " allowed)";
    return line;
  };
  std::string msg = identifier + " are not " + (equality ? "equal" : "close") + "!\n\n";
  if (!extra.empty()) msg += extra + "\n";
  return msg + diff_line("absolute", abs_diff, abs_idx, atol) + "\n" + diff_line("relative", rel_diff, rel_idx, rtol);
}

// The mismatch count and the greatest differences (as PyTorch prints them) at their flat indices.
struct Differences {
  int64_t mismatches = 0;
  std::string abs_diff, rel_diff;
  int64_t abs_at = 0, rel_at = 0;
};

// Both sides promoted to float64; relative differences in float64 (Python floats for 0-dim tensors).
Differences compare_floating(const Tensor& actual, const Tensor& expected, double rtol, double atol, bool equal_nan) {
  const Tensor a64 = actual.to(DType::Float64).contiguous(), e64 = expected.to(DType::Float64).contiguous();
  const double* a = a64.data<double>();
  const double* e = e64.data<double>();
  const size_t n = static_cast<size_t>(actual.numel());
  std::vector<double> abs_diff(n, 0.0), rel_diff(n, 0.0);
  Differences d;
  for (size_t i = 0; i < n; ++i) {
    if (isclose(a[i], e[i], rtol, atol, equal_nan)) continue;
    ++d.mismatches;
    abs_diff[i] = std::fabs(a[i] - e[i]);
    rel_diff[i] = actual.dim() == 0 && e[i] == 0 ? INFINITY : abs_diff[i] / std::fabs(e[i]);
  }
  if (d.mismatches == 0) return d;  // an empty tensor has no greatest difference to index
  d.abs_at = argmax(abs_diff);
  d.rel_at = argmax(rel_diff);
  d.abs_diff = py_float(abs_diff[static_cast<size_t>(d.abs_at)]);
  d.rel_diff = py_float(rel_diff[static_cast<size_t>(d.rel_at)]);
  return d;
}

// Both sides promoted to int64 and compared exactly, as PyTorch does (through float64, 2^53 + 1 would
// equal 2^53). |a - e| is exact in uint64 (PyTorch's int64 tensor wraps past INT64_MAX; its Python-int
// scalar path does not, and we follow that). The relative difference is a float32 division for tensors
// (int64 / int64 gives float32 in PyTorch) and a Python float division for 0-dim tensors.
Differences compare_integral(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  const Tensor a64 = actual.to(DType::Int64).contiguous(), e64 = expected.to(DType::Int64).contiguous();
  const int64_t* a = a64.data<int64_t>();
  const int64_t* e = e64.data<int64_t>();
  const size_t n = static_cast<size_t>(actual.numel());
  auto magnitude = [](int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); };
  std::vector<uint64_t> abs_diff(n, 0);
  std::vector<double> rel_diff(n, 0.0);
  Differences d;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] == e[i]) continue;
    const uint64_t diff = a[i] > e[i] ? static_cast<uint64_t>(a[i]) - static_cast<uint64_t>(e[i])
                                      : static_cast<uint64_t>(e[i]) - static_cast<uint64_t>(a[i]);
    const uint64_t scale = magnitude(e[i]);
    if (static_cast<double>(diff) <= atol + rtol * static_cast<double>(scale)) continue;
    ++d.mismatches;
    abs_diff[i] = diff;
    rel_diff[i] = actual.dim() == 0 ? (scale == 0 ? INFINITY
                                                  : static_cast<double>(static_cast<long double>(diff) /
                                                                        static_cast<long double>(scale)))
                                    : static_cast<double>(static_cast<float>(diff) / static_cast<float>(scale));
  }
  if (d.mismatches == 0) return d;
  d.abs_at = argmax(abs_diff);
  d.rel_at = argmax(rel_diff);
  d.abs_diff = std::to_string(abs_diff[static_cast<size_t>(d.abs_at)]);
  d.rel_diff = py_float(rel_diff[static_cast<size_t>(d.rel_at)]);
  return d;
}

}  // namespace

std::pair<double, double> default_tolerances(DType dtype) {
  switch (dtype) {
    case DType::BFloat16: return {0.016, 1e-5};
    case DType::Float32: return {1.3e-6, 1e-5};
    case DType::Float64: return {1e-7, 1e-7};
    default: return {0.0, 0.0};
  }
}

void assert_close(const Tensor& actual, const Tensor& expected, const AssertCloseOptions& options) {
  if (!actual.defined() || !expected.defined()) {  // None stands for an undefined tensor
    if (!actual.defined() && !expected.defined()) return;
    std::ostringstream os;
    if (actual.defined())
      os << "None mismatch: " << actual << " is not None (expected is undefined)";
    else
      os << "None mismatch: None is not " << expected << " (actual is undefined)";
    throw Error(os.str());
  }
  TL_CHECK(options.rtol.has_value() == options.atol.has_value(),
           "Both 'rtol' and 'atol' must be either specified or omitted, but got no ",
           options.rtol ? "atol" : "rtol", ".");
  TL_CHECK(!options.rtol || *options.rtol >= 0, "assert_close: rtol must be greater than or equal to zero, but got ",
           py_float(*options.rtol));
  TL_CHECK(!options.atol || *options.atol >= 0, "assert_close: atol must be greater than or equal to zero, but got ",
           py_float(*options.atol));
  const auto [rtol_a, atol_a] = default_tolerances(actual.dtype());
  const auto [rtol_e, atol_e] = default_tolerances(expected.dtype());
  const double rtol = options.rtol.value_or(std::max(rtol_a, rtol_e));
  const double atol = options.atol.value_or(std::max(atol_a, atol_e));

  if (actual.shape() != expected.shape()) attribute_mismatch("shape", py_size(actual.shape().vec()), py_size(expected.shape().vec()));
  if (options.check_stride && actual.strides() != expected.strides()) {
    const Strides& a = actual.strides();
    const Strides& e = expected.strides();
    attribute_mismatch("stride()", py_int_tuple({a.begin(), a.end()}), py_int_tuple({e.begin(), e.end()}));
  }
  if (options.check_dtype && actual.dtype() != expected.dtype())
    attribute_mismatch("dtype", dtype_name(actual.dtype()), dtype_name(expected.dtype()));

  // Values compare in float64 when either side is floating, else exactly in int64 (bool counts as integral).
  const Differences d = is_floating(actual.dtype()) || is_floating(expected.dtype())
                            ? compare_floating(actual, expected, rtol, atol, options.equal_nan)
                            : compare_integral(actual, expected, rtol, atol);
  if (d.mismatches == 0) return;
  if (actual.dim() == 0)  // make_scalar_mismatch_msg
    throw Error(mismatch_msg("Scalars", "", d.abs_diff, "", d.rel_diff, "", rtol, atol));
  const int64_t n = actual.numel();
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.1f%%", static_cast<double>(d.mismatches) / static_cast<double>(n) * 100);
  const std::string extra =
      "Mismatched elements: " + std::to_string(d.mismatches) + " / " + std::to_string(n) + " (" + percent + ")";
  throw Error(mismatch_msg("Tensor-likes", extra, d.abs_diff, py_int_tuple(unravel(d.abs_at, actual.shape())),
                           d.rel_diff, py_int_tuple(unravel(d.rel_at, actual.shape())), rtol, atol));
}

}  // namespace tl::testing
