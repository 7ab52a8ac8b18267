// nn/inputs.h — nn::Inputs, how forward() receives its tensors: a view of the call's list whose []
// checks the index, so a forward reading an input its module never declared throws instead of reading
// past the list (eager or while tracing). The check is one compare on a span.
#pragma once

#include <cstddef>
#include <span>

#include "core/tensor.h"

namespace tl::nn {

class Module;

/// The tensors of one forward() call: one per argument of the module's forward_signature() when called
/// through Module::operator(). A view: valid while the list it was made from lives (the call).
class Inputs {
 public:
  /// `module` is the one whose forward() receives `tensors` (it names the module in errors).
  Inputs(const Module& module, std::span<const Tensor> tensors) : module_(&module), tensors_(tensors) {}

  /// Input `i`. Throws tl::Error naming the module, `i` and forward_signature() when i >= size():
  /// "ReadsTwo.forward read input 1, but forward_signature() declares 1 input(s) (x); ...".
  const Tensor& operator[](size_t i) const {
    if (i >= tensors_.size()) [[unlikely]]
      throw_out_of_range(i);
    return tensors_[i];
  }
  size_t size() const { return tensors_.size(); }
  auto begin() const { return tensors_.begin(); }
  auto end() const { return tensors_.end(); }
  /// All of them, to pass on (ExecutionPlan::run, an inner call).
  std::span<const Tensor> tensors() const { return tensors_; }

 private:
  [[noreturn]] void throw_out_of_range(size_t i) const;

  const Module* module_;
  std::span<const Tensor> tensors_;
};

}  // namespace tl::nn
