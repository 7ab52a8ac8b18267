// fx/passes/inference_modules.h — the leaf modules optimize_for_inference puts in a graph: a conv with
// its residual add and ReLU folded in, and pools on the inference layouts. Each runs one op
// through the dispatcher (so tracing and profiling see it) and can write into a preallocated `out`.
#pragma once

#include <memory>
#include <string>

#include "fx/passes/packed_weight_cache.h"
#include "nn/conv.h"
#include "nn/module.h"
#include "nn/pooling.h"

namespace tl::fx {

/// A module whose forward can write its result into a tensor the caller planned (an activation arena).
class InferenceModule : public nn::Module {
 public:
  /// Runs forward on `inputs`, writing into `out` when it is defined (it must then have exactly the
  /// layout forward would allocate); returns the result.
  virtual Tensor run(std::span<const Tensor> inputs, const Tensor& out) = 0;
  /// The position of an input whose memory the result may take over when nothing reads that input
  /// afterwards (the memory planner then gives `out` the input's bytes), or -1.
  virtual int64_t reusable_input() const { return -1; }
  /// The channel count of input `index` (what a conversion into the inference layout blocks or pads),
  /// or -1 when the module takes its inputs' channels as they come.
  virtual int64_t input_channels(size_t /*index*/) const { return -1; }
  /// Whether input `index` may stay dense NCHW: the module reads it without a conversion.
  virtual bool reads_dense(size_t /*index*/) const { return false; }
  /// Whether the module takes its inputs in the inference layout at all; one that does not (MkldnnLinear) reads
  /// dense tensors, converted back before it as for any eager op.
  virtual bool takes_inference_layout() const { return true; }
  using nn::Module::forward;
  TensorList forward(nn::Inputs inputs) override { return {run(inputs.tensors(), Tensor())}; }
  bool is_leaf() const override { return true; }
};

/// A module that can take over the add a converted int8 graph runs on its result, torch.ops.quantized.add(_relu)(
/// result, other, scale, zero_point) (a residual add), as oneDNN's sum post-op: the quantized convolutions
/// (ao/nn/quantized.h) implement it, and optimize_for_inference folds such an add into them.
class FusesQuantizedAdd {
 public:
  virtual ~FusesQuantizedAdd() = default;
  /// A module computing this one's result plus its second input `other`, ReLU'd when `relu`, rounded to (scale,
  /// zero_point) exactly as the add after this module would; nullptr when this one cannot.
  virtual std::shared_ptr<nn::Module> with_quantized_add(bool relu, double scale, int64_t zero_point) const = 0;
};

/// Conv2d (+ residual add) (+ ReLU) as one mkldnn_convolution. forward(x) or forward(x, other):
/// x is a blocked (N, C_in / 16, H, W, 16) or dense NCHW float32 tensor, or a bf16 NHWC one; other
/// (the residual, present iff built with `sum`) has the result's layout. The weight is reordered into
/// the primitive's layout once per input signature and kept (the kMaxPackedShapes most recently used) until
/// the weight changes (an in-place write, such as an optimizer step or load_state_dict, or another tensor
/// registered as "weight"): the next call packs it again.
class MkldnnConv2d : public InferenceModule {
 public:
  static constexpr size_t kMaxPackedShapes = PackedWeightCache::kMaxEntries;
  /// `conv` must be in eval mode; its weight and bias tensors are shared, not copied. `dtype` is the
  /// activations' dtype (float32 or bfloat16); the bias stays float32. `winograd` asks for Winograd
  /// where it applies (a float32 3x3 stride-1 conv without groups or dilation; the packed weight then
  /// holds 4x4 or 6x6 transformed tiles, up to 4x larger); elsewhere it is ignored, and a call whose
  /// input or residual holds NaN or inf runs the direct kernel (Winograd would turn ±inf into NaN).
  MkldnnConv2d(const nn::Conv2d& conv, bool sum, bool relu, DType dtype, bool winograd = false);
  MkldnnConv2d(const MkldnnConv2d& other);

  Tensor run(std::span<const Tensor> inputs, const Tensor& out) override;
  /// With `sum`, the residual: oneDNN's sum post-op accumulates into dst, so dst may be its memory.
  int64_t reusable_input() const override { return sum_ ? 1 : -1; }
  /// in_channels for x, out_channels for the residual.
  int64_t input_channels(size_t index) const override {
    return index == 0 ? options_.in_channels : options_.out_channels;
  }
  /// A float32 conv of fewer than 8 input channels (an image) reads it dense: blocked, 3 channels would
  /// pad to 16, and oneDNN's first-layer kernels take NCHW. From 8 channels on, a dense input has no JIT
  /// kernel (oneDNN runs its reference one), so it is blocked first.
  bool reads_dense(size_t index) const override {
    return index == 0 && dtype_ == DType::Float32 && options_.in_channels < 8;
  }
  std::string type_name() const override { return "MkldnnConv2d"; }
  /// forward(x) or, with `sum`, forward(x, other).
  nn::ForwardSignature forward_signature() const override;
  /// "64, 64, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), post_ops=[sum, relu], algorithm=winograd".
  std::string extra_repr() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MkldnnConv2d>(); }

  const nn::Conv2dOptions& options() const { return options_; }
  bool sum() const { return sum_; }
  bool relu() const { return relu_; }
  DType dtype() const { return dtype_; }
  bool winograd() const { return winograd_; }

 private:
  /// The weight prepacked for `x`'s sizes, strides and dtype and for Winograd or direct convolution
  /// (packed on first use): a 1-D tensor whose storage carries the packed weight and its oneDNN layout.
  Tensor packed_weight(const Tensor& x, bool winograd);

  nn::Conv2dOptions options_;
  nn::IntPair padding_ = 0;  ///< the zeros the convolution adds (nn::symmetric_zero_padding of options_)
  bool sum_, relu_;
  DType dtype_;
  bool winograd_;
  std::shared_ptr<PackedWeightCache> packed_ = std::make_shared<PackedWeightCache>();
};

/// MaxPool2d on a blocked or NHWC activation (mkldnn_max_pool2d); same options and repr.
class MkldnnMaxPool2d : public InferenceModule {
 public:
  explicit MkldnnMaxPool2d(const nn::MaxPool2dOptions& options) : options_(options) {}
  Tensor run(std::span<const Tensor> inputs, const Tensor& out) override;
  std::string type_name() const override { return "MkldnnMaxPool2d"; }
  std::string extra_repr() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MkldnnMaxPool2d>(); }

 private:
  nn::MaxPool2dOptions options_;
};

/// AdaptiveAvgPool2d on a blocked or NHWC activation (mkldnn_adaptive_avg_pool2d).
class MkldnnAdaptiveAvgPool2d : public InferenceModule {
 public:
  explicit MkldnnAdaptiveAvgPool2d(nn::IntPair output_size) : output_size_(output_size) {}
  Tensor run(std::span<const Tensor> inputs, const Tensor& out) override;
  std::string type_name() const override { return "MkldnnAdaptiveAvgPool2d"; }
  std::string extra_repr() const override { return "output_size=" + output_size_.repr(); }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MkldnnAdaptiveAvgPool2d>(); }

 private:
  nn::IntPair output_size_;
};

}  // namespace tl::fx
