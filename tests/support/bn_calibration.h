// tests/support/bn_calibration.h — trained-looking BatchNorm2d statistics for pass tests: random
// affine parameters, and running mean/var set from the actual statistics of each BN's input on one
// eval pass (times a small jitter), so logits stay O(1) as in a trained network instead of growing
// through every residual block.
#pragma once

#include "nn/module.h"

namespace tl::testing {

/// Randomises every BatchNorm2d of `model` as described above, using an input of `input_shape`
/// drawn from the default generator (float32, converted to the dtype of the model's first parameter);
/// `model`'s training flag is left as it was.
void calibrate_batch_norms(nn::Module& model, const Shape& input_shape);

}  // namespace tl::testing
