// tests/support/rng_streams.cpp — reads rng_streams.txt once and compares values against its streams.
#include "tests/support/rng_streams.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>

#include "tests/support/reference_files.h"

namespace tl::testing {
namespace {

const std::map<std::string, std::vector<std::string>>& streams() {
  static const std::map<std::string, std::vector<std::string>> all = [] {
    std::map<std::string, std::vector<std::string>> out;
    std::istringstream lines(read_reference("rng_streams.txt"));
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::string name, value;
      words >> name;
      std::vector<std::string>& values = out[name];
      while (words >> value) values.push_back(value);
    }
    return out;
  }();
  return all;
}

template <typename Bits, typename T>
std::string hex(T value, const char* format) {
  Bits bits;
  std::memcpy(&bits, &value, sizeof bits);
  char text[24];
  std::snprintf(text, sizeof text, format, static_cast<unsigned long long>(bits));
  return text;
}

}  // namespace

std::vector<std::string> rng_stream(const std::string& name) {
  const auto it = streams().find(name);
  if (it == streams().end()) throw std::runtime_error("rng_streams.txt has no stream " + name);
  return it->second;
}

std::vector<std::string> stream_values(const Tensor& t) {
  const Tensor c = t.detach().contiguous();
  std::vector<std::string> out;
  for (int64_t i = 0; i < c.numel(); ++i) {
    switch (c.dtype()) {
      case DType::Float32: out.push_back(hex<uint32_t>(c.data<float>()[i], "%08llx")); break;
      case DType::Float64: out.push_back(hex<uint64_t>(c.data<double>()[i], "%016llx")); break;
      case DType::Int64: out.push_back(std::to_string(c.data<int64_t>()[i])); break;
      case DType::Int32: out.push_back(std::to_string(c.data<int32_t>()[i])); break;
      case DType::Bool: out.push_back(std::to_string(int{c.data<bool>()[i]})); break;
      default: throw std::runtime_error("stream_values: no notation for this dtype");
    }
  }
  return out;
}

std::string stream_mismatch(const std::string& name, const std::vector<std::string>& values) {
  const std::vector<std::string> expected = rng_stream(name);
  if (values.size() != expected.size())
    return name + ": " + std::to_string(values.size()) + " values, expected " + std::to_string(expected.size());
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] != expected[i]) return name + "[" + std::to_string(i) + "]: got " + values[i] + ", expected " + expected[i];
  return "";
}

std::string stream_mismatch(const std::string& name, const Tensor& t) { return stream_mismatch(name, stream_values(t)); }

}  // namespace tl::testing
