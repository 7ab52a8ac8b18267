// tests/support/reflected_forms.h — a number on the left of an operator (`2.0 - x`) and reductions over one
// int dim (`x.sum(0)`), written in C++ as tests/reference/make_reflected_references.py writes them in
// Python (its FORMS, by the same names), and the reference's tensors read back. The ops, autograd and fx
// suites share it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "ops/ops.h"
#include "tests/support/reference_files.h"

namespace tl::testing {

struct ReflectedForm {
  const char* name;  ///< the Python spelling, the reference's key
  Tensor (*f)(const Tensor& x);
};

inline const std::vector<ReflectedForm>& reflected_forms() {
  static const std::vector<ReflectedForm> forms{
      {"2.0 - x", [](const Tensor& x) { return 2.0 - x; }},
      {"2 - x", [](const Tensor& x) { return 2 - x; }},
      {"2 * x", [](const Tensor& x) { return 2 * x; }},
      {"0.5 * x", [](const Tensor& x) { return 0.5 * x; }},
      {"1.0 / x", [](const Tensor& x) { return 1.0 / x; }},
      {"2 / x", [](const Tensor& x) { return 2 / x; }},
      {"2 + x", [](const Tensor& x) { return 2 + x; }},
      {"2.5 + x", [](const Tensor& x) { return 2.5 + x; }},
      {"2 < x", [](const Tensor& x) { return 2 < x; }},
      {"2 > x", [](const Tensor& x) { return 2 > x; }},
      {"2 <= x", [](const Tensor& x) { return 2 <= x; }},
      {"2 >= x", [](const Tensor& x) { return 2 >= x; }},
      {"2 == x", [](const Tensor& x) { return 2 == x; }},
      {"2 != x", [](const Tensor& x) { return 2 != x; }},
      {"x == 2", [](const Tensor& x) { return x == 2; }},
      {"x != 2", [](const Tensor& x) { return x != 2; }},
      {"x.sum(0)", [](const Tensor& x) { return x.sum(0); }},
      {"x.sum(1, keepdim=True)", [](const Tensor& x) { return x.sum(1, true); }},
      {"x.mean(0)", [](const Tensor& x) { return x.mean(0); }},
      {"x.mean(-1)", [](const Tensor& x) { return x.mean(-1); }},
      {"torch.sum(x, 1)", [](const Tensor& x) { return sum(x, 1); }},
      {"x.sum([0])", [](const Tensor& x) { return x.sum({0}); }},  // a braced list is a list
      {"x.sum([])", [](const Tensor& x) { return x.sum({}); }},    // ... so {} means every dim
      {"x.mean([])", [](const Tensor& x) { return x.mean({}); }},
      {"torch.rsub(x, 2.0)", [](const Tensor& x) { return rsub(x, 2.0); }},
      {"torch.rsub(x, x * x)", [](const Tensor& x) { return rsub(x, x * x); }},
      {"x.reciprocal()", [](const Tensor& x) { return x.reciprocal(); }},
  };
  return forms;
}

inline nlohmann::json reflected_reference() { return nlohmann::json::parse(read_reference("reflected_operators.json")); }

/// A reference tensor ({"dtype": "float32" | "int64" | "bool", "shape", "values"}; floats as Python reprs).
inline Tensor reference_tensor(const nlohmann::json& j) {
  const std::string dtype = j.at("dtype");
  Shape shape;
  for (int64_t d : j.at("shape")) shape.push_back(d);
  std::vector<double> values;
  for (const auto& v : j.at("values")) values.push_back(v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>());
  const Tensor t = from_vector<double>(values, shape);
  return t.to(dtype == "float32" ? DType::Float32 : dtype == "int64" ? DType::Int64 : DType::Bool);
}

/// The reference's input x ("x": float32, "x_int64": int64), a (3, 4) matrix.
inline Tensor reference_input(const nlohmann::json& ref, const char* key, DType dtype) {
  std::vector<double> values;
  for (const auto& row : ref.at(key))
    for (double v : row) values.push_back(v);
  return from_vector<double>(values, {3, 4}).to(dtype);
}

}  // namespace tl::testing
