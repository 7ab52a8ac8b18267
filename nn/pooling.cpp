// nn/pooling.cpp — the pooling layers: option checks, repr as PyTorch prints them (arguments shown
// in the form given: "kernel_size=3" or "(3, 3)"), forward through F.*.
#include "nn/pooling.h"

#include "nn/repr.h"

namespace tl::nn {
namespace {

void check_pool_window(const char* layer, IntPair kernel_size, IntPair stride, IntPair padding) {
  TL_CHECK(kernel_size.h() > 0 && kernel_size.w() > 0, layer, ": kernel_size must be positive, got ",
           kernel_size.repr());
  TL_CHECK(stride.h() > 0 && stride.w() > 0, layer, ": stride must be positive, got ", stride.repr());
  TL_CHECK(padding.h() >= 0 && padding.w() >= 0, layer, ": padding must be non-negative, got ", padding.repr());
}

}  // namespace

MaxPool2d::MaxPool2d(const MaxPool2dOptions& options) : options_(options) {
  if (!options_.stride) options_.stride = options_.kernel_size;
  check_pool_window("MaxPool2d", options_.kernel_size, *options_.stride, options_.padding);
  TL_CHECK(options_.dilation.h() > 0 && options_.dilation.w() > 0, "MaxPool2d: dilation must be positive, got ",
           options_.dilation.repr());
}

Tensor MaxPool2d::forward(const Tensor& input) {
  const MaxPool2dOptions& o = options_;
  return functional::max_pool2d(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
}

std::string MaxPool2d::extra_repr() const {
  const MaxPool2dOptions& o = options_;
  return "kernel_size=" + o.kernel_size.repr() + ", stride=" + o.stride->repr() + ", padding=" + o.padding.repr() +
         ", dilation=" + o.dilation.repr() + ", ceil_mode=" + py_bool(o.ceil_mode);
}

AvgPool2d::AvgPool2d(const AvgPool2dOptions& options) : options_(options) {
  if (!options_.stride) options_.stride = options_.kernel_size;
  check_pool_window("AvgPool2d", options_.kernel_size, *options_.stride, options_.padding);
  TL_CHECK(options_.divisor_override != 0, "AvgPool2d: divisor must be not zero");
}

Tensor AvgPool2d::forward(const Tensor& input) {
  const AvgPool2dOptions& o = options_;
  return functional::avg_pool2d(input, o.kernel_size, o.stride, o.padding, o.ceil_mode, o.count_include_pad,
                                o.divisor_override);
}

std::string AvgPool2d::extra_repr() const {
  const AvgPool2dOptions& o = options_;
  return "kernel_size=" + o.kernel_size.repr() + ", stride=" + o.stride->repr() + ", padding=" + o.padding.repr();
}

AdaptiveAvgPool2d::AdaptiveAvgPool2d(IntPair output_size) : output_size_(output_size) {
  TL_CHECK(output_size.h() >= 0 && output_size.w() >= 0, "AdaptiveAvgPool2d: output_size must be non-negative, got ",
           output_size.repr());
}

Tensor AdaptiveAvgPool2d::forward(const Tensor& input) {
  return functional::adaptive_avg_pool2d(input, output_size_);
}

AdaptiveMaxPool2d::AdaptiveMaxPool2d(IntPair output_size) : output_size_(output_size) {
  TL_CHECK(output_size.h() >= 0 && output_size.w() >= 0, "AdaptiveMaxPool2d: output_size must be non-negative, got ",
           output_size.repr());
}

Tensor AdaptiveMaxPool2d::forward(const Tensor& input) {
  return functional::adaptive_max_pool2d(input, output_size_);
}

std::tuple<Tensor, Tensor> AdaptiveMaxPool2d::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool2d_with_indices(input, output_size_);
}

MaxPool1d::MaxPool1d(const MaxPool1dOptions& options) : options_(options) {
  if (!options_.stride) options_.stride = options_.kernel_size;
  check_pool_window("MaxPool1d", options_.kernel_size, *options_.stride, options_.padding);
  TL_CHECK(options_.dilation > 0, "MaxPool1d: dilation must be positive, got ", options_.dilation);
}

Tensor MaxPool1d::forward(const Tensor& input) {
  const MaxPool1dOptions& o = options_;
  return functional::max_pool1d(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
}

std::tuple<Tensor, Tensor> MaxPool1d::forward_with_indices(const Tensor& input) {
  const MaxPool1dOptions& o = options_;
  return functional::max_pool1d_with_indices(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
}

std::string MaxPool1d::extra_repr() const {
  const MaxPool1dOptions& o = options_;
  return "kernel_size=" + std::to_string(o.kernel_size) + ", stride=" + std::to_string(*o.stride) +
         ", padding=" + std::to_string(o.padding) + ", dilation=" + std::to_string(o.dilation) +
         ", ceil_mode=" + py_bool(o.ceil_mode);
}

AvgPool1d::AvgPool1d(const AvgPool1dOptions& options) : options_(options) {
  if (!options_.stride) options_.stride = options_.kernel_size;
  check_pool_window("AvgPool1d", options_.kernel_size, *options_.stride, options_.padding);
}

Tensor AvgPool1d::forward(const Tensor& input) {
  const AvgPool1dOptions& o = options_;
  return functional::avg_pool1d(input, o.kernel_size, o.stride, o.padding, o.ceil_mode, o.count_include_pad);
}

// AvgPool1d keeps its arguments as 1-tuples (_single), so it prints "kernel_size=(2,)".
std::string AvgPool1d::extra_repr() const {
  const AvgPool1dOptions& o = options_;
  return "kernel_size=" + py_tuple(Shape{o.kernel_size}) + ", stride=" + py_tuple(Shape{*o.stride}) + ", padding=" +
         py_tuple(Shape{o.padding});
}

AdaptiveAvgPool1d::AdaptiveAvgPool1d(int64_t output_size) : output_size_(output_size) {
  TL_CHECK(output_size >= 0, "AdaptiveAvgPool1d: output_size must be non-negative, got ", output_size);
}

Tensor AdaptiveAvgPool1d::forward(const Tensor& input) {
  return functional::adaptive_avg_pool1d(input, output_size_);
}

AdaptiveMaxPool1d::AdaptiveMaxPool1d(int64_t output_size) : output_size_(output_size) {
  TL_CHECK(output_size >= 0, "AdaptiveMaxPool1d: output_size must be non-negative, got ", output_size);
}

Tensor AdaptiveMaxPool1d::forward(const Tensor& input) {
  return functional::adaptive_max_pool1d(input, output_size_);
}

std::tuple<Tensor, Tensor> AdaptiveMaxPool1d::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool1d_with_indices(input, output_size_);
}

}  // namespace tl::nn
