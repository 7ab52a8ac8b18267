// nn/clone_memo.h — Module::clone() started from a memo, as Python's copy.deepcopy(module, memo): what the
// memo maps stands for its own copy, so a pass that replaces some modules or tensors copies only the rest.
#pragma once

#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "nn/module.h"

namespace tl::nn {

/// What a deep copy has copied so far: each original and the object that is its copy.
struct CloneMemo {
  std::vector<std::pair<Tensor, Tensor>> tensors;
  std::unordered_map<const Module*, std::shared_ptr<Module>> modules;
};

/// module.clone(), except that each module or tensor `memo` maps is replaced by its mapped value, taken as
/// it is (a tensor keeps its requires_grad), instead of being copied; what the copy makes is added to
/// `memo`. `module` itself is copied even when mapped. Throws what clone() throws.
std::shared_ptr<Module> clone(const Module& module, CloneMemo& memo);

}  // namespace tl::nn
