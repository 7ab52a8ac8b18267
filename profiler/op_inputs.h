// profiler/op_inputs.h — an op call's arguments as the profiler reports them: one shape and one
// kineto type name per schema argument, in schema order (record_shapes).
#pragma once

#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/record_function.h"

namespace tl::profiler {

/// Fills `shapes` and `types` (replacing their contents) for `call`: a tensor argument gives its
/// sizes and its dtype's C++ name ("float", "long int"), a tensor list gives [] and "TensorList",
/// every other argument gives [] and its kind ("Scalar", "Int", "Double", "Bool", "ScalarList",
/// "String"), None gives [] and "". A Scalar passed for a Tensor parameter (`x + 1`) is "Scalar".
/// The list is PyTorch's for the overload ATen records: where the op's schema row lacks PyTorch's
/// trailing arguments (batch_norm's cudnn_enabled, add's alpha ...) they show as None.
void describe_inputs(const OpCall& call, std::vector<Shape>& shapes, std::vector<std::string>& types);

/// The same for a Function scope's arguments (core/record_function.h): a tensor as above, any other
/// value as a non-tensor argument.
void describe_inputs(const ScopeArgs& args, std::vector<Shape>& shapes, std::vector<std::string>& types);

}  // namespace tl::profiler
