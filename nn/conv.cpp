// nn/conv.cpp — Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d: option checks (PyTorch's), PyTorch's default
// initialisation and repr (_ConvNd.extra_repr, one function for all four), forward via F.conv*.
#include "nn/conv.h"

#include <vector>

#include "nn/init.h"
#include "nn/repr.h"

namespace tl::nn {
namespace {

void check_channels(const char* layer, int64_t in_channels, int64_t out_channels, int64_t groups) {
  TL_CHECK(in_channels >= 0 && out_channels >= 0, layer, ": channel counts must be non-negative, got in_channels=",
           in_channels, " and out_channels=", out_channels);
  TL_CHECK(groups > 0, layer, ": groups must be a positive integer, got ", groups);
  TL_CHECK(in_channels % groups == 0, layer, ": in_channels must be divisible by groups, got in_channels=",
           in_channels, " and groups=", groups);
  TL_CHECK(out_channels % groups == 0, layer, ": out_channels must be divisible by groups, got out_channels=",
           out_channels, " and groups=", groups);
}

/// One spatial argument of a 1-d layer: positive (>= 0 when allow_zero).
void check_1d(const char* layer, const char* name, int64_t value, bool allow_zero = false) {
  TL_CHECK(value >= (allow_zero ? 0 : 1), layer, ": ", name, allow_zero ? " must be non-negative" : " must be positive",
           ", got ", value);
}

std::string tuple1(int64_t value) { return py_tuple(Shape{value}); }

/// The fields of PyTorch's _ConvNd.extra_repr, tuples printed; padding, dilation and output_padding are
/// empty where they are all 0, 1 and 0 (not printed then).
struct ConvRepr {
  int64_t in_channels, out_channels;
  std::string kernel_size, stride, padding, dilation, output_padding;
  int64_t groups;
  bool bias;
  std::string padding_mode = "zeros";
};

std::string conv_extra_repr(const ConvRepr& r) {
  std::string s = std::to_string(r.in_channels) + ", " + std::to_string(r.out_channels) +
                  ", kernel_size=" + r.kernel_size + ", stride=" + r.stride;
  if (!r.padding.empty()) s += ", padding=" + r.padding;
  if (!r.dilation.empty()) s += ", dilation=" + r.dilation;
  if (!r.output_padding.empty()) s += ", output_padding=" + r.output_padding;
  if (r.groups != 1) s += ", groups=" + std::to_string(r.groups);
  if (!r.bias) s += ", bias=False";
  if (r.padding_mode != "zeros") s += ", padding_mode=" + r.padding_mode;
  return s;
}

std::string pair_unless(const IntPair& p, int64_t all) { return p.all_equal(all) ? "" : p.tuple_repr(); }

// PyTorch's checks of a padding string (F.conv*'s own) and padding_mode (_ConvNd.__init__'s messages).
void check_padding(const char* layer, const std::string* mode, bool unit_stride, const std::string& padding_mode) {
  if (mode) functional::check_padding_string(layer, *mode, unit_stride);
  TL_CHECK(padding_mode == "zeros" || padding_mode == "reflect" || padding_mode == "replicate" ||
               padding_mode == "circular",
           layer, ": padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode='",
           padding_mode, "'");
}

// PyTorch's _reversed_padding_repeated_twice: F.pad's list (last dim first, left then right) for a conv whose
// padding_mode pads the input itself. `zeros` holds the per-dim numbers, or is empty for a padding string;
// "same" puts the odd zero of its total on the right.
Shape reversed_padding_repeated_twice(const Shape& zeros, const std::string* mode, const Shape& kernel,
                                      const Shape& dilation) {
  const functional::SamePadding same = functional::same_padding(kernel, dilation);
  std::vector<int64_t> pad;
  for (auto d = kernel.size(); d-- > 0;) {
    if (!mode) pad.insert(pad.end(), {zeros[d], zeros[d]});
    else if (*mode == "same") pad.insert(pad.end(), {same.left[d], same.left[d] + same.extra[d]});
    else pad.insert(pad.end(), {0, 0});
  }
  return Shape(pad);
}
std::string single_unless(int64_t v, int64_t all) { return v == all ? "" : tuple1(v); }

/// PyTorch's _output_padding: the output_padding that makes a transposed convolution's output
/// `output_size` (its spatial sizes, or the whole shape with the batch and channel dims first).
Shape output_padding_for(const char* layer, const Tensor& input, const Shape& output_size, const Shape& stride,
                         const Shape& padding, const Shape& kernel, const Shape& dilation) {
  const int64_t spatial = static_cast<int64_t>(stride.size());
  TL_CHECK(input.dim() == spatial + 1 || input.dim() == spatial + 2, layer, ": expected ", spatial + 1, "-D or ",
           spatial + 2, "-D input, got ", input.shape());
  const int64_t non_spatial = input.dim() == spatial + 2 ? 2 : 1;
  std::vector<int64_t> size = output_size.vec();
  if (static_cast<int64_t>(size.size()) == non_spatial + spatial) size.erase(size.begin(), size.begin() + non_spatial);
  TL_CHECK(static_cast<int64_t>(size.size()) == spatial, layer, ": for ", input.dim(), "D input, output_size must have ",
           spatial, " or ", non_spatial + spatial, " elements (got ", output_size.size(), ")");
  Shape min_sizes, max_sizes, input_sizes, result;
  for (int64_t d = 0; d < spatial; ++d) {
    min_sizes.push_back((input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) +
                        1);
    max_sizes.push_back(min_sizes[d] + stride[d] - 1);
    input_sizes.push_back(input.size(d + non_spatial));
  }
  for (int64_t d = 0; d < spatial; ++d)
    TL_CHECK(size[d] >= min_sizes[d] && size[d] <= max_sizes[d], layer, ": requested an output size of ",
             Shape(size), ", but valid sizes range from ", min_sizes, " to ", max_sizes, " (for an input of ",
             input_sizes, ")");
  for (int64_t d = 0; d < spatial; ++d) result.push_back(size[d] - min_sizes[d]);
  return result;
}

}  // namespace

Conv2d::Conv2d(const Conv2dOptions& options) : options_(options) {
  const Conv2dOptions& o = options_;
  check_channels("Conv2d", o.in_channels, o.out_channels, o.groups);
  TL_CHECK(o.kernel_size.h() > 0 && o.kernel_size.w() > 0, "Conv2d: kernel_size must be positive, got ",
           o.kernel_size.tuple_repr());
  TL_CHECK(o.stride.h() > 0 && o.stride.w() > 0, "Conv2d: stride must be positive, got ", o.stride.tuple_repr());
  if (const IntPair* zeros = o.padding.zeros())
    TL_CHECK(zeros->h() >= 0 && zeros->w() >= 0, "Conv2d: padding must be non-negative, got ", zeros->tuple_repr());
  check_padding("Conv2d", o.padding.mode(), o.stride.all_equal(1), o.padding_mode);
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
  if (o.padding_mode == "zeros")
    return functional::conv2d(input, parameter("weight"), parameter("bias"), o.stride, o.padding, o.dilation,
                              o.groups);
  const Shape pad = reversed_padding_repeated_twice(o.padding.zeros() ? o.padding.zeros()->shape() : Shape{},
                                                    o.padding.mode(), o.kernel_size.shape(), o.dilation.shape());
  return functional::conv2d(functional::pad(input, pad, o.padding_mode), parameter("weight"), parameter("bias"),
                            o.stride, 0, o.dilation, o.groups);
}

std::string Conv2d::extra_repr() const { return conv2d_extra_repr(options_, parameter("bias").defined()); }

std::optional<IntPair> symmetric_zero_padding(const Conv2dOptions& o) {
  if (o.padding_mode != "zeros") return std::nullopt;
  if (const IntPair* zeros = o.padding.zeros()) return *zeros;
  if (*o.padding.mode() == "valid") return IntPair(0, 0);
  const functional::SamePadding same = functional::same_padding(o.kernel_size.shape(), o.dilation.shape());
  if (same.extra != Shape{0, 0}) return std::nullopt;
  return IntPair(same.left[0], same.left[1]);
}

std::string conv2d_extra_repr(const Conv2dOptions& o, bool has_bias) {
  const IntPair* zeros = o.padding.zeros();
  return conv_extra_repr({.in_channels = o.in_channels, .out_channels = o.out_channels,
                          .kernel_size = o.kernel_size.tuple_repr(), .stride = o.stride.tuple_repr(),
                          .padding = zeros ? pair_unless(*zeros, 0) : *o.padding.mode(),
                          .dilation = pair_unless(o.dilation, 1), .output_padding = "", .groups = o.groups,
                          .bias = has_bias, .padding_mode = o.padding_mode});
}

Conv1d::Conv1d(const Conv1dOptions& options) : options_(options) {
  const Conv1dOptions& o = options_;
  check_channels("Conv1d", o.in_channels, o.out_channels, o.groups);
  check_1d("Conv1d", "kernel_size", o.kernel_size);
  check_1d("Conv1d", "stride", o.stride);
  check_1d("Conv1d", "dilation", o.dilation);
  if (const int64_t* zeros = std::get_if<int64_t>(&o.padding)) check_1d("Conv1d", "padding", *zeros, /*allow_zero=*/true);
  check_padding("Conv1d", std::get_if<std::string>(&o.padding), o.stride == 1, o.padding_mode);
  register_parameter("weight", empty({o.out_channels, o.in_channels / o.groups, o.kernel_size}));
  register_parameter("bias", o.bias ? empty({o.out_channels}) : Tensor());
  reset_parameters();
}

void Conv1d::reset_parameters() { init::default_weight_and_bias_(parameter("weight"), parameter("bias")); }

Tensor Conv1d::forward(const Tensor& input) {
  const Conv1dOptions& o = options_;
  if (o.padding_mode == "zeros")
    return functional::conv1d(input, parameter("weight"), parameter("bias"), o.stride, o.padding, o.dilation,
                              o.groups);
  const int64_t* zeros = std::get_if<int64_t>(&o.padding);
  const Shape pad = reversed_padding_repeated_twice(zeros ? Shape{*zeros} : Shape{}, std::get_if<std::string>(&o.padding),
                                                    {o.kernel_size}, {o.dilation});
  return functional::conv1d(functional::pad(input, pad, o.padding_mode), parameter("weight"), parameter("bias"),
                            o.stride, int64_t{0}, o.dilation, o.groups);
}

std::string Conv1d::extra_repr() const {
  const Conv1dOptions& o = options_;
  const int64_t* zeros = std::get_if<int64_t>(&o.padding);
  return conv_extra_repr({.in_channels = o.in_channels, .out_channels = o.out_channels,
                          .kernel_size = tuple1(o.kernel_size), .stride = tuple1(o.stride),
                          .padding = zeros ? single_unless(*zeros, 0) : std::get<std::string>(o.padding),
                          .dilation = single_unless(o.dilation, 1), .output_padding = "", .groups = o.groups,
                          .bias = parameter("bias").defined(), .padding_mode = o.padding_mode});
}

ConvTranspose1d::ConvTranspose1d(const ConvTranspose1dOptions& options) : options_(options) {
  const ConvTranspose1dOptions& o = options_;
  check_channels("ConvTranspose1d", o.in_channels, o.out_channels, o.groups);
  check_1d("ConvTranspose1d", "kernel_size", o.kernel_size);
  check_1d("ConvTranspose1d", "stride", o.stride);
  check_1d("ConvTranspose1d", "padding", o.padding, /*allow_zero=*/true);
  check_1d("ConvTranspose1d", "output_padding", o.output_padding, /*allow_zero=*/true);
  check_1d("ConvTranspose1d", "dilation", o.dilation);
  register_parameter("weight", empty({o.in_channels, o.out_channels / o.groups, o.kernel_size}));
  register_parameter("bias", o.bias ? empty({o.out_channels}) : Tensor());
  reset_parameters();
}

void ConvTranspose1d::reset_parameters() { init::default_weight_and_bias_(parameter("weight"), parameter("bias")); }

Tensor ConvTranspose1d::forward(const Tensor& input) {
  const ConvTranspose1dOptions& o = options_;
  return functional::conv_transpose1d(input, parameter("weight"), parameter("bias"), o.stride, o.padding,
                                      o.output_padding, o.groups, o.dilation);
}

Tensor ConvTranspose1d::forward(const Tensor& input, const Shape& output_size) {
  const ConvTranspose1dOptions& o = options_;
  const Shape output_padding = output_padding_for("ConvTranspose1d", input, output_size, {o.stride}, {o.padding},
                                                  {o.kernel_size}, {o.dilation});
  return functional::conv_transpose1d(input, parameter("weight"), parameter("bias"), o.stride, o.padding,
                                      output_padding[0], o.groups, o.dilation);
}

std::string ConvTranspose1d::extra_repr() const {
  const ConvTranspose1dOptions& o = options_;
  return conv_extra_repr({.in_channels = o.in_channels, .out_channels = o.out_channels,
                          .kernel_size = tuple1(o.kernel_size), .stride = tuple1(o.stride),
                          .padding = single_unless(o.padding, 0), .dilation = single_unless(o.dilation, 1),
                          .output_padding = single_unless(o.output_padding, 0), .groups = o.groups,
                          .bias = parameter("bias").defined()});
}

ConvTranspose2d::ConvTranspose2d(const ConvTranspose2dOptions& options) : options_(options) {
  const ConvTranspose2dOptions& o = options_;
  const char* layer = "ConvTranspose2d";
  check_channels(layer, o.in_channels, o.out_channels, o.groups);
  TL_CHECK(o.kernel_size.h() > 0 && o.kernel_size.w() > 0, layer, ": kernel_size must be positive, got ",
           o.kernel_size.tuple_repr());
  TL_CHECK(o.stride.h() > 0 && o.stride.w() > 0, layer, ": stride must be positive, got ", o.stride.tuple_repr());
  TL_CHECK(o.padding.h() >= 0 && o.padding.w() >= 0, layer, ": padding must be non-negative, got ",
           o.padding.tuple_repr());
  TL_CHECK(o.output_padding.h() >= 0 && o.output_padding.w() >= 0, layer, ": output_padding must be non-negative, got ",
           o.output_padding.tuple_repr());
  TL_CHECK(o.dilation.h() > 0 && o.dilation.w() > 0, layer, ": dilation must be positive, got ",
           o.dilation.tuple_repr());
  register_parameter("weight",
                     empty({o.in_channels, o.out_channels / o.groups, o.kernel_size.h(), o.kernel_size.w()}));
  register_parameter("bias", o.bias ? empty({o.out_channels}) : Tensor());
  reset_parameters();
}

void ConvTranspose2d::reset_parameters() { init::default_weight_and_bias_(parameter("weight"), parameter("bias")); }

Tensor ConvTranspose2d::forward(const Tensor& input) {
  const ConvTranspose2dOptions& o = options_;
  return functional::conv_transpose2d(input, parameter("weight"), parameter("bias"), o.stride, o.padding,
                                      o.output_padding, o.groups, o.dilation);
}

Tensor ConvTranspose2d::forward(const Tensor& input, const Shape& output_size) {
  const ConvTranspose2dOptions& o = options_;
  const Shape output_padding = output_padding_for("ConvTranspose2d", input, output_size, o.stride.shape(),
                                                  o.padding.shape(), o.kernel_size.shape(), o.dilation.shape());
  return functional::conv_transpose2d(input, parameter("weight"), parameter("bias"), o.stride, o.padding,
                                      IntPair(output_padding[0], output_padding[1]), o.groups, o.dilation);
}

std::string ConvTranspose2d::extra_repr() const {
  const ConvTranspose2dOptions& o = options_;
  return conv_extra_repr({.in_channels = o.in_channels, .out_channels = o.out_channels,
                          .kernel_size = o.kernel_size.tuple_repr(), .stride = o.stride.tuple_repr(),
                          .padding = pair_unless(o.padding, 0), .dilation = pair_unless(o.dilation, 1),
                          .output_padding = pair_unless(o.output_padding, 0), .groups = o.groups,
                          .bias = parameter("bias").defined()});
}

}  // namespace tl::nn
