// tests/support/json_cases.cpp — the case files, each parsed once.
#include "tests/support/json_cases.h"

#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

#include "ops/ops.h"

namespace tl::testing {

const nlohmann::json& json_cases(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, nlohmann::json> files;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = files.find(path);
  if (it == files.end()) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": not found (run from the project root)");
    it = files.emplace(path, nlohmann::json::parse(in)).first;
  }
  return it->second;
}

double json_number(const nlohmann::json& value) { return std::stod(value.get<std::string>()); }

std::vector<int64_t> integers(const Tensor& q) {
  const Tensor l = q.int_repr().to(kLong).contiguous();
  return std::vector<int64_t>(l.data<int64_t>(), l.data<int64_t>() + l.numel());
}

Tensor quint8_case_tensor(const nlohmann::json& c) {
  const Shape shape(c["shape"].get<std::vector<int64_t>>());
  const Tensor ints = from_vector(c["ints"].get<std::vector<int64_t>>(), shape).to(kUInt8);
  const Tensor q = _make_per_tensor_quantized_tensor(ints, json_number(c["scale"]), c["zero_point"].get<int64_t>());
  if (!c["channels_last"].get<bool>()) return q;
  // (N, H, W, C) integers permuted to an (N, C, H, W) view: channels-last strides, as a quantized conv returns.
  const Tensor nhwc = _make_per_tensor_quantized_tensor(ints.permute({0, 2, 3, 1}).contiguous(), q.q_scale(),
                                                        q.q_zero_point());
  return nhwc.permute({0, 3, 1, 2});
}

}  // namespace tl::testing
