// nn/state_dict.h — the state dict type: tensors by name in a meaningful order. Module::state_dict() /
// load_state_dict() (nn/module.h) and the safetensors reader and writer (nn/safetensors.h) use it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tl::nn {

/// (dotted name, tensor) pairs, an ordered name->tensor map as in PyTorch (a safetensors file's
/// tensors come in its header order). Module::state_dict() lists, for each module in pre-order, its
/// parameters then its buffers (None entries skipped): conv1.weight, bn1.weight, bn1.bias,
/// bn1.running_mean, bn1.running_var, bn1.num_batches_tracked, layer1.0.conv1.weight, ...
/// Its tensors alias the module's: writing into them writes into the module.
using StateDict = std::vector<std::pair<std::string, Tensor>>;

/// Deprecated in 0.2.0, removed in 0.3.0: the name->tensor map is StateDict (CHANGELOG.md).
using NamedTensors [[deprecated("tl::nn::NamedTensors is tl::nn::StateDict now")]] = StateDict;

/// What load_state_dict(dict, strict=false) could not match (PyTorch's _IncompatibleKeys):
/// model keys absent from the dict, in model order, and dict keys the model has no place for,
/// in dict order.
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

}  // namespace tl::nn
