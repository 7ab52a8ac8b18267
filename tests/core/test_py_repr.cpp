// tests/core/test_py_repr.cpp — Python's repr of floats and bools, against what Python's repr()
// prints.
#include <doctest/doctest.h>

#include <limits>
#include <utility>

#include "core/py_repr.h"

namespace tl {
namespace {

TEST_CASE("py_float: Python's repr of floats") {
  const std::pair<double, const char*> cases[] = {
      {0.1, "0.1"},
      {1e-05, "1e-05"},
      {1.0, "1.0"},
      {0.5, "0.5"},
      {1e16, "1e+16"},
      {1e-4, "0.0001"},
      {123456789.0, "123456789.0"},
      {1234567890123456.0, "1234567890123456.0"},
      {1.5e-07, "1.5e-07"},
      {-0.0, "-0.0"},
      {2.5e+20, "2.5e+20"},
      {0.001, "0.001"},
      {1.0 / 3.0, "0.3333333333333333"},
      {100.0, "100.0"},
      {-42.125, "-42.125"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {std::numeric_limits<double>::quiet_NaN(), "nan"},
  };
  for (const auto& [value, text] : cases) CHECK(py_float(value) == text);
  CHECK(py_bool(true) == "True");
  CHECK(py_bool(false) == "False");
}

TEST_CASE("py_int_tuple and py_size print as Python's tuple and torch.Size") {
  CHECK(py_int_tuple({}) == "()");
  CHECK(py_int_tuple({3}) == "(3,)");
  CHECK(py_int_tuple({2, 3, 8}) == "(2, 3, 8)");
  CHECK(py_size({}) == "torch.Size([])");
  CHECK(py_size({2, 3}) == "torch.Size([2, 3])");
}

}  // namespace
}  // namespace tl
