// ao/quantization/qconfig.h — QConfig, PyTorch 1.13's torch.ao.quantization.QConfig: how to observe a node's
// output activation and its weight, each as a constructor of a fresh observer (PyTorch's with_args partial).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "ao/quantization/observer.h"

namespace tl::ao::quantization {

/// Makes one new observer per call, as PyTorch's `Observer.with_args(...)` partial does.
using ObserverFactory = std::function<std::shared_ptr<ObserverBase>()>;

/// `Observer.with_args(options)`: a factory of observers of type O built from `options`.
template <class O, class Options>
ObserverFactory with_args(Options options) {
  return [options] { return std::make_shared<O>(options); };
}

/// QConfig(activation, weight): both must be set (PyTorch refuses an observer instance in their place; here
/// the type says so).
struct QConfig {
  ObserverFactory activation;
  ObserverFactory weight;
};

// PyTorch's named observer partials (torch/ao/quantization/observer.py).
/// MinMaxObserver.with_args(quant_min=0, quant_max=127).
ObserverFactory default_observer();
/// MinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric).
ObserverFactory default_weight_observer();
/// PerChannelMinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_channel_symmetric).
ObserverFactory default_per_channel_weight_observer();
/// HistogramObserver.with_args(quant_min=0, quant_max=127).
ObserverFactory default_histogram_observer();
/// PlaceholderObserver (dtype torch.float32).
ObserverFactory default_placeholder_observer();
/// ReuseInputObserver.
ObserverFactory default_reuse_input_observer();
/// FixedQParamsObserver.with_args(scale=2/256, zero_point=128): outputs in [-1, 1] (tanh).
ObserverFactory default_fixed_qparams_range_neg1to1_observer();
/// FixedQParamsObserver.with_args(scale=1/256, zero_point=0): outputs in [0, 1] (sigmoid, softmax).
ObserverFactory default_fixed_qparams_range_0to1_observer();

/// QConfig(default_observer, default_weight_observer).
QConfig default_qconfig();
/// QConfig(default_reuse_input_observer, NoopObserver): what "reshape" gets in the default mappings.
QConfig default_reuse_input_qconfig();
/// get_default_qconfig(backend, version=0): HistogramObserver activations (reduce_range for "fbgemm" and
/// "x86", not for "onednn" and "qnnpack") and per-channel symmetric qint8 weights (per-tensor for
/// "qnnpack"); default_qconfig() for any other backend, as PyTorch. Throws tl::Error for a version other
/// than 0, with PyTorch's text.
QConfig get_default_qconfig(const std::string& backend = "fbgemm", int version = 0);

}  // namespace tl::ao::quantization
