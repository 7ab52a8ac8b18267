// tests/support/bn_calibration.cpp — BatchNorm2d calibration through a module hook: the hook runs
// before each BN's forward, so every layer normalises with statistics of what it really receives.
#include "tests/support/bn_calibration.h"

#include <vector>

#include "core/grad_mode.h"
#include "nn/batch_norm.h"
#include "nn/module_hook.h"
#include "ops/ops.h"

namespace tl::testing {
namespace {

class Calibrator : public nn::ModuleHook {
 public:
  void before(nn::Module& m, const TensorList& inputs) override {
    auto* bn = dynamic_cast<nn::BatchNorm2d*>(&m);
    if (!bn || !bn->buffer("running_mean").defined()) return;
    const Tensor& x = inputs.at(0);  // (N, C, H, W)
    const Shape c{bn->options().num_features};
    const Tensor mean = x.mean({0, 2, 3});
    const Tensor var = (x - mean.view({1, c[0], 1, 1})).pow(2.0).mean({0, 2, 3});
    bn->buffer("running_mean").copy_(mean + randn(c) * 0.05);
    bn->buffer("running_var").copy_(var * (rand(c) * 0.4 + 0.8));
  }
};

}  // namespace

void calibrate_batch_norms(nn::Module& model, const Shape& input_shape) {
  NoGradGuard no_grad;  // writes parameters in place, as `with torch.no_grad():` would
  for (const auto& [path, m] : model.named_modules()) {
    auto* bn = dynamic_cast<nn::BatchNorm2d*>(m.get());
    if (!bn || !bn->parameter("weight").defined()) continue;
    const Shape c{bn->options().num_features};
    bn->parameter("weight").copy_(rand(c) + 0.5);
    bn->parameter("bias").copy_(randn(c) * 0.1);
  }
  const bool training = model.is_training();
  model.eval();
  const std::vector<Tensor> params = model.parameters();
  const DType dtype = params.empty() ? DType::Float32 : params.front().dtype();
  Calibrator calibrator;
  {
    nn::ModuleHookGuard guard(&calibrator);
    model(randn(input_shape).to(dtype));
  }
  model.train(training);
}

}  // namespace tl::testing
