// ops/quantized/int8.h — what the int8 kernels share (private to ops/): their argument checks with ATen's
// messages, a quantized tensor's integers as a plain tensor, channels-last quint8 results (the layout ATen's
// onednn kernels return and oneDNN's int8 convolutions read), and requantization parameters computed in float
// as ideep computes them (oneDNN's scales are the reciprocals of PyTorch's).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/dispatch.h"
#include "core/quantizer.h"
#include "core/tensor.h"
#include "ops/onednn/packed.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/onednn/window.h"

namespace tl::kernels::int8 {

/// A quantized tensor's integers: a uint8 / int8 / int32 tensor over the same storage and geometry.
Tensor integers_of(const Tensor& q);

/// Throws "<op>: expected <what> to be a quantized tensor of torch.quint8 quantized per tensor, got ..."
/// unless `t` is one (ATen's onednn kernels take nothing else).
void check_quint8(const char* op, const char* what, const Tensor& t);

/// Throws "<op>: expected scale and zero_point of one element each, got ..." unless they are (Python turns such
/// tensors into the float and int the op takes).
void check_qparam_tensors(const char* op, const Tensor& scale, const Tensor& zero_point);

/// A fresh (N, C, H, W) quint8 tensor with channels-last strides and per-tensor qparams (uninitialised).
/// Throws as Quantizer::per_tensor_affine for a bad scale or zero point.
Tensor allocate_nhwc(const Shape& nchw, double scale, int64_t zero_point);

/// `x` (4-D) itself when its strides are channels-last and dense, otherwise a channels-last copy.
Tensor to_nhwc(const Tensor& x);

/// A tensor of x's shape and quantizer laid out as x is when x is dense (contiguous or channels-last),
/// contiguous otherwise; uninitialised.
Tensor empty_like_dense(const Tensor& x, std::shared_ptr<const Quantizer> quantizer);

/// x's strides when its elements are dense in memory in some order (contiguous, channels-last, ...).
bool is_dense(const Tensor& x);

/// A kernel's result: a fresh quint8 tensor (scale, zero_point) of `shape` with `strides` when `out` is undefined,
/// otherwise `out` (an `out=` argument, e.g. an activation arena's buffer) after checking that it is that tensor:
/// quint8 per tensor with these qparams, this shape and these strides. Throws naming op and what differs.
Tensor result_or_out(const char* op, const Tensor& out, const Shape& shape, const Strides& strides, double scale,
                     int64_t zero_point);

/// 1.0f / float(scale) of each channel of a qint8 weight's quantizer, repeated to `channels` for a per-tensor
/// one (ideep's weight scales).
std::vector<float> inverse_scales(const Quantizer& weight, int64_t channels);

/// oneDNN's output scales of an int8 conv / linear: dst_scale / (src_scale * weight_scale[c]) in float with
/// ideep's reciprocal scales, i.e. in_scale * w_scale[c] / out_scale.
std::vector<float> output_scales(double input_scale, const std::vector<float>& inverse_weight_scales,
                                 double output_scale);

/// The float bias in the accumulator's units, bias[c] * ((1 / in_scale) * (1 / w_scale[c])) in float (not
/// rounded), as ideep reorders it with its bias scales.
std::vector<float> accumulator_bias(const Tensor& bias, double input_scale, const std::vector<float>& inverse_weight_scales);

/// A weight prepacked by quantized::conv2d_prepack or linear_prepack (ATen's PackedConvWeightsOnednn /
/// PackedLinearWeightsOnednn): `bytes` holds it in the s8 layout `desc` its primitive wants (with oneDNN's
/// compensation for the activation's zero point); the qint8 weight and float bias are kept as given, for
/// unpack and a state_dict.
struct PackedWeight : onednn::Packed {
  Tensor weight;  ///< qint8, contiguous, (C_out, C_in / groups, kH, kW) or (out_features, in_features), zero points 0
  Tensor bias;    ///< float32 (C_out), contiguous, or undefined
  std::vector<float> inverse_scales;  ///< ideep's weight scales, one per output channel
  dnnl::memory::desc desc;            ///< the layout `bytes` holds
  dnnl::memory::desc user;            ///< `weight`'s integers as the primitive's weights dims
  onednn::Pair stride{1, 1}, padding{0, 0}, dilation{1, 1};  ///< a conv's window
  int64_t groups = 1;
  /// The weight in the other layouts oneDNN chose for some input shapes (its brgemm and jit kernels differ),
  /// each packed on first use and kept.
  mutable std::mutex mutex;
  mutable std::vector<std::pair<dnnl::memory::desc, Tensor>> other_layouts;

