// tests/nn/test_repr.cpp — module repr and the Python value spellings, against texts printed by
// PyTorch 1.13 (repr(nn.X(...)), repr(float)).
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "nn/layers.h"
#include "nn/repr.h"

namespace tl::nn {
namespace {

TEST_CASE("py_tuple: Python's repr of a pair of ints") { CHECK(py_tuple(3, 5) == "(3, 5)"); }
TEST_CASE("py_tuple: Python's repr of a tuple of ints") {
  CHECK(py_tuple(Shape{1, 2, 3, 4}) == "(1, 2, 3, 4)");
  CHECK(py_tuple(Shape{3}) == "(3,)");
  CHECK(py_tuple(Shape{}) == "()");
}

TEST_CASE("repr: built-in layers print as PyTorch prints them") {
  CHECK(repr(Dropout()) == "Dropout(p=0.5, inplace=False)");
  CHECK(repr(Flatten()) == "Flatten(start_dim=1, end_dim=-1)");
  CHECK(repr(Identity()) == "Identity()");
  CHECK(repr(AvgPool2d(3)) == "AvgPool2d(kernel_size=3, stride=3, padding=0)");
  CHECK(repr(MaxPool2d(IntPair(2, 3))) ==
        "MaxPool2d(kernel_size=(2, 3), stride=(2, 3), padding=0, dilation=1, ceil_mode=False)");
  CHECK(repr(ReLU()) == "ReLU()");
  CHECK(repr(ReLU(true)) == "ReLU(inplace=True)");
  CHECK(repr(Linear(3, 4, false)) == "Linear(in_features=3, out_features=4, bias=False)");
  CHECK(repr(Conv2d(Conv2dOptions{.in_channels = 4, .out_channels = 8, .kernel_size = {3, 5}, .stride = {1, 2},
                                  .padding = {1, 2}, .dilation = 2, .groups = 2})) ==
        "Conv2d(4, 8, kernel_size=(3, 5), stride=(1, 2), padding=(1, 2), dilation=(2, 2), groups=2)");
  CHECK(repr(Conv2d(1, 1, 1)) == "Conv2d(1, 1, kernel_size=(1, 1), stride=(1, 1))");
  CHECK(repr(BatchNorm2d(BatchNorm2dOptions{.num_features = 3, .momentum = std::nullopt, .affine = false,
                                            .track_running_stats = false})) ==
        "BatchNorm2d(3, eps=1e-05, momentum=None, affine=False, track_running_stats=False)");
  CHECK(repr(AdaptiveAvgPool2d(IntPair(1, 1))) == "AdaptiveAvgPool2d(output_size=(1, 1))");
  CHECK(repr(AdaptiveAvgPool2d(7)) == "AdaptiveAvgPool2d(output_size=7)");
}

TEST_CASE("repr: containers indent their children; empty ones print ()") {
  CHECK(repr(Sequential()) == "Sequential()");
  CHECK(repr(ModuleList({std::make_shared<ReLU>()})) == "ModuleList(\n  (0): ReLU()\n)");
  Sequential outer(std::make_shared<Sequential>(std::make_shared<Identity>()), std::make_shared<ReLU>());
  CHECK(repr(outer) ==
        "Sequential(\n"
        "  (0): Sequential(\n"
        "    (0): Identity()\n"
        "  )\n"
        "  (1): ReLU()\n"
        ")");
}

/// A user module whose extra_repr spans two lines and which also has a child.
class Custom : public Module {
 public:
  explicit Custom(std::string extra) : extra_(std::move(extra)) {}
  std::string type_name() const override { return "Custom"; }
  std::string extra_repr() const override { return extra_; }

 private:
  std::string extra_;
};

TEST_CASE("repr: extra_repr lines come before children; one line without children stays inline") {
  Custom inline_only("a=1");
  CHECK(repr(inline_only) == "Custom(a=1)");
  Custom multi("a=1\nb=2");
  CHECK(repr(multi) == "Custom(\n  a=1\n  b=2\n)");
  multi.register_module("child", std::make_shared<Custom>("x\ny"));
  CHECK(repr(multi) ==
        "Custom(\n"
        "  a=1\n"
        "  b=2\n"
        "  (child): Custom(\n"
        "    x\n"
        "    y\n"
        "  )\n"
        ")");
  Custom with_child("a=1");
  with_child.register_module("r", std::make_shared<ReLU>());
  CHECK(repr(with_child) == "Custom(\n  a=1\n  (r): ReLU()\n)");
}

TEST_CASE("repr: operator<< prints like print(), with the trailing newline") {
  std::ostringstream os;
  os << Linear(2, 3);
  CHECK(os.str() == "Linear(in_features=2, out_features=3, bias=True)\n");
}

}  // namespace
}  // namespace tl::nn
