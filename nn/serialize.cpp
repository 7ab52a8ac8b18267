// nn/serialize.cpp — Module weights to and from safetensors. The file is read and validated in full
// before load_state_dict, which itself copies nothing unless every key fits: a failed load changes nothing.
#include "nn/serialize.h"

namespace tl::nn {
namespace {

IncompatibleKeys load_tensors(Module& module, const StateDict& tensors, const std::string& name, bool strict) {
  try {
    return module.load_state_dict(tensors, strict);
  } catch (const Error& e) {
    throw Error(detail::str_cat("load: ", name, ": ", e.what()));
  }
}

}  // namespace

void save(const Module& module, const std::string& path, const SafetensorsMetadata& metadata) {
  save_safetensors(path, module.state_dict(), metadata);
}

IncompatibleKeys load(Module& module, const std::string& path, bool strict) {
  return load_tensors(module, load_safetensors(path), path, strict);
}

IncompatibleKeys load(Module& module, std::span<const std::byte> data, bool strict) {
  const std::string name = "<bytes>";
  return load_tensors(module, load_safetensors(data, name), name, strict);
}

}  // namespace tl::nn
