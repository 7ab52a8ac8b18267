// tests/ops/op_db_quantized.cpp — the op_db samples of the quantization rows (op_db.h): x quantized per tensor
// (each quantized dtype) or per channel along its dim 1, its integers and its real values, so x's special values
// (NaN, infinities) reach ATen's rounding. gen_special_values.py's SAMPLES mirror these, sample by sample.
#include "ops/ops.h"
#include "tests/ops/op_db.h"

namespace tl::testing {
namespace {

TensorList list(const Tensor& t) { return {t}; }
Tensor channel_scales() { return from_vector<double>({0.1, 0.25}, {2}); }
Tensor channel_zero_points() { return from_vector<int64_t>({-3, 5}, {2}); }

// The int8 kernels' samples: x as quint8 (scale 0.1, zero point 128), conv_weight() / its first 12 values as
// (3, 4) quantized per output channel (symmetric), conv_bias(); y as the second operand of add and cat.
Tensor qx(const Tensor& x) { return quantize_per_tensor(x, 0.1, 128, kQUInt8); }
Tensor qy(const Tensor& y) { return quantize_per_tensor(y, 0.05, 60, kQUInt8); }
Tensor weight_scales() { return from_vector<double>({0.005, 0.0075, 0.01}, {3}); }
Tensor qconv_weight() { return quantize_per_channel(conv_weight(), weight_scales(), zeros({3}, kLong), 0, kQInt8); }
Tensor qlinear_weight() {
  return quantize_per_channel(conv_weight().flatten().narrow(0, 0, 12).reshape({3, 4}), weight_scales(),
                              zeros({3}, kLong), 0, kQInt8);
}
Tensor packed_conv() { return quantized_conv2d_prepack(qconv_weight(), conv_bias(), {1, 1}, {1, 1}); }
Tensor packed_linear() { return quantized_linear_prepack(qlinear_weight(), conv_bias()); }
const char* kPacked = "a prepacked weight is an object the trace does not record (torch.fx keeps it as an attribute)";

}  // namespace

Samples opinfo_quantize_per_tensor() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor&) { return list(quantize_per_tensor(x, 0.1, 10, kQUInt8).int_repr()); }}.generic(),
          Sample{"qint8", [](const Tensor& x, const Tensor&) { return list(quantize_per_tensor(x, 0.3, -4, kQInt8).int_repr()); }}.generic(),
          Sample{"qint32", [](const Tensor& x, const Tensor&) { return list(quantize_per_tensor(x, 1e-3, 7, kQInt32).int_repr()); }}.generic()};
}
// The qparams as one-element tensors, as a converted graph passes its get_attr buffers.
Samples opinfo_quantize_per_tensor_tensor_qparams() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor&) {
            return list(quantize_per_tensor(x, full({}, 0.1), full({}, 10, kLong), kQUInt8).int_repr());
          }}.generic()};
}
Samples opinfo_quantize_per_channel() {
  return {Sample{"qint8", [](const Tensor& x, const Tensor&) {
            return list(quantize_per_channel(x, channel_scales(), channel_zero_points(), 1, kQInt8).int_repr());
          }}.generic()};
}
Samples opinfo_dequantize() {
  return {Sample{"per_tensor", [](const Tensor& x, const Tensor&) { return list(quantize_per_tensor(x, 0.1, 10, kQUInt8).dequantize()); }}.generic(),
          Sample{"per_channel", [](const Tensor& x, const Tensor&) {
            return list(quantize_per_channel(x, channel_scales(), channel_zero_points(), 1, kQInt8).dequantize());
          }}.generic(),
          Sample{"float", [](const Tensor& x, const Tensor&) { return list(dequantize(x)); }}.generic()};
}
Samples opinfo_int_repr() {
  return {Sample{"qint8", [](const Tensor& x, const Tensor&) { return list(int_repr(quantize_per_tensor(x, 0.25, 0, kQInt8))); }}.generic()};
}
Samples opinfo__make_per_tensor_quantized_tensor() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor&) {
            return list(_make_per_tensor_quantized_tensor(x.to(kUInt8), 0.5, 3).dequantize());
          }}.generic()};
}
Samples opinfo__make_per_channel_quantized_tensor() {
  return {Sample{"qint8", [](const Tensor& x, const Tensor&) {
            return list(_make_per_channel_quantized_tensor(x.to(kInt8), channel_scales(), channel_zero_points(), 1).dequantize());
          }}.generic()};
}

