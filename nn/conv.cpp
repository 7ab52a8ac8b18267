// nn/conv.cpp — Conv2d: option checks, PyTorch's default initialisation and repr, forward via F.conv2d.
#include "nn/conv.h"

#include "nn/init.h"

namespace tl::nn {

Conv2d::Conv2d(const Conv2dOptions& options) : options_(options) {
  const Conv2dOptions& o = options_;
  TL_CHECK(o.in_channels >= 0 && o.out_channels >= 0, "Conv2d: channel counts must be non-negative, got in_channels=",
           o.in_channels, " and out_channels=", o.out_channels);
  TL_CHECK(o.groups > 0, "Conv2d: groups must be a positive integer, got ", o.groups);
  TL_CHECK(o.in_channels % o.groups == 0, "Conv2d: in_channels must be divisible by groups, got in_channels=",
           o.in_channels, " and groups=", o.groups);
  TL_CHECK(o.out_channels % o.groups == 0, "Conv2d: out_channels must be divisible by groups, got out_channels=",
           o.out_channels, " and groups=", o.groups);
  TL_CHECK(o.kernel_size.h() > 0 && o.kernel_size.w() > 0, "Conv2d: kernel_size must be positive, got ",
           o.kernel_size.tuple_repr());
  TL_CHECK(o.stride.h() > 0 && o.stride.w() > 0, "Conv2d: stride must be positive, got ", o.stride.tuple_repr());
  TL_CHECK(o.padding.h() >= 0 && o.padding.w() >= 0, "Conv2d: padding must be non-negative, got ",
           o.padding.tuple_repr());
  TL_CHECK(o.dilation.h() > 0 && o.dilation.w() > 0, "Conv2d: dilation must be positive, got ",
           o.dilation.tuple_repr());
  register_parameter("weight",
                     empty({o.out_channels, o.in_channels / o.groups, o.kernel_size.h(), o.kernel_size.w()}));
  register_parameter("bias", o.bias ? empty({o.out_channels}) : Tensor());
  reset_parameters();
}

void Conv2d::reset_parameters() { init::default_weight_and_bias_(parameter("weight"), parameter("bias")); }

Tensor Conv2d::forward(const Tensor& input) {
  const Conv2dOptions& o = options_;
  return functional::conv2d(input, parameter("weight"), parameter("bias"), o.stride, o.padding, o.dilation,
                            o.groups);
}

std::string Conv2d::extra_repr() const { return conv2d_extra_repr(options_, parameter("bias").defined()); }

std::string conv2d_extra_repr(const Conv2dOptions& o, bool has_bias) {
  std::string s = std::to_string(o.in_channels) + ", " + std::to_string(o.out_channels) +
                  ", kernel_size=" + o.kernel_size.tuple_repr() + ", stride=" + o.stride.tuple_repr();
  if (!o.padding.all_equal(0)) s += ", padding=" + o.padding.tuple_repr();
  if (!o.dilation.all_equal(1)) s += ", dilation=" + o.dilation.tuple_repr();
  if (o.groups != 1) s += ", groups=" + std::to_string(o.groups);
  if (!has_bias) s += ", bias=False";
  return s;
}

}  // namespace tl::nn
