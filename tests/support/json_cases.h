// tests/support/json_cases.h — reading a generator's JSON case file (tests/<area>/data/*.json, written by a
// PyTorch script beside it; tests run from the project root) and the values such files hold.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "core/tensor.h"

namespace tl::testing {

/// The parsed file at `path`, read once per path; throws std::runtime_error naming it if absent.
const nlohmann::json& json_cases(const std::string& path);
/// A number the generators write as a string to keep every digit ("0.0123456789012345").
double json_number(const nlohmann::json& value);
/// A quantized tensor's integers, in row-major order.
std::vector<int64_t> integers(const Tensor& q);
/// A case's quint8 tensor from its integers ("shape", "ints", "scale", "zero_point"), channels-last where
/// PyTorch's was ("channels_last").
Tensor quint8_case_tensor(const nlohmann::json& c);

/// Our quantized results against a case's PyTorch integers (`c["expected"]`): each CHECKs every integer within one
/// quantum and >= 99% equal (#33's line); report() says how many agreed over all cases added.
struct Agreement {
  int64_t equal = 0, total = 0;
  void add(const Tensor& got, const nlohmann::json& c) {
    const std::vector<int64_t> ours = integers(got);
    const auto theirs = c["expected"].get<std::vector<int64_t>>();
    REQUIRE(ours.size() == theirs.size());
    int64_t same = 0, worst = 0;
    for (size_t i = 0; i < ours.size(); ++i) {
      same += ours[i] == theirs[i];
      worst = std::max<int64_t>(worst, std::abs(ours[i] - theirs[i]));
    }
    CHECK_MESSAGE(worst <= 1, "an integer differs from PyTorch's by ", worst, " quanta");
    CHECK_MESSAGE(same >= 0.99 * static_cast<double>(ours.size()), same, " of ", ours.size(), " equal");
    equal += same;
    total += static_cast<int64_t>(ours.size());
  }
  void report(const std::string& what) const { MESSAGE(what, ": ", equal, " of ", total, " integers equal PyTorch's"); }
};

/// Each case of each family in `cases` (named by its "op" and "name"): `run(c)`'s result has PyTorch's qparams
/// ("out_scale", "out_zero_point"), passes `check(y, c)` and agrees with PyTorch's integers (Agreement), reported
/// per family.
template <typename Run, typename Check>
void check_quantized_cases(const nlohmann::json& cases, std::initializer_list<const char*> families, Run run,
                           Check check) {
  for (const char* family : families) {
    Agreement agreement;
    for (const nlohmann::json& c : cases[family]) {
      const std::string name = c["op"].get<std::string>() + " " + c["name"].get<std::string>();
      CAPTURE(name);
      const Tensor y = run(c);
      CHECK(y.q_scale() == json_number(c["out_scale"]));
      CHECK(y.q_zero_point() == c["out_zero_point"].get<int64_t>());
      check(y, c);
      agreement.add(y, c);
    }
    agreement.report(family);
  }
}

}  // namespace tl::testing
