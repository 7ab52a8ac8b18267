// models/buffers_kept.cpp — the bytes of a training-mode model's buffers, written back when its forward throws.
#include "models/buffers_kept.h"

#include <cstring>
#include <exception>

namespace tl::models {

BuffersKeptOnError::BuffersKeptOnError(const nn::Module& model) : uncaught_(std::uncaught_exceptions()) {
  if (!model.is_training()) return;
  for (const auto& named : model.named_buffers()) {
    const Tensor& t = named.second;
    if (!t.defined()) continue;
    TL_INTERNAL_ASSERT(t.is_contiguous(), "BuffersKeptOnError: buffer '", named.first, "' is not contiguous");
    const auto* bytes = static_cast<const std::byte*>(t.raw_data());
    saved_.emplace_back(t, std::vector<std::byte>(bytes, bytes + t.nbytes()));
  }
}

BuffersKeptOnError::~BuffersKeptOnError() {
  if (std::uncaught_exceptions() <= uncaught_) return;
  for (const auto& [tensor, bytes] : saved_) std::memcpy(tensor.raw_data(), bytes.data(), bytes.size());
}

}  // namespace tl::models
