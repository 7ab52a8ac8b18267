// models/registry.h — torchvision.models' model registry for the classification families: every builder by its
// name, as torchvision.models.get_model / list_models(module=torchvision.models) give them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nn/module.h"

namespace tl::models {

/// The keyword arguments get_model passes on to every builder (each builder's own options struct has more).
struct ModelConfig {
  int64_t num_classes = 1000;
};

/// The classification builders' names, sorted: torchvision.models.list_models(module=torchvision.models).
std::vector<std::string> list_models();

/// torchvision.models.get_model(name, num_classes=...): the named builder's model, its other options at their
/// defaults. The name is matched in lower case, as torchvision does; an unknown one is a tl::Error with
/// torchvision's message ("Unknown model <name>").
std::shared_ptr<nn::Module> get_model(const std::string& name, const ModelConfig& config = {});

}  // namespace tl::models