Samples opinfo_quantized_conv2d_prepack() {
  return {Sample{"conv", [](const Tensor& x, const Tensor&) {
            return list(quantized_conv2d(qx(x), quantized_conv2d_prepack(qconv_weight(), conv_bias(), {1, 1}, {1, 1}), 0.2,
                                         100).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_conv2d_unpack() {
  return {Sample{"weight", [](const Tensor& x, const Tensor&) {
            const Tensor w = quantize_per_tensor(x.reshape({2, 2, 2, 4}), 0.1, 0, kQInt8);
            return list(quantized_conv2d_unpack(quantized_conv2d_prepack(w, {}))[0].int_repr());
          }}.no_trace(kPacked)};
}
Samples opinfo_quantized_conv2d() {
  return {Sample{"padding", [](const Tensor& x, const Tensor&) {
            return list(quantized_conv2d(qx(x), packed_conv(), 0.2, 100).int_repr());
          }}.generic().no_trace(kPacked)};
}
Samples opinfo_quantized_conv2d_relu() {
  return {Sample{"padding", [](const Tensor& x, const Tensor&) {
            return list(quantized_conv2d_relu(qx(x), packed_conv(), 0.2, 100).int_repr());
          }}.generic().no_trace(kPacked)};
}
Samples opinfo_quantized_conv2d_add() {
  return {Sample{"residual", [](const Tensor& x, const Tensor&) {
            const Tensor q = qx(x), w = packed_conv();
            return list(quantized_conv2d_add(q, w, quantized_conv2d(q, w, 0.3, 50), 0.2, 100, 0.25, 90).int_repr());
          }}.generic().no_trace(kPacked)};
}
Samples opinfo_quantized_conv2d_add_relu() {
  return {Sample{"residual", [](const Tensor& x, const Tensor&) {
            const Tensor q = qx(x), w = packed_conv();
            return list(quantized_conv2d_add_relu(q, w, quantized_conv2d(q, w, 0.3, 50), 0.2, 100, 0.25, 90).int_repr());
          }}.generic().no_trace(kPacked)};
}
Samples opinfo_quantized_linear_prepack() {
  return {Sample{"linear", [](const Tensor& x, const Tensor&) {
            return list(quantized_linear(qx(x), quantized_linear_prepack(qlinear_weight(), conv_bias()), 0.2, 100).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_linear_unpack() {
  return {Sample{"weight", [](const Tensor& x, const Tensor&) {
            const Tensor w = quantize_per_tensor(x.reshape({4, 8}), 0.1, 0, kQInt8);
            return list(quantized_linear_unpack(quantized_linear_prepack(w))[0].int_repr());
          }}.no_trace(kPacked)};
}
Samples opinfo_quantized_linear() {
  return {Sample{"last_dim", [](const Tensor& x, const Tensor&) {
            return list(quantized_linear(qx(x), packed_linear(), 0.2, 100).int_repr());
          }}.generic().no_trace(kPacked)};
}
Samples opinfo_quantized_linear_relu() {
  return {Sample{"last_dim", [](const Tensor& x, const Tensor&) {
            return list(quantized_linear_relu(qx(x), packed_linear(), 0.2, 100).int_repr());
          }}.generic().no_trace(kPacked)};
}
Samples opinfo_quantized_add() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor& y) { return list(quantized_add(qx(x), qy(y), 0.08, 64).int_repr()); }}
              .generic()};
}
Samples opinfo_quantized_add_relu() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor& y) {
            return list(quantized_add_relu(qx(x), qy(y), 0.08, 64).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_add_tensor_qparams() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor& y) {
            return list(quantized_add(qx(x), qy(y), full({}, 0.08), full({}, 64, kLong)).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_add_relu_tensor_qparams() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor& y) {
            return list(quantized_add_relu(qx(x), qy(y), full({}, 0.08), full({}, 64, kLong)).int_repr());
          }}.generic()};
}
// The scalar overloads: a number that shifts the zero point within range (add), or scales (mul).
Samples opinfo_quantized_add_scalar() {
  return {Sample{"shift", [](const Tensor& x, const Tensor&) { return list(quantized_add(qx(x), 1.0).int_repr()); }}
              .generic()};
}
Samples opinfo_quantized_add_relu_scalar() {
  return {Sample{"shift", [](const Tensor& x, const Tensor&) { return list(quantized_add_relu(qx(x), 1.0).int_repr()); }}
              .generic()};
}
Samples opinfo_quantized_mul() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor& y) { return list(quantized_mul(qx(x), qy(y), 0.08, 64).int_repr()); }}
              .generic()};
}
Samples opinfo_quantized_mul_relu() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor& y) {
            return list(quantized_mul_relu(qx(x), qy(y), 0.08, 64).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_mul_tensor_qparams() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor& y) {
            return list(quantized_mul(qx(x), qy(y), full({}, 0.08), full({}, 64, kLong)).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_mul_relu_tensor_qparams() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor& y) {
            return list(quantized_mul_relu(qx(x), qy(y), full({}, 0.08), full({}, 64, kLong)).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_mul_scalar() {
  return {Sample{"negative", [](const Tensor& x, const Tensor&) { return list(quantized_mul(qx(x), -1.5).int_repr()); }}
              .generic()};
}
Samples opinfo_quantized_mul_relu_scalar() {
  return {Sample{"negative", [](const Tensor& x, const Tensor&) {
            return list(quantized_mul_relu(qx(x), -1.5).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_hardswish() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor&) { return list(quantized_hardswish(qx(x), 0.05, 30).int_repr()); }}
              .generic()};
}
// Batch norm of qx(x)'s two channels: weight, bias, mean and var as op_db.cpp's bn(0..3) (gen_special_values.py's BN).
TensorList qbn_params() {
  return {from_vector<float>({1.5f, -0.5f}, {2}), from_vector<float>({0.1f, 0.2f}, {2}),
          from_vector<float>({0.25f, -0.5f}, {2}), from_vector<float>({0.5f, 2.0f}, {2})};
}
Samples opinfo_quantized_batch_norm2d() {
  return {Sample{"eval", [](const Tensor& x, const Tensor&) {
            const TensorList p = qbn_params();
            return list(quantized_batch_norm2d(qx(x), p[0], p[1], p[2], p[3], 1e-5, 0.2, 100).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_batch_norm2d_relu() {
  return {Sample{"eval", [](const Tensor& x, const Tensor&) {
            const TensorList p = qbn_params();
            return list(quantized_batch_norm2d_relu(qx(x), p[0], p[1], p[2], p[3], 1e-5, 0.2, 100).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_max_pool2d() {
  return {Sample{"stride", [](const Tensor& x, const Tensor&) {
            return list(quantized_max_pool2d(qx(x), {2, 2}, {2, 2}).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_adaptive_avg_pool2d() {
  return {Sample{"2x3", [](const Tensor& x, const Tensor&) {
            return list(quantized_adaptive_avg_pool2d(qx(x), {2, 3}).int_repr());
          }}.generic()};
}
Samples opinfo_quantized_cat() {
  return {Sample{"requantized", [](const Tensor& x, const Tensor& y) {
            return list(quantized_cat({qx(x), qy(y)}, 1, 0.07, 100).int_repr());
          }}.generic()};
}

}  // namespace tl::testing
