// tests/support/json_cases.cpp — the case files, each parsed once.
#include "tests/support/json_cases.h"

#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

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

}  // namespace tl::testing