  /// What a kernel derives for one call signature (input shape and qparams, output qparams, fusion) besides the
  /// data: its primitive and the bias in accumulator units. Kept for the last few signatures (under `mutex`), so a
  /// converted model's call, which repeats its layer's one signature, skips the output scales, the bias and the
  /// primitive cache's key of every output channel.
  struct CallPlan {
    std::vector<double> signature;
    std::shared_ptr<const onednn::CachedPlan> plan;
    std::vector<float> bias;
  };
  static constexpr size_t kMaxCallPlans = 4;
  mutable std::vector<std::shared_ptr<const CallPlan>> call_plans;

  /// What unpack returns, as ATen's: {weight} or {weight, bias}, as given to prepack.
  TensorList unpacked() const { return bias.defined() ? TensorList{weight, bias} : TensorList{weight}; }
};

/// Checks a prepack's weight and bias with ATen's messages: `weight` qint8, `dim`-D, quantized per tensor or per
/// channel along 0, every zero point 0; `bias` undefined or float32 1-D of weight.size(0). Returns the fields
/// of a PackedWeight but its bytes and desc.
std::shared_ptr<PackedWeight> checked_weight(const char* op, const Tensor& weight, const Tensor& bias, int64_t dim);

/// `packed`'s bytes reordered from its weight, seen as `user`, into `desc` (the primitive's weights layout), and
/// returned as the tensor that carries it.
Tensor carry_packed(std::shared_ptr<PackedWeight> packed, const dnnl::memory::desc& desc,
                    const dnnl::memory::desc& user);

/// The PackedWeight `w` carries; throws "<op>: expected a weight <prepack> returned, got ..." otherwise.
const PackedWeight& packed_weight_of(const char* op, const char* prepack, const Tensor& w, bool conv);

/// The weights as the primitive wants them (`desc`): the packed bytes when they are in that layout, otherwise
/// (an input whose shape made oneDNN choose another layout) that layout's copy, packed on its first use.
dnnl::memory weight_memory(const PackedWeight& packed, const dnnl::memory::desc& desc);

/// The CallPlan of `packed` for `signature` (everything the call's primitive and bias depend on besides the
/// weight): a kept one, or `make()`'s, kept in place of the oldest.
std::shared_ptr<const PackedWeight::CallPlan> call_plan(const PackedWeight& packed, std::vector<double> signature,
                                                        const std::function<PackedWeight::CallPlan()>& make);

/// A primitive attribute with requantization: output scales per output channel (dim 1 of dst), fixed in the
/// primitive (oneDNN 2.6's int8 convolutions take no others; its matmul runs gemm:jit on plain weights instead of
/// the VNNI brgemm kernel for runtime ones, ~3x slower), then `post_ops`; and the src and dst zero points, given
/// at execution, each asked for only when it is not 0 (ReLU outputs, most activations of a converted model): a src
/// zero point costs the convolutions 4-9% for its compensation and keeps oneDNN off its brgemm kernels.
dnnl::primitive_attr requantize_attr(const dnnl::post_ops& post_ops, const std::vector<float>& scales,
                                     bool src_zero_point, bool dst_zero_point);

/// The execution arguments requantize_attr asks for (the zero points that are not 0) and the bias. The vectors must
/// outlive the execution.
struct Requantize {
  int32_t src_zero_point = 0, dst_zero_point = 0;
  std::span<const float> bias;  ///< in accumulator units (empty: no bias)
  dnnl::memory::dims bias_dims;  ///< the bias's dims in the primitive ({C_out}; {1, N} for a matmul)
  void add_to(std::unordered_map<int, dnnl::memory>& args) const;
};

}  // namespace tl::kernels::int8
