// tests/ao/ao_cases.h — reading tests/ao/data/ao_cases.json, PyTorch 1.13's observer and qconfig cases written by
// tests/ao/gen_ao_cases.py (tests run from the project root; a missing file fails the test).
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tl::ao::quantization::testing {

using Json = nlohmann::json;

inline Json ao_cases() {
  std::ifstream in("tests/ao/data/ao_cases.json");
  REQUIRE_MESSAGE(in.good(), "missing tests/ao/data/ao_cases.json (run tests/ao/gen_ao_cases.py)");
  return Json::parse(in);
}

/// A JSON number, or "inf" / "-inf" / "nan" as the generator writes them.
inline double number(const Json& v) { return v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>(); }

}  // namespace tl::ao::quantization::testing
