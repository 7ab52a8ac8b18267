// nn/padding.cpp — the padding layers: F.pad with the layer's mode, repr as PyTorch prints them
// ("ReflectionPad2d((1, 2, 3, 4))", "ConstantPad1d(padding=(1, 2), value=1.5)").
#include "nn/padding.h"

#include <vector>

#include "nn/repr.h"

namespace tl::nn {
namespace {

template <size_t N>
Shape shape_of(const PadAmounts<N>& p) {
  return Shape(std::vector<int64_t>(p.values.begin(), p.values.end()));
}

}  // namespace

PadLayer::PadLayer(std::string mode, Shape padding, double value)
    : mode_(std::move(mode)), padding_(std::move(padding)), value_(value) {}

Tensor PadLayer::forward(const Tensor& input) {
  return functional::pad(input, padding_, mode_, mode_ == "constant" ? std::optional<double>(value_) : std::nullopt);
}

std::string PadLayer::extra_repr() const {
  if (mode_ == "constant") return "padding=" + py_tuple(padding_) + ", value=" + py_float(value_);
  return py_tuple(padding_);
}

ZeroPad2d::ZeroPad2d(PadAmounts<4> padding) : PadLayer("constant", shape_of(padding)) {}
std::string ZeroPad2d::extra_repr() const { return py_tuple(padding()); }

ConstantPad1d::ConstantPad1d(PadAmounts<2> padding, double value) : PadLayer("constant", shape_of(padding), value) {}
ConstantPad2d::ConstantPad2d(PadAmounts<4> padding, double value) : PadLayer("constant", shape_of(padding), value) {}
ReflectionPad1d::ReflectionPad1d(PadAmounts<2> padding) : PadLayer("reflect", shape_of(padding)) {}
ReflectionPad2d::ReflectionPad2d(PadAmounts<4> padding) : PadLayer("reflect", shape_of(padding)) {}
ReplicationPad1d::ReplicationPad1d(PadAmounts<2> padding) : PadLayer("replicate", shape_of(padding)) {}
ReplicationPad2d::ReplicationPad2d(PadAmounts<4> padding) : PadLayer("replicate", shape_of(padding)) {}

}  // namespace tl::nn
