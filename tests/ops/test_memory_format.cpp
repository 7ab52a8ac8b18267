// tests/ops/test_memory_format.cpp — the layout of a convolution's and an elementwise op's result as PyTorch 1.13's
// (tests/reference/memory_format_strides.txt, from make_memory_format_references.py): channels-last where ATen's
// _convolution or TensorIterator makes it so, contiguous where they do; the values as on contiguous copies.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

/// PyTorch's result strides per case name.
std::map<std::string, Strides> pytorch_strides() {
  std::map<std::string, Strides> out;
  std::istringstream in(testing::read_reference("memory_format_strides.txt"));
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(": ");
    std::istringstream values(line.substr(colon + 2));
    Strides strides;
    for (int64_t s = 0; values >> s;) strides.push_back(s);
    out[line.substr(0, colon)] = strides;
  }
  return out;
}

/// A contiguous (n, h, w, c) tensor seen as (n, c, h, w): channels-last.
Tensor cl(int64_t n, int64_t c, int64_t h, int64_t w, DType dtype = DType::Float32) {
  return randn({n, h, w, c}).to(dtype).permute({0, 3, 1, 2});
}

struct Case {
  std::string name;
  std::function<Tensor(const std::function<Tensor(const Tensor&)>&)> run;  // inputs passed through the argument
};

// Each case as the generator's, its inputs mapped by `in` (identity, or a contiguous copy for the values).
std::vector<Case> cases() {
  using In = std::function<Tensor(const Tensor&)>;
  return {
      {"conv2d depthwise, channels-last input",
       [](const In& in) { return conv2d(in(cl(2, 6, 5, 5)), randn({6, 1, 3, 3}), randn({6}), {1}, {1}, {1}, 6); }},
      {"conv2d depthwise, contiguous input",
       [](const In& in) { return conv2d(in(randn({2, 6, 5, 5})), randn({6, 1, 3, 3}), randn({6}), {1}, {1}, {1}, 6); }},
      {"conv2d, channels-last weight", [](const In& in) { return conv2d(randn({2, 4, 5, 5}), in(cl(6, 4, 3, 3))); }},
      {"conv2d stride 2, channels-last input",
       [](const In& in) { return conv2d(in(cl(2, 4, 6, 6)), randn({8, 4, 2, 2}), Tensor(), {2}); }},
      {"conv2d, (N, C, 1, 1) input", [](const In& in) { return conv2d(in(randn({2, 4, 1, 1})), randn({6, 4, 1, 1})); }},
      {"conv2d float64, channels-last input",
       [](const In& in) {
         return conv2d(in(cl(2, 4, 5, 5, DType::Float64)), randn({6, 4, 3, 3}).to(DType::Float64));
       }},
      {"conv2d unbatched, (H, W, C) permuted",
       [](const In& in) { return conv2d(in(randn({5, 5, 4}).permute({2, 0, 1})), randn({6, 4, 3, 3})); }},
      {"conv1d, (N, L, C) transposed",
       [](const In& in) { return conv1d(in(randn({2, 7, 4}).transpose(1, 2)), randn({6, 4, 3})); }},
      {"mul, per-channel by channels-last", [](const In& in) { return randn({6, 1, 1}) * in(cl(2, 6, 5, 5)); }},
      {"mul, channels-last by per-channel", [](const In& in) { return in(cl(2, 6, 5, 5)) * randn({6, 1, 1}); }},
      {"add, channels-last + channels-last", [](const In& in) { return in(cl(2, 6, 5, 5)) + in(cl(2, 6, 5, 5)); }},
      {"add, contiguous + channels-last", [](const In& in) { return randn({2, 6, 5, 5}) + in(cl(2, 6, 5, 5)); }},
      {"add, channels-last + contiguous", [](const In& in) { return in(cl(2, 6, 5, 5)) + randn({2, 6, 5, 5}); }},
      {"add, channels-last + number", [](const In& in) { return in(cl(2, 6, 5, 5)) + 1; }},
      {"sub, transposed matrix - row", [](const In& in) { return in(randn({5, 3}).transpose(0, 1)) - randn({5}); }},
      {"mul, permuted 3-D by number", [](const In& in) { return in(randn({3, 4, 5}).permute({2, 0, 1})) * 2; }},
      {"div, sliced by number", [](const In& in) { return in(randn({4, 6}).slice(1, 0, 6, 2)) / 3; }},
      {"add, (N, C, 1, 1) channels-last + contiguous",
       [](const In& in) { return in(cl(2, 6, 1, 1)) + randn({2, 6, 1, 1}); }},
  };
}

TEST_CASE("memory format: conv2d, conv1d and binary ops lay out their result as ATen's; values as on contiguous "
          "copies") {
  const std::map<std::string, Strides> expected = pytorch_strides();
  CHECK(expected.size() == cases().size());
  for (const Case& c : cases()) {
    CAPTURE(c.name);
    REQUIRE(expected.count(c.name) == 1);
    manual_seed(0);
    const Tensor out = c.run([](const Tensor& x) { return x; });
    CHECK(out.strides() == expected.at(c.name));
    manual_seed(0);
    const Tensor plain = c.run([](const Tensor& x) { return x.contiguous(); });
    CHECK_TENSOR_CLOSE(out, plain, 1e-5, 1e-5);
  }
}

}  // namespace
}  // namespace tl
