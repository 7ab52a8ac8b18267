// nn/serialize.cpp — Module weights to and from safetensors. The file is read and validated in full
// before load_state_dict, which itself copies nothing unless every key fits: a failed load changes nothing.
#include "nn/serialize.h"

namespace tl::nn {

void save(const Module& module, const std::string& path, const SafetensorsMetadata& metadata) {
  save_safetensors(path, module.state_dict(), metadata);
}

IncompatibleKeys load(Module& module, const std::string& path, bool strict) {
  const NamedTensors tensors = load_safetensors(path);
  try {
    return module.load_state_dict(tensors, strict);
  } catch (const Error& e) {
    throw Error(detail::str_cat("load: ", path, ": ", e.what()));
  }
}

}  // namespace tl::nn
