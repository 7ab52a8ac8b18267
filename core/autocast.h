// core/autocast.h — torch.autocast("cpu", dtype=torch.bfloat16) in C++: mixed precision for a scope
// of the calling thread. Inside it, convolutions and matrix products cast their float32 inputs to
// bfloat16 and return bfloat16; losses cast bfloat16 inputs to float32; every other op runs in the
// dtypes it is given (PyTorch 1.13's CPU lists for the ops torchless has, see ops/autocast.cpp).
// Parameters stay float32 (the master weights): the casts are ops like any other, so autograd
// carries gradients back to float32 through them.
#pragma once

#include "core/dtype.h"

namespace tl {

struct AutocastOptions {
  DType dtype = DType::BFloat16;  ///< the lower precision; CPU autocast supports bfloat16 only
  bool enabled = true;            ///< false opens a scope with autocast off (a float32 island)
};

/// Usage (the forward pass and the loss, not backward() or the optimizer step):
///   {
///     tl::autocast scope;                        // torch.autocast("cpu", dtype=torch.bfloat16)
///     loss = criterion((*model)(x), y);
///   }
///   loss.backward();                             // runs each op's backward in its forward dtype
///   opt.step();
/// Scopes nest; each restores the state it found. Thread-local, as in PyTorch.
class autocast {
 public:
  explicit autocast(AutocastOptions options = {});
  ~autocast();
  autocast(const autocast&) = delete;
  autocast& operator=(const autocast&) = delete;

 private:
  bool previous_enabled_;
  DType previous_dtype_;
};

/// torch.is_autocast_cpu_enabled(): true inside an enabled autocast scope on this thread (false
/// within an op that autocast already cast, whose inner ops run as given).
bool is_autocast_enabled();
/// torch.get_autocast_cpu_dtype(): the lower precision of the innermost scope (bfloat16 outside).
DType get_autocast_dtype();

namespace detail {
/// RAII: turns autocast off on this thread for the ops an autocast cast runs, and back after.
class AutocastExcluded {
 public:
  AutocastExcluded();
  ~AutocastExcluded();
  AutocastExcluded(const AutocastExcluded&) = delete;
  AutocastExcluded& operator=(const AutocastExcluded&) = delete;

 private:
  bool previous_;
};
}  // namespace detail

}  // namespace tl
