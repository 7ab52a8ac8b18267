// core/py_repr.cpp — Python's float repr from the shortest round-trip digits (std::to_chars).
#include "core/py_repr.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tl {

std::string py_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // Shortest round-trip digits in scientific form, e.g. "1.5e-07", then Python's layout rules.
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, result.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const size_t e = sci.find('e');
  const int exponent = std::atoi(sci.c_str() + e + 1);
  std::string digits = sci.substr(0, e);
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  const int n = static_cast<int>(digits.size());

  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = digits.substr(0, 1);
    if (n > 1) mantissa.append(".").append(digits, 1);
    const int magnitude = std::abs(exponent);
    return sign + mantissa + (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") + std::to_string(magnitude);
  }
  if (exponent < 0) return sign + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  const int int_digits = exponent + 1;
  if (n <= int_digits) return sign + digits + std::string(static_cast<size_t>(int_digits - n), '0') + ".0";
  const auto split = static_cast<size_t>(int_digits);
  return sign + digits.substr(0, split) + "." + digits.substr(split);
}

std::string py_bool(bool value) { return value ? "True" : "False"; }

std::string py_int_tuple(const std::vector<int64_t>& values) {
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + (values.size() == 1 ? ",)" : ")");
}

std::string py_size(const std::vector<int64_t>& sizes) {
  std::string s = "torch.Size([";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "])";
}

}  // namespace tl
