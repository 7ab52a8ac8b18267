// ao/quantization/observer.h — PyTorch 1.13's torch.ao.quantization.observer: modules that pass their input
// through and record its range (or histogram), and compute (scale, zero_point) from it in float32 exactly as
// PyTorch does. Their buffers (eps, min_val, max_val, histogram) are PyTorch's, by name and order.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/quantizer.h"
#include "nn/module.h"

namespace tl::ao::quantization {

/// The dtypes a QConfig names: torch.quint8, torch.qint8, torch.qint32, and torch.float16 / torch.float32
/// (PlaceholderObserver's, for what stays floating point). Quantized tensors come with convert_fx (#33).
enum class QDType : uint8_t { QUInt8, QInt8, QInt32, Float16, Float32 };
/// "torch.quint8", ...
const char* qdtype_name(QDType dtype);

/// torch.qscheme, the core's (core/quantizer.h): the observers use all four, a quantized tensor the affine two.
using ::tl::QScheme;
using ::tl::qscheme_name;
using ::tl::is_per_tensor;

/// torch.finfo(torch.float32).eps, the observers' default eps.
inline constexpr double kFloat32Eps = std::numeric_limits<float>::epsilon();

/// (scale, zero_point) as calculate_qparams returns them: scale float32 of shape [1] (per tensor) or [C];
/// zero_point int32 for affine schemes, int64 for symmetric ones and for the uncalibrated default, as
/// PyTorch's arithmetic leaves them.
struct QParams {
  Tensor scale;
  Tensor zero_point;
};

/// ObserverBase: a module whose forward returns its input unchanged after recording it.
class ObserverBase : public tl::nn::Module {
 public:
  explicit ObserverBase(QDType dtype) : dtype_(dtype) {}
  QDType dtype() const { return dtype_; }
  /// Throws tl::Error naming the observer when its statistics give no valid parameters (see subclasses).
  virtual QParams calculate_qparams() const = 0;
  bool is_leaf() const override { return true; }

 private:
  QDType dtype_;
};

/// The arguments UniformQuantizationObserverBase takes (each observer's options hold them too).
struct QuantRange {
  QDType dtype = QDType::QUInt8;
  QScheme qscheme = QScheme::PerTensorAffine;
  bool reduce_range = false;
  std::optional<int64_t> quant_min;  ///< both or neither: a customized range
  std::optional<int64_t> quant_max;
  double eps = kFloat32Eps;
};

/// UniformQuantizationObserverBase: the quantized range (quant_min, quant_max) as calculate_qmin_qmax
/// derives it, the `eps` buffer, and _calculate_qparams. Throws tl::Error (PyTorch's assertion texts) for a
/// dtype other than quint8 / qint8 / qint32, or a customized range that excludes 0 or is empty or too wide.
class UniformQuantizationObserverBase : public ObserverBase {
 public:
  explicit UniformQuantizationObserverBase(const QuantRange& range);
  QScheme qscheme() const { return qscheme_; }
  bool reduce_range() const { return reduce_range_; }
  int64_t quant_min() const { return quant_min_; }
  int64_t quant_max() const { return quant_max_; }
  /// calculate_from(min_val, max_val) of the subclass's buffers (every subclass records these two).
  QParams calculate_qparams() const override;
  /// "min_val=inf, max_val=-inf": PyTorch formats a 0-dim buffer as its float, others as str(tensor).
  std::string extra_repr() const override;

 protected:
  /// PyTorch's _calculate_qparams over float32 min/max tensors (0-dim or [C]). Returns (1.0, 0) with
  /// PyTorch's warning when nothing was observed; throws tl::Error naming the observer when a min is
  /// NaN or above its max (PyTorch's assertion) or the range is infinite (PyTorch returns an inf scale).
  QParams calculate_from(const Tensor& min_val, const Tensor& max_val) const;
  /// Throws tl::Error naming the class `name` unless the qscheme is per-tensor (per_tensor = true) or
  /// per-channel, or when a symmetric scheme reduces the range of quint8.
  void check_qscheme(const char* name, bool per_tensor) const;

 private:
  QScheme qscheme_;
  bool reduce_range_;
  bool has_customized_qrange_;
  int64_t quant_min_ = 0;
  int64_t quant_max_ = 0;
};

/// MinMaxObserver(dtype=quint8, qscheme=per_tensor_affine, reduce_range=False, quant_min=None,
/// quant_max=None, eps=finfo(float32).eps): the running min and max.
class MinMaxObserver : public UniformQuantizationObserverBase {
 public:
  explicit MinMaxObserver(const QuantRange& options = {});
  using tl::nn::Module::forward;
  /// x (any shape; an empty one is not recorded) is returned as it is.
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<MinMaxObserver>(); }
  /// True once a non-empty tensor was observed.
  bool observed() const;

 protected:
  /// Checks `options` as the class named `name` (a constructor cannot ask type_name()).
  MinMaxObserver(const QuantRange& options, const char* name);
};

struct MovingAverageMinMaxObserverOptions {
  double averaging_constant = 0.01;
  QuantRange range;
};

