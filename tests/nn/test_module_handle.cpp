// tests/nn/test_module_handle.cpp — ModuleHandle, the typed handle register_module returns: it names the
// owner's child at each use, so it follows clone(), copies and set_submodule, refuses a replaced child of
// another type, an empty handle and a gone owner, and calls through Module::operator() (hooks see it).
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "nn/init.h"
#include "nn/layers.h"
#include "nn/module.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

/// y = fc(x) * 2, written as a LibTorch user writes it: a handle member, no look-up by name.
class Scaled : public Module {
 public:
  Scaled() { fc = register_module("fc", std::make_shared<Linear>(3, 2)); }
  Tensor forward(const Tensor& x) override { return fc(x) * 2.0; }
  std::shared_ptr<Module> clone() const override { return clone_as<Scaled>(); }

  ModuleHandle<Linear> fc{nullptr};
};

TEST_CASE("module handle: typed access to the child and calls through operator()") {
  Scaled m;
  CHECK(m.fc.name() == "fc");
  CHECK_FALSE(m.fc.is_empty());
  CHECK(m.fc.get() == m.child("fc").get());
  CHECK(m.fc->options().out_features == 2);
  CHECK(m.fc->parameter("weight").is_same(m.get_parameter("fc.weight")));
  const std::shared_ptr<Linear> kept = m.fc;  // converts for code that keeps the object
  CHECK(kept.get() == m.fc.get());

  const Tensor x = randn({4, 3});
  const Tensor expected = linear(x, m.get_parameter("fc.weight"), m.get_parameter("fc.bias")) * 2.0;
  CHECK_TENSOR_CLOSE(m(x), expected, 0.0, 0.0);
  int calls = 0;
  RemovableHandle hook = m.fc->register_forward_hook([&](Module&, const TensorList&, const TensorList&) { ++calls; });
  m(x);
  m.fc(x);
  CHECK(calls == 2);  // the handle's call is the module call hooks see
  hook.remove();
}

TEST_CASE("module handle: a clone's handle names the clone's child; mutating it leaves the original") {
  auto original = std::make_shared<Scaled>();
  init::constant_(original->fc->parameter("weight"), 1.0);
  auto copy = std::static_pointer_cast<Scaled>(original->clone());
  CHECK(copy->fc.get() == copy->child("fc").get());
  CHECK(copy->fc.get() != original->fc.get());
  init::constant_(copy->fc->parameter("weight"), 5.0);
  copy->fc->eval();
  CHECK(original->get_parameter("fc.weight").data<float>()[0] == 1.0f);
  CHECK(original->fc->is_training());
  CHECK(copy->get_parameter("fc.weight").data<float>()[0] == 5.0f);

  // A copy made by the module's copy constructor (shallow, as clone_as starts) follows the copy as well.
  Scaled shallow(*original);
  shallow.set_submodule("fc", std::make_shared<Linear>(3, 2));
  CHECK(shallow.fc.get() == shallow.child("fc").get());
  CHECK(original->fc.get() == original->child("fc").get());
  CHECK(shallow.fc.get() != original->fc.get());

  // A handle copied on its own names the same owner's child.
  ModuleHandle<Linear> standalone = original->fc;
  CHECK(standalone.get() == original->fc.get());
}

TEST_CASE("module handle: set_submodule is seen; a replacement of another type is refused at use") {
  Scaled m;
  auto replacement = std::make_shared<Linear>(3, 2);
  m.set_submodule("fc", replacement);
  CHECK(m.fc.get() == replacement.get());
  CHECK_TENSOR_CLOSE(m(ones({1, 3})), replacement->forward(ones({1, 3})) * 2.0, 0.0, 0.0);

  m.set_submodule("fc", std::make_shared<ReLU>());
  const char* text =
      "Scaled.fc: the handle expects a Linear, but the child 'fc' is now a ReLU (set_submodule replaced it with "
      "another type)";
  CHECK_THROWS_WITH_AS(m.fc.get(), text, Error);
  CHECK_THROWS_WITH_AS(m(ones({1, 3})), text, Error);
  CHECK(m.child("fc")->type_name() == "ReLU");  // the registry is as set_submodule left it
  ModuleHandle<Module> any = m.register_module("fc", std::make_shared<ReLU>());
  CHECK(any->type_name() == "ReLU");
}

TEST_CASE("module handle: an empty handle and one whose owner is gone are refused") {
  ModuleHandle<Linear> empty{nullptr};
  CHECK(empty.is_empty());
  CHECK_THROWS_WITH_AS(empty(ones({1, 3})),
                       "module handle: the handle is empty (assign it the result of register_module first)", Error);
  ModuleHandle<Linear> orphan;
  {
    auto owner = std::make_shared<Scaled>();
    orphan = owner->fc;
  }
  CHECK_THROWS_WITH_AS(orphan.get(), "module handle 'fc': the module that registered it no longer exists", Error);
}

}  // namespace
}  // namespace tl::nn
