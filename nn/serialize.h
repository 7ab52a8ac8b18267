// nn/serialize.h — saves and loads a Module's state dict as a safetensors file (torch.save /
// load_state_dict for weights, in the format Hugging Face and converted torchvision checkpoints use).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "nn/module.h"
#include "nn/safetensors.h"

namespace tl::nn {

/// Writes module.state_dict() (parameters and buffers, num_batches_tracked included, under PyTorch's
/// dotted names) to `path` with `metadata`. Throws tl::Error naming the file when it cannot be written;
/// an existing file is then left untouched.
void save(const Module& module, const std::string& path, const SafetensorsMetadata& metadata = {});

/// Reads the safetensors file at `path` and copies it into `module` with load_state_dict(dict, strict)
/// (dtypes converted, tensor identity kept). Throws tl::Error naming the file for an unreadable or
/// invalid file and for any load_state_dict error; in every such case the module is unchanged.
/// With strict=false, returns the keys that did not match.
IncompatibleKeys load(Module& module, const std::string& path, bool strict = true);

/// load(module, path, strict) for a safetensors file held in memory; "<bytes>" stands for the file
/// in error messages.
IncompatibleKeys load(Module& module, std::span<const std::byte> data, bool strict = true);

}  // namespace tl::nn