/// MovingAverageMinMaxObserver: min/max move by averaging_constant * (batch's - running) after the first.
class MovingAverageMinMaxObserver : public MinMaxObserver {
 public:
  explicit MovingAverageMinMaxObserver(const MovingAverageMinMaxObserverOptions& options = {});
  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<MovingAverageMinMaxObserver>(); }

 private:
  double averaging_constant_;
};

struct PerChannelMinMaxObserverOptions {
  int64_t ch_axis = 0;
  QuantRange range{.qscheme = QScheme::PerChannelAffine};
};

/// PerChannelMinMaxObserver: min_val / max_val of shape [C] (C = x.size(ch_axis)), empty until observed.
class PerChannelMinMaxObserver : public UniformQuantizationObserverBase {
 public:
  explicit PerChannelMinMaxObserver(const PerChannelMinMaxObserverOptions& options = {});
  using tl::nn::Module::forward;
  /// Throws tl::Error, recording nothing, when ch_axis is out of x's range or x's channel count differs
  /// from the one already recorded.
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<PerChannelMinMaxObserver>(); }
  int64_t ch_axis() const { return ch_axis_; }

 private:
  int64_t ch_axis_;
};

struct HistogramObserverOptions {
  int64_t bins = 2048;
  int64_t upsample_rate = 128;
  QuantRange range;
};

/// HistogramObserver: a running histogram of `bins` bins over [min_val, max_val], widened as new batches
/// arrive (_combine_histograms), and calculate_qparams over the min/max that _non_linear_param_search
/// picks to minimise the L2 quantization error. All of it in float32 as PyTorch 1.13 computes it, including
/// its torch.histc range truncated to integers.
class HistogramObserver : public UniformQuantizationObserverBase {
 public:
  explicit HistogramObserver(const HistogramObserverOptions& options = {});
  using tl::nn::Module::forward;
  /// Throws tl::Error naming the observer, recording nothing, when x holds NaN or ±inf (PyTorch fails
  /// converting them to int).
  Tensor forward(const Tensor& x) override;
  QParams calculate_qparams() const override;
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<HistogramObserver>(); }
  int64_t bins() const { return bins_; }
  int64_t upsample_rate() const { return upsample_rate_; }

 private:
  /// (min, max) of the histogram's range chosen by _non_linear_param_search.
  std::pair<float, float> non_linear_param_search() const;
  float quantization_error(int64_t next_start_bin, int64_t next_end_bin) const;
  int64_t bins_;
  int64_t upsample_rate_;
  int64_t dst_nbins_;
};

struct PlaceholderObserverOptions {
  QDType dtype = QDType::Float32;
  std::string custom_op_name;
  std::optional<QDType> compute_dtype;
};

/// PlaceholderObserver: records nothing; carries a dtype for what convert_fx leaves unquantized (float16)
/// or quantizes dynamically. calculate_qparams throws, as PyTorch's does.
class PlaceholderObserver : public ObserverBase {
 public:
  explicit PlaceholderObserver(const PlaceholderObserverOptions& options = {});
  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override { return x; }
  QParams calculate_qparams() const override;
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<PlaceholderObserver>(); }
  const std::optional<QDType>& compute_dtype() const { return compute_dtype_; }

 private:
  std::string custom_op_;
  std::optional<QDType> compute_dtype_;
};

struct FixedQParamsObserverOptions {
  double scale = 1.0;
  int64_t zero_point = 0;
  QDType dtype = QDType::QUInt8;
  QScheme qscheme = QScheme::PerTensorAffine;
  int64_t quant_min = 0;
  int64_t quant_max = 255;
};

/// FixedQParamsObserver: ops whose output range is known (sigmoid, tanh, softmax, hardsigmoid); buffers
/// `scale` (float32 [1]) and `zero_point` (int32 [1]), returned by calculate_qparams.
class FixedQParamsObserver : public ObserverBase {
 public:
  explicit FixedQParamsObserver(const FixedQParamsObserverOptions& options = {});
  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override { return x; }
  QParams calculate_qparams() const override;
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<FixedQParamsObserver>(); }
  QScheme qscheme() const { return qscheme_; }
  int64_t quant_min() const { return quant_min_; }
  int64_t quant_max() const { return quant_max_; }

 private:
  QScheme qscheme_;
  int64_t quant_min_;
  int64_t quant_max_;
};

/// ReuseInputObserver (quint8): an op such as reshape shares its input's observer; calculate_qparams throws.
class ReuseInputObserver : public ObserverBase {
 public:
  ReuseInputObserver() : ObserverBase(QDType::QUInt8) {}
  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override { return x; }
  QParams calculate_qparams() const override;
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<ReuseInputObserver>(); }
};

/// NoopObserver(dtype=float16): records nothing; calculate_qparams throws.
class NoopObserver : public ObserverBase {
 public:
  explicit NoopObserver(QDType dtype = QDType::Float16) : ObserverBase(dtype) {}
  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override { return x; }
  QParams calculate_qparams() const override;
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<NoopObserver>(); }
};

}  // namespace tl::ao::quantization
