// optim/lr_scheduler_lambda.cpp — LambdaLR (base lr times the function) and MultiplicativeLR (the current lr
// times it), as PyTorch 1.13's get_lr.
#include "optim/lr_scheduler_lambda.h"

#include <algorithm>

#include "core/error.h"

namespace tl::optim::lr_scheduler {

namespace {
// A list of lr_lambdas checked against the groups (one lambda is repeated for every group before).
std::vector<LrLambda> per_group(const char* kind, const Optimizer& optimizer, std::vector<LrLambda> lambdas) {
  const size_t groups = optimizer.param_groups().size();
  TL_CHECK(lambdas.size() == groups, kind, ": Expected ", groups, " lr_lambdas, but got ", lambdas.size());
  for (const LrLambda& f : lambdas) TL_CHECK(f != nullptr, kind, ": an lr_lambda is empty");
  return lambdas;
}
}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, LrLambda lr_lambda)
    : LambdaLR(optimizer, std::vector<LrLambda>(optimizer.param_groups().size(), std::move(lr_lambda))) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas)
    : LRScheduler(optimizer, {}), lr_lambdas_(per_group("LambdaLR", optimizer, std::move(lr_lambdas))) {
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (size_t g = 0; g < std::min(lr_lambdas_.size(), base_lrs_.size()); ++g)
    lrs.push_back(base_lrs_[g] * lr_lambdas_[g](last_epoch_));
  return lrs;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, LrLambda lr_lambda)
    : MultiplicativeLR(optimizer, std::vector<LrLambda>(optimizer.param_groups().size(), std::move(lr_lambda))) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas)
    : LRScheduler(optimizer, {}),
      lr_lambdas_(per_group("MultiplicativeLR", optimizer, std::move(lr_lambdas))) {
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lr() {
  if (last_epoch_ <= 0) return scaled_lrs(1);
  const auto& groups = optimizer_.param_groups();
  std::vector<double> lrs;
  for (size_t g = 0; g < std::min(lr_lambdas_.size(), groups.size()); ++g)
    lrs.push_back(option(groups[g].options, "lr") * lr_lambdas_[g](last_epoch_));
  return lrs;
}

}  // namespace tl::optim::lr_scheduler
