// optim/optimizer.cpp — param groups, step's loop, zero_grad and the state dict of every optimizer.
// Each public call validates everything first and changes the optimizer only afterwards.
#include "optim/optimizer.h"

#include <algorithm>
#include <utility>

#include "core/autocast.h"
#include "core/error.h"
#include "core/grad_mode.h"
#include "core/record_function.h"
#include "ops/ops.h"

namespace tl::optim {

double option(const Hyperparameters& options, const std::string& key) {
  const auto it = options.find(key);
  TL_INTERNAL_ASSERT(it != options.end(), "optimizer option ", key, " missing from a complete group");
  return it->second;
}

void Optimizer::add_first_group(std::vector<Tensor> params) {
  TL_CHECK(!params.empty(), "optimizer got an empty parameter list");
  add_param_group(std::move(params));
}

Hyperparameters Optimizer::complete(const Hyperparameters& options) const {
  Hyperparameters full = defaults_;
  for (const auto& [key, value] : options) {
    // initial_lr is the schedulers' entry (PyTorch keeps it in the group as well).
    TL_CHECK(defaults_.count(key) || key == "initial_lr", kind(), ": unknown option '", key,
             "' in a parameter group");
    full[key] = value;
  }
  check_options(full);
  return full;
}

void Optimizer::add_param_group(std::vector<Tensor> params, const Hyperparameters& options) {
  TL_CHECK(!params.empty(), "optimizer got an empty parameter list");
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    TL_CHECK(p.defined(), kind(), ": parameter ", i, " of the group is undefined (None)");
    TL_CHECK(is_floating_point(p.dtype()), kind(), ": can only optimize floating-point tensors, parameter ", i,
             " is ", p.dtype());
    TL_CHECK(p.is_leaf(), "can't optimize a non-leaf Tensor (parameter ", i, " of the group)");
    // One dtype per optimizer: bfloat16 compute keeps float32 parameters and runs under tl::autocast.
    const Tensor& first = groups_.empty() ? params[0] : groups_[0].params[0];
    TL_CHECK(p.dtype() == first.dtype(), kind(), ": parameter ", i, " of the group is ", p.dtype(),
             " but the optimizer's first parameter is ", first.dtype(),
             "; one optimizer updates parameters of one dtype (for bfloat16 compute keep float32 parameters and "
             "run the forward under tl::autocast)");
    for (size_t j = 0; j < i; ++j)
      TL_CHECK(!params[j].is_same(p), "some parameters appear in more than one parameter group (parameter ", i,
               " is parameter ", j, " of the same group)");
    for (size_t g = 0; g < groups_.size(); ++g)
      for (const Tensor& q : groups_[g].params)
        TL_CHECK(!q.is_same(p), "some parameters appear in more than one parameter group (parameter ", i,
                 " is in group ", g, ")");
  }
  Hyperparameters full = complete(options);
  state_.resize(state_.size() + params.size());
  groups_.push_back({std::move(params), std::move(full)});
}

const ParamState& Optimizer::state(int64_t index) const {
  TL_CHECK(index >= 0 && index < static_cast<int64_t>(state_.size()), kind(), ": parameter index ", index,
           " out of range for ", state_.size(), " parameters");
  return state_[index];
}

void Optimizer::check_step() const {
  TL_CHECK(!is_autocast_enabled(), kind(), ".step: called inside an open tl::autocast scope (",
           get_autocast_dtype(), "); close the scope after the forward pass and the loss, before backward() and step()");
  size_t index = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    check_options(complete(groups_[g].options));
    const std::vector<std::string> keys = state_keys(groups_[g].options);
    for (const Tensor& param : groups_[g].params) {
      const Tensor& grad = param.grad();
      TL_CHECK(!grad.defined() || (grad.shape() == param.shape() && grad.dtype() == param.dtype()), kind(),
               ".step: parameter ", index, " of shape ", param.shape(), " and dtype ", param.dtype(),
               " has a gradient of shape ", grad.shape(), " and dtype ", grad.dtype());
      const ParamState& state = state_[index];
      for (const std::string& key : keys)
        TL_CHECK(state.empty() || state.count(key), kind(), ".step: parameter ", index, " has no state '", key,
                 "', which its group's options need (were they changed after its first step?)");
      ++index;
    }
  }
}

