// tests/data/data_test_util.h — for the data tests: a dataset whose examples carry their own index, and
// the entries of expected.txt (written by gen_expected.py from scikit-learn and PyTorch).
#pragma once

#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "ops/ops.h"
#include "tests/support/file_testing.h"

namespace tl::data::testing {

/// n examples: data (2, 3) float32 filled with i, target int64 i (0-dim).
inline std::shared_ptr<TensorDataset> index_dataset(int64_t n) {
  Tensor target = arange(0, n, 1, DType::Int64);
  Tensor data = target.to(DType::Float32).reshape({n, 1, 1}).expand({n, 2, 3}).contiguous();
  return std::make_shared<TensorDataset>(data, target);
}

/// The indices an example or batch of index_dataset carries, read from its target.
inline std::vector<int64_t> indices_of(const Tensor& target) {
  Tensor t = target.contiguous().reshape({-1});
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.numel());
}

/// The lines of tests/data/expected.txt that start with `key` and a space, without that prefix.
inline std::vector<std::string> expected_entries(const std::string& key) {
  const std::string text = tl::testing::read_file("tests/data/expected.txt");
  if (text.empty()) throw std::runtime_error("tests/data/expected.txt not found (run the tests from the project root)");
  std::istringstream lines(text);
  std::vector<std::string> found;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(key + " ", 0) == 0) found.push_back(line.substr(key.size() + 1));
  if (found.empty()) throw std::runtime_error("tests/data/expected.txt has no entry " + key);
  return found;
}

/// The whitespace-separated integers of `text`.
inline std::vector<int64_t> integers(const std::string& text) {
  std::istringstream in(text);
  std::vector<int64_t> values;
  for (int64_t v; in >> v;) values.push_back(v);
  return values;
}

}  // namespace tl::data::testing
