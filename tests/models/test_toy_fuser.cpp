// tests/models/test_toy_fuser.cpp — the fuser tutorial's M: repr from the reference file, module and
// state_dict order (torch 1.13), forward through every layer, and clone.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/generator.h"
#include "models/toy_fuser.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::models {
namespace {

/// The "print(model):" block of the reference file (the tutorial prints more after it).
std::string expected_print() {
  return testing::between(testing::read_reference("toy_fuser_model.txt"), "print(model):\n",
                          "\n\nprint(symbolic_trace(model).graph)") +
         "\n";
}

TEST_CASE("toy fuser model: print(model) equals the tutorial's") {
  const std::string expected = expected_print();
  std::ostringstream os;
  os << *toy_fuser_model();
  CHECK(os.str() == expected);
}

TEST_CASE("toy fuser model: module and state_dict order equal PyTorch's") {
  auto m = toy_fuser_model();
  std::vector<std::string> modules, keys;
  for (const auto& [name, mod] : m->named_modules()) modules.push_back(name);
  for (const auto& [key, t] : m->state_dict()) keys.push_back(key);
  CHECK(modules == std::vector<std::string>{"", "conv1", "bn1", "conv2", "nested", "nested.0", "nested.1", "wrapped",
                                            "wrapped.mod"});
  CHECK(keys == std::vector<std::string>{
                    "conv1.weight", "conv1.bias", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var",
                    "bn1.num_batches_tracked", "conv2.weight", "conv2.bias", "nested.0.weight", "nested.0.bias",
                    "nested.0.running_mean", "nested.0.running_var", "nested.0.num_batches_tracked",
                    "nested.1.weight", "nested.1.bias", "wrapped.mod.weight", "wrapped.mod.bias",
                    "wrapped.mod.running_mean", "wrapped.mod.running_var", "wrapped.mod.num_batches_tracked"});
  int64_t count = 0;
  for (const Tensor& p : m->parameters()) count += p.numel();
  CHECK(count == 12);
  CHECK(m->type_name() == "M");
  CHECK_FALSE(m->get_submodule("wrapped")->is_leaf());
  CHECK(m->get_submodule("wrapped.mod")->is_leaf());
}

TEST_CASE("toy fuser model: forward applies every layer in order; a clone computes the same") {
  manual_seed(2);
  auto m = toy_fuser_model();
  m->eval();
  for (const auto& bn : {"bn1", "nested.0", "wrapped.mod"}) {
    nn::init::uniform_(m->get_parameter(std::string(bn) + ".weight"), 0.5, 1.5);
    nn::init::uniform_(m->get_buffer(std::string(bn) + ".running_var"), 0.5, 1.5);
  }
  const Tensor x = randn({3, 1, 5, 4});
  auto layer = [&](const char* path, const Tensor& in) { return (*m->get_submodule(path))(in); };
  const Tensor expected =
      layer("wrapped.mod", layer("nested.1", layer("nested.0", layer("conv2", layer("bn1", layer("conv1", x))))));
  const Tensor out = (*m)(x);
  CHECK(out.shape() == Shape{3, 1, 5, 4});
  CHECK_TENSOR_CLOSE(out, expected, 0.0, 0.0);
  auto copy = m->clone();
  CHECK_TENSOR_CLOSE((*copy)(x), out, 0.0, 0.0);
}

}  // namespace
}  // namespace tl::models