// The profiler scopes are named as torch.optim.Optimizer names its record_function scopes.
void Optimizer::step() {
  RecordFunction scope([this] { return std::string("Optimizer.step#") + kind() + ".step"; }, RecordScope::UserScope);
  check_step();
  NoGradGuard no_grad;
  size_t index = 0;
  for (ParamGroup& group : groups_)
    for (Tensor& param : group.params) {
      ParamState& state = state_[index++];
      const Tensor& grad = param.grad();
      if (grad.defined()) update(param, grad, group.options, state);
    }
}

void Optimizer::zero_grad(bool set_to_none) {
  RecordFunction scope([this] { return std::string("Optimizer.zero_grad#") + kind() + ".zero_grad"; },
                       RecordScope::UserScope);
  NoGradGuard no_grad;
  for (ParamGroup& group : groups_)
    for (Tensor& param : group.params) {
      Tensor& grad = param.mutable_grad();
      if (!grad.defined()) continue;
      if (set_to_none) grad = Tensor();
      else grad.copy_(scalar_tensor(0, grad.dtype()));  // not mul_(0): NaN * 0 is NaN
    }
}

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict dict{kind(), {}, {}};
  int64_t index = 0;
  for (const ParamGroup& group : groups_) {
    OptimizerStateDict::Group packed{{}, group.options};
    for (size_t i = 0; i < group.params.size(); ++i, ++index) {
      packed.params.push_back(index);
      if (!state_[index].empty()) dict.state[index] = state_[index];
    }
    dict.param_groups.push_back(std::move(packed));
  }
  return dict;
}

void Optimizer::check_state_dict(const OptimizerStateDict& dict) const {
  TL_CHECK(dict.kind == kind(), kind(), ".load_state_dict: the state dict is of a ", dict.kind, " optimizer");
  TL_CHECK(dict.param_groups.size() == groups_.size(), kind(),
           ".load_state_dict: loaded state dict has a different number of parameter groups (", dict.param_groups.size(),
           ", the optimizer has ", groups_.size(), ")");
  std::vector<const Tensor*> params;
  std::vector<const Hyperparameters*> options;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const auto& saved = dict.param_groups[g];
    TL_CHECK(saved.params.size() == groups_[g].params.size(), kind(),
             ".load_state_dict: loaded state dict contains a parameter group that doesn't match the size of "
             "optimizer's group (group ", g, " has ", saved.params.size(), " parameters, the optimizer's ",
             groups_[g].params.size(), ")");
    complete(saved.options);
    for (const Tensor& p : groups_[g].params) {
      params.push_back(&p);
      options.push_back(&saved.options);
    }
  }
  for (const auto& [index, state] : dict.state) {
    TL_CHECK(index >= 0 && index < static_cast<int64_t>(params.size()), kind(), ".load_state_dict: state of parameter ",
             index, " but the optimizer has ", params.size(), " parameters");
    const Tensor& param = *params[index];
    const std::vector<std::string> keys = state_keys(complete(*options[index]));
    for (const auto& [key, value] : state) {
      TL_CHECK(std::find(keys.begin(), keys.end(), key) != keys.end(), kind(), ".load_state_dict: parameter ",
               index, " has state '", key, "', which this optimizer with these options does not keep");
      TL_CHECK(value.defined(), kind(), ".load_state_dict: state '", key, "' of parameter ", index, " is undefined");
      const Shape expected = key == "step" ? Shape{} : param.shape();
      TL_CHECK(value.shape() == expected, kind(), ".load_state_dict: state '", key, "' of parameter ", index,
               " has shape ", value.shape(), " but ", expected, " was expected");
    }
    for (const std::string& key : keys)
      TL_CHECK(state.count(key), kind(), ".load_state_dict: parameter ", index, " lacks state '", key, "'");
  }
}

void Optimizer::load_state_dict(const OptimizerStateDict& dict) {
  check_state_dict(dict);
  std::vector<ParamState> state(state_.size());
  std::vector<Hyperparameters> options;
  for (const auto& saved : dict.param_groups) options.push_back(complete(saved.options));
  std::vector<DType> dtypes;
  for (const ParamGroup& group : groups_)
    for (const Tensor& p : group.params) dtypes.push_back(p.dtype());
  for (const auto& [index, saved] : dict.state)
    for (const auto& [key, value] : saved)
      state[index][key] = key == "step" ? value.clone() : value.to(dtypes[index]).clone();
  // Nothing below throws: the optimizer changes only now.
  state_ = std::move(state);
  for (size_t g = 0; g < groups_.size(); ++g) groups_[g].options = std::move(options[g]);
}

}  // namespace tl::optim
