// ops/conv_shape.cpp — PyTorch's sliding-window output size (aten's pooling_output_shape, which for
// ceil_mode=false is also the conv formula of ConvUtils.h).
#include "ops/conv_shape.h"

#include "core/error.h"

namespace tl {
namespace {

Shape to_shape(std::array<int64_t, 2> p) { return Shape{p[0], p[1]}; }

// Division rounding toward negative infinity (aten's div_rtn), so a too-small input gives <= 0.
int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t axis_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t padding, int64_t dilation,
                         bool ceil_mode) {
  const int64_t span = in + 2 * padding - dilated_extent(kernel, dilation);
  int64_t out = floor_div(span + (ceil_mode ? stride - 1 : 0), stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + padding) --out;
  return out;
}

}  // namespace

void check_positive(std::string_view op, std::string_view name, std::array<int64_t, 2> values, bool allow_zero) {
  const int64_t low = allow_zero ? 0 : 1;
  TL_CHECK(values[0] >= low && values[1] >= low, op, ": ", name,
           allow_zero ? " must be non-negative" : " must be positive", ", got ", to_shape(values));
}

std::array<int64_t, 2> conv_output_size(std::string_view op, const Shape& input, std::array<int64_t, 2> kernel,
                                        std::array<int64_t, 2> stride, std::array<int64_t, 2> padding,
                                        std::array<int64_t, 2> dilation, bool ceil_mode) {
  TL_INTERNAL_ASSERT(input.size() >= 4, op, ": expected an input with H and W at dims 2 and 3, got ", input);
  check_positive(op, "kernel_size", kernel);
  check_positive(op, "stride", stride);
  check_positive(op, "padding", padding, /*allow_zero=*/true);
  check_positive(op, "dilation", dilation);
  std::array<int64_t, 2> out{};
  for (int d = 0; d < 2; ++d)
    out[d] = axis_output_size(input[2 + d], kernel[d], stride[d], padding[d], dilation[d], ceil_mode);
  TL_CHECK(out[0] > 0 && out[1] > 0, op, ": input ", input, " is too small for kernel_size ", to_shape(kernel),
           " (stride ", to_shape(stride), ", padding ", to_shape(padding), ", dilation ", to_shape(dilation),
           "): output size would be ", to_shape(out));
  return out;
}

}  // namespace tl
