// ao/quantization/qconfig.cpp — PyTorch 1.13's default observer partials and QConfigs (qconfig.py, observer.py).
#include "ao/quantization/qconfig.h"

namespace tl::ao::quantization {

ObserverFactory default_observer() {
  return with_args<MinMaxObserver>(QuantRange{.quant_min = 0, .quant_max = 127});
}

ObserverFactory default_weight_observer() {
  return with_args<MinMaxObserver>(QuantRange{.dtype = QDType::QInt8, .qscheme = QScheme::PerTensorSymmetric});
}

ObserverFactory default_per_channel_weight_observer() {
  return with_args<PerChannelMinMaxObserver>(PerChannelMinMaxObserverOptions{
      .range = {.dtype = QDType::QInt8, .qscheme = QScheme::PerChannelSymmetric}});
}

ObserverFactory default_histogram_observer() {
  return with_args<HistogramObserver>(HistogramObserverOptions{.range = {.quant_min = 0, .quant_max = 127}});
}

ObserverFactory default_placeholder_observer() { return with_args<PlaceholderObserver>(PlaceholderObserverOptions{}); }

ObserverFactory default_reuse_input_observer() {
  return [] { return std::make_shared<ReuseInputObserver>(); };
}

ObserverFactory default_fixed_qparams_range_neg1to1_observer() {
  return with_args<FixedQParamsObserver>(FixedQParamsObserverOptions{.scale = 2.0 / 256.0, .zero_point = 128});
}

ObserverFactory default_fixed_qparams_range_0to1_observer() {
  return with_args<FixedQParamsObserver>(FixedQParamsObserverOptions{.scale = 1.0 / 256.0, .zero_point = 0});
}

QConfig default_qconfig() { return {default_observer(), default_weight_observer()}; }

QConfig default_reuse_input_qconfig() {
  return {default_reuse_input_observer(), [] { return std::make_shared<NoopObserver>(); }};
}

QConfig get_default_qconfig(const std::string& backend, int version) {
  TL_CHECK(version == 0, "Version number: ", version,
           " in get_default_qconfig is not supported. Version number must be 0");
  const auto histogram = [](bool reduce_range) {
    return with_args<HistogramObserver>(HistogramObserverOptions{.range = {.reduce_range = reduce_range}});
  };
  if (backend == "fbgemm" || backend == "x86") return {histogram(true), default_per_channel_weight_observer()};
  if (backend == "onednn") return {histogram(false), default_per_channel_weight_observer()};
  if (backend == "qnnpack") return {histogram(false), default_weight_observer()};
  return default_qconfig();
}

}  // namespace tl::ao::quantization
