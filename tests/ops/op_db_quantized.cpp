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

}  // namespace

Samples opinfo_quantize_per_tensor() {
  return {Sample{"quint8", [](const Tensor& x, const Tensor&) { return list(quantize_per_tensor(x, 0.1, 10, kQUInt8).int_repr()); }}.generic(),
          Sample{"qint8", [](const Tensor& x, const Tensor&) { return list(quantize_per_tensor(x, 0.3, -4, kQInt8).int_repr()); }}.generic(),
          Sample{"qint32", [](const Tensor& x, const Tensor&) { return list(quantize_per_tensor(x, 1e-3, 7, kQInt32).int_repr()); }}.generic()};
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

}  // namespace tl::testing
