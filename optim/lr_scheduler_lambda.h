// optim/lr_scheduler_lambda.h — the schedulers that take a function of the epoch: LambdaLR and
// MultiplicativeLR (torch.optim.lr_scheduler's). The functions are not part of their state dicts.
#pragma once

#include <functional>
#include <vector>

#include "optim/lr_scheduler.h"

namespace tl::optim::lr_scheduler {

/// LambdaLR's and MultiplicativeLR's lr_lambda: a factor for an epoch (PyTorch passes last_epoch).
using LrLambda = std::function<double(double epoch)>;

/// Sets each group's lr to its base lr times lr_lambda(last_epoch): one function for every group, or one
/// per group (tl::Error unless there are as many as groups). The functions are not part of the state dict.
class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& optimizer, LrLambda lr_lambda);
  LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas);
  const char* kind() const override { return "LambdaLR"; }

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

/// Multiplies each group's lr by lr_lambda(last_epoch) every step after the first; functions as LambdaLR's.
class MultiplicativeLR : public LRScheduler {
 public:
  MultiplicativeLR(Optimizer& optimizer, LrLambda lr_lambda);
  MultiplicativeLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas);
  const char* kind() const override { return "MultiplicativeLR"; }

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

}  // namespace tl::optim::lr_scheduler
