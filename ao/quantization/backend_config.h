// ao/quantization/backend_config.h — PyTorch 1.13's BackendConfig as data: which op chains (patterns) a backend
// fuses and quantizes, and whether an op's output gets an observer of its own or shares its input's.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tl::ao::quantization {

/// torch.ao.quantization.backend_config.ObservationType.
enum class ObservationType : uint8_t {
  OutputUseDifferentObserverAsInput,  ///< conv, linear, add of two tensors: the output gets its own observer
  OutputShareObserverWithInput,       ///< maxpool, flatten, cat: the output's observer is the input's
};

/// One BackendPatternConfig. Ops are named as QConfigMapping names object types (qconfig_mapping.h).
struct BackendPatternConfig {
  /// The chain's ops, last first, as PyTorch's nested tuple reads: (ReLU, (BatchNorm2d, Conv2d)) is
  /// {"torch.nn.ReLU", "torch.nn.BatchNorm2d", "torch.nn.Conv2d"}; each op takes the next one's output as its
  /// first argument (the last op listed, the root, may take anything).
  std::vector<std::string> pattern;
  ObservationType observation_type = ObservationType::OutputUseDifferentObserverAsInput;
  /// Binary ops (add, mul): with one tensor argument the output shares its input's observer, with two it
  /// gets its own (PyTorch's _num_tensor_args_to_observation_type).
  bool binary = false;
  /// For a fusion pattern, the module the chain becomes ("torch.ao.nn.intrinsic.ConvReLU2d"; "torch.nn.Conv2d"
  /// for a conv with its batch norm folded); empty for patterns only observed.
  std::string fused_module;
  /// For functional conv / linear: the argument positions of the weight (observed with the qconfig's weight
  /// observer) and bias (left in float).
  std::optional<size_t> weight_index;
  std::optional<size_t> bias_index;
};

struct BackendConfig {
  std::string name;
  std::vector<BackendPatternConfig> configs;
};

/// get_native_backend_config() of PyTorch 1.13 (the fbgemm / qnnpack / onednn backends share it; 1.13 has no
/// onednn.py of its own), for the ops torchless traces: conv1d-3d, linear, batch norm and their fusions with
/// relu, add / mul (+relu), matmul, cat, the ops that keep their input's qparams (pooling, flatten, relu, view,
/// reshape ...), the default ops (hardswish, dropout, elu ...), layer norm and the fixed-qparams ops (sigmoid,
/// tanh, softmax, hardsigmoid). In PyTorch's order.
BackendConfig get_native_backend_config();

/// The patterns in the order matching tries them, as PyTorch's sorted_patterns_dict: chains first, longer
/// before shorter, then single ops, each group in `configs` order.
std::vector<const BackendPatternConfig*> sorted_patterns(const BackendConfig& config);

}  // namespace tl::ao::quantization
