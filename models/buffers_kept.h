// models/buffers_kept.h — a zoo model's forward that throws leaves the model as it was: the statistics a training-mode
// BatchNorm updated before a later layer refused the input (an image too small for a pool) are put back.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "nn/module.h"

namespace tl::models {

/// Declared first in a model's forward: in training mode it copies the bytes of every buffer of `model` (no op runs,
/// so profiles and traces see nothing) and, when the forward throws, writes them back. In eval mode no layer writes
/// a buffer, and it does nothing.
class BuffersKeptOnError {
 public:
  explicit BuffersKeptOnError(const nn::Module& model);
  ~BuffersKeptOnError();
  BuffersKeptOnError(const BuffersKeptOnError&) = delete;
  BuffersKeptOnError& operator=(const BuffersKeptOnError&) = delete;

 private:
  std::vector<std::pair<Tensor, std::vector<std::byte>>> saved_;
  int uncaught_;
};

}  // namespace tl::models
