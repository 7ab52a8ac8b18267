// ops/testing.cpp — torch/testing/_comparison.py (PyTorch 1.13): the attribute
// checks, torch.isclose in float64 (int64 for integers and bool) and the mismatch messages.
#include "ops/testing.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/py_repr.h"
#include "ops/ops.h"

namespace tl::testing {
namespace {

bool is_floating(DType d) { return d == DType::Float32 || d == DType::Float64 || d == DType::BFloat16; }

// Python's repr of a tuple of ints: "()", "(3,)", "(2, 3)".
std::string py_int_tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

std::string py_size(const Shape& shape) {
  std::string s = "torch.Size([";
  for (int64_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "])";
}

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

// An integral difference prints as a Python int, a floating one as a Python float.
std::string py_number(double v, bool floating) {
  return floating ? py_float(v) : std::to_string(static_cast<int64_t>(v));
}

// torch.max(x, 0): the first maximum, or the first NaN.
int64_t argmax(const std::vector<double>& x) {
  int64_t best = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    if (std::isnan(x[best])) break;
    if (std::isnan(x[i]) || x[i] > x[best]) best = i;
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
  TL_CHECK(options.rtol.has_value() == options.atol.has_value(),
           "Both 'rtol' and 'atol' must be either specified or omitted, but got no ",
           options.rtol ? "atol" : "rtol", ".");
  const auto [rtol_a, atol_a] = default_tolerances(actual.dtype());
  const auto [rtol_e, atol_e] = default_tolerances(expected.dtype());
  const double rtol = options.rtol.value_or(std::max(rtol_a, rtol_e));
  const double atol = options.atol.value_or(std::max(atol_a, atol_e));

  if (actual.shape() != expected.shape()) attribute_mismatch("shape", py_size(actual.shape()), py_size(expected.shape()));
  if (options.check_stride && actual.strides() != expected.strides()) {
    const Strides& a = actual.strides();
    const Strides& e = expected.strides();
    attribute_mismatch("stride()", py_int_tuple({a.begin(), a.end()}), py_int_tuple({e.begin(), e.end()}));
  }
  if (options.check_dtype && actual.dtype() != expected.dtype())
    attribute_mismatch("dtype", dtype_name(actual.dtype()), dtype_name(expected.dtype()));

  // Values compare in float64 when either side is floating, else in int64 (bool counts as integral).
  const bool floating = is_floating(actual.dtype()) || is_floating(expected.dtype());
  const int64_t n = actual.numel();
  // Both sides read as float64 (PyTorch compares integers in int64: beyond 2^53 they differ).
  const Tensor actual64 = actual.to(DType::Float64).contiguous(), expected64 = expected.to(DType::Float64).contiguous();
  const double* actual_values = actual64.data<double>();
  const double* expected_values = expected64.data<double>();
  std::vector<double> abs_diff(static_cast<size_t>(n), 0.0), rel_diff(static_cast<size_t>(n), 0.0);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = actual_values[i], e = expected_values[i];
    if (isclose(a, e, rtol, atol, options.equal_nan)) continue;
    ++mismatches;
    abs_diff[static_cast<size_t>(i)] = std::fabs(a - e);
    rel_diff[static_cast<size_t>(i)] = std::fabs(a - e) / std::fabs(e);
  }
  if (mismatches == 0) return;

  if (actual.dim() == 0) {  // make_scalar_mismatch_msg
    const double e = expected_values[0];
    throw Error(mismatch_msg("Scalars", "", py_number(abs_diff[0], floating), "",
                             py_float(e == 0 ? INFINITY : abs_diff[0] / std::fabs(e)), "", rtol, atol));
  }
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.1f%%", static_cast<double>(mismatches) / static_cast<double>(n) * 100);
  const std::string extra =
      "Mismatched elements: " + std::to_string(mismatches) + " / " + std::to_string(n) + " (" + percent + ")";
  const int64_t abs_at = argmax(abs_diff), rel_at = argmax(rel_diff);
  throw Error(mismatch_msg("Tensor-likes", extra, py_number(abs_diff[static_cast<size_t>(abs_at)], floating),
                           py_int_tuple(unravel(abs_at, actual.shape())),
                           py_float(rel_diff[static_cast<size_t>(rel_at)]),
                           py_int_tuple(unravel(rel_at, actual.shape())), rtol, atol));
}

}  // namespace tl::testing
