// tests/support/json_cases.h — reading a generator's JSON case file (tests/<area>/data/*.json, written by a
// PyTorch script beside it; tests run from the project root) and the values such files hold.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tensor.h"

namespace tl::testing {

/// The parsed file at `path`, read once per path; throws std::runtime_error naming it if absent.
const nlohmann::json& json_cases(const std::string& path);
/// A number the generators write as a string to keep every digit ("0.0123456789012345").
double json_number(const nlohmann::json& value);
/// A quantized tensor's integers, in row-major order.
std::vector<int64_t> integers(const Tensor& q);

}  // namespace tl::testing
