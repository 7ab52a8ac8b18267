// ops/loss.h — what every loss kernel shares (internal to ops/): the reduction code's check, the
// (self, target) pair's check, and ATen's apply_loss_reduction.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace tl::detail {

/// `reduction` itself when it is 0 (none), 1 (mean) or 2 (sum); throws tl::Error naming `op` otherwise.
int64_t checked_reduction(int64_t reduction, const char* op);
/// self of a floating dtype, target of self's dtype and shape; throws tl::Error naming `op` otherwise.
void check_loss_pair(const Tensor& self, const Tensor& target, const char* op);
/// ATen's apply_loss_reduction: the loss itself (none), loss.mean() or loss.sum(), through the ops.
Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction);

}  // namespace tl::detail
