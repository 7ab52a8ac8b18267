// optim/optimizer.cpp — param groups, step's loop, zero_grad and the state dict of every optimizer.
// Each public call validates everything first and changes the optimizer only afterwards.
#include "optim/optimizer.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "core/autocast.h"
#include "core/error.h"
#include "core/grad_mode.h"
#include "core/record_function.h"
#include "ops/ops.h"

namespace tl::optim {

double option(const Hyperparameters& options, const std::string& key) {
  const auto it = options.find(key);
  TL_CHECK(it != options.end(), "a param group has no '", key, "' (it was erased from the group's options)");
  return it->second;
}

void check_group_option(const ParamGroup& group, size_t g, const std::string& key, std::string_view who) {
  TL_CHECK(group.options.count(key), who, ": param_groups[", g, "] has no '", key,
           "' (it was erased from the group's options)");
}

void Optimizer::add_first_groups(std::vector<ParamGroup> groups) {
  TL_CHECK(!groups.empty(), "optimizer got an empty parameter list");
  for (ParamGroup& group : groups) add_param_group(std::move(group.params), group.options);
}

ParamState& Optimizer::mutable_state(const Tensor& param) {
  return state_.try_emplace(param.identity(), Slot{param, {}}).first->second.state;
}

Hyperparameters Optimizer::complete(const Hyperparameters& options) const {
  Hyperparameters full = defaults_;
  const auto is_required = [&](const std::string& key) {
    return std::find(required_.begin(), required_.end(), key) != required_.end();
  };
  for (const auto& [key, value] : options) {
    // initial_lr is the schedulers' entry (PyTorch keeps it in the group as well).
    TL_CHECK(defaults_.count(key) || is_required(key) || key == "initial_lr", kind(), ": unknown option '", key,
             "' in a parameter group");
    full[key] = value;
  }
  for (const std::string& key : required_)
    TL_CHECK(full.count(key), kind(), ": parameter group didn't specify a value of required optimization parameter ",
             key);
  // The options PyTorch's optimizers take as bools are 0 or 1 here; 0.5 or NaN would read as true.
  for (const char* key : {"amsgrad", "centered", "maximize", "nesterov"}) {
    const auto it = full.find(key);
    TL_CHECK(it == full.end() || it->second == 0 || it->second == 1, kind(), ": option '", key,
             "' is a bool, 0 or 1 in a group's options, got ", it->second);
  }
  check_options(full);
  return full;
}

void Optimizer::check_params(const std::vector<Tensor>& params, std::optional<size_t> group) const {
  const Tensor* first = nullptr;
  for (const ParamGroup& g : groups_)
    if (!first && !g.params.empty()) first = &g.params[0];
  if (!first && !params.empty()) first = &params[0];
  const size_t this_group = group ? *group : groups_.size();
  std::unordered_map<const void*, std::pair<size_t, size_t>> seen;  // identity -> (group, position) of its first use
  for (size_t g = 0; g < this_group; ++g)
    for (size_t j = 0; j < groups_[g].params.size(); ++j)
      seen.emplace(groups_[g].params[j].identity(), std::pair(g, j));
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    // "parameter 1" and "parameter 1 of the group" for a new group, "parameter 1 of group 0" for an existing one.
    const std::string name =
        group ? detail::str_cat("parameter ", i, " of group ", *group) : detail::str_cat("parameter ", i);
    const std::string full = group ? name : name + " of the group";
    TL_CHECK(p.defined(), kind(), ": ", full, " is undefined (None)");
    TL_CHECK(is_floating_point(p.dtype()), kind(), ": can only optimize floating-point tensors, ", name, " is ",
             p.dtype());
    TL_CHECK(p.is_leaf(), "can't optimize a non-leaf Tensor (", full, ")");
    // One dtype per optimizer: bfloat16 compute keeps float32 parameters and runs under tl::autocast.
    TL_CHECK(p.dtype() == first->dtype(), kind(), ": ", full, " is ", p.dtype(),
             " but the optimizer's first parameter is ", first->dtype(),
             "; one optimizer updates parameters of one dtype (for bfloat16 compute keep float32 parameters and "
             "run the forward under tl::autocast)");
    const auto [it, fresh] = seen.emplace(p.identity(), std::pair(this_group, i));
    const auto [g, j] = it->second;
    TL_CHECK(fresh || g != this_group, "some parameters appear in more than one parameter group (", name,
             " is parameter ", j, " of the same group)");
    TL_CHECK(fresh, "some parameters appear in more than one parameter group (", name, " is in group ", g, ")");
  }
}

void Optimizer::add_param_group(std::vector<Tensor> params, const Hyperparameters& options) {
  TL_CHECK(!params.empty(), "optimizer got an empty parameter list");
  check_params(params, std::nullopt);
  Hyperparameters full = complete(options);
  groups_.push_back({std::move(params), std::move(full)});
}

const Tensor& Optimizer::param_at(int64_t index) const {
  int64_t count = 0;
  for (const ParamGroup& group : groups_) {
    const auto size = static_cast<int64_t>(group.params.size());
    if (index >= 0 && index < count + size) return group.params[index - count];
    count += size;
  }
  TL_CHECK(false, kind(), ": parameter index ", index, " out of range for ", count, " parameters");
  return groups_[0].params[0];  // not reached
}

const ParamState& Optimizer::state(const Tensor& param) const {
  static const ParamState kEmpty;
  const auto it = state_.find(param.identity());
  return it == state_.end() ? kEmpty : it->second.state;
}

const ParamState& Optimizer::state(int64_t index) const { return state(param_at(index)); }

void Optimizer::check_step() const {
  TL_CHECK(!is_autocast_enabled(), kind(), ".step: called inside an open tl::autocast scope (",
           get_autocast_dtype(), "); close the scope after the forward pass and the loss, before backward() and step()");
  size_t index = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    Hyperparameters full;
    try {
      full = complete(groups_[g].options);
    } catch (const Error& e) {
      if (groups_.size() == 1) throw;  // the one group needs no name
      throw Error(detail::str_cat(e.what(), " (parameter group ", g, ")"));
    }
    // complete() fills a default back in; update() reads the group itself
    for (const auto& entry : full) check_group_option(groups_[g], g, entry.first, std::string(kind()) + ".step");
    check_params(groups_[g].params, g);
    const std::vector<std::string> keys = state_keys(groups_[g].options);
    for (const Tensor& param : groups_[g].params) {
      const Tensor& grad = param.grad();
      TL_CHECK(!grad.defined() || (grad.shape() == param.shape() && grad.dtype() == param.dtype()), kind(),
               ".step: parameter ", index, " of shape ", param.shape(), " and dtype ", param.dtype(),
               " has a gradient of shape ", grad.shape(), " and dtype ", grad.dtype());
      const ParamState& state = this->state(param);
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
  for (ParamGroup& group : groups_)
    for (Tensor& param : group.params) {
      const Tensor& grad = param.grad();
      if (!grad.defined()) continue;
      update(param, grad, group.options, mutable_state(param));
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
  std::unordered_map<const void*, int64_t> index_of;  // PyTorch's param_mappings: first index of each parameter
  int64_t start = 0;
  for (const ParamGroup& group : groups_) {
    OptimizerStateDict::Group packed{{}, group.options};
    for (size_t i = 0; i < group.params.size(); ++i)
      packed.params.push_back(index_of.try_emplace(group.params[i].identity(), start + i).first->second);
    start += static_cast<int64_t>(group.params.size());
    dict.param_groups.push_back(std::move(packed));
  }
  // The state of a tensor no group holds any more has no index (PyTorch's state_dict raises a KeyError).
  for (const auto& [identity, slot] : state_) {
    const auto it = index_of.find(identity);
    if (it != index_of.end() && !slot.state.empty()) dict.state[it->second] = slot.state;
  }
  return dict;
}

Optimizer::SavedParams Optimizer::saved_params(const OptimizerStateDict& dict) const {
  TL_CHECK(dict.kind == kind(), kind(), ".load_state_dict: the state dict is of a ", dict.kind, " optimizer");
  TL_CHECK(dict.param_groups.size() == groups_.size(), kind(),
           ".load_state_dict: loaded state dict has a different number of parameter groups (", dict.param_groups.size(),
           ", the optimizer has ", groups_.size(), ")");
  SavedParams saved_params;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const auto& saved = dict.param_groups[g];
    TL_CHECK(saved.params.size() == groups_[g].params.size(), kind(),
             ".load_state_dict: loaded state dict contains a parameter group that doesn't match the size of "
             "optimizer's group (group ", g, " has ", saved.params.size(), " parameters, the optimizer's ",
             groups_[g].params.size(), ")");
    complete(saved.options);
    // PyTorch's id_map: the saved index at each position names the parameter now at that position.
    for (size_t i = 0; i < saved.params.size(); ++i)
      saved_params.insert_or_assign(saved.params[i], SavedParam{&groups_[g].params[i], &saved.options});
  }
  return saved_params;
}

void Optimizer::check_state(const OptimizerStateDict& dict, const SavedParams& saved_params) const {
  for (const auto& [index, state] : dict.state) {
    const auto found = saved_params.find(index);
    TL_CHECK(found != saved_params.end(), kind(), ".load_state_dict: state of parameter ", index,
             " but the optimizer has ", saved_params.size(), " parameters");
    const Tensor& param = *found->second.param;
    const std::vector<std::string> keys = state_keys(complete(*found->second.options));
    const std::vector<std::string> optional_keys = optional_state_keys();
    for (const auto& [key, value] : state) {
      TL_CHECK(std::find(keys.begin(), keys.end(), key) != keys.end() ||
                   std::find(optional_keys.begin(), optional_keys.end(), key) != optional_keys.end(),
               kind(), ".load_state_dict: parameter ", index, " has state '", key,
               "', which this optimizer with these options does not keep");
      TL_CHECK(value.defined(), kind(), ".load_state_dict: state '", key, "' of parameter ", index, " is undefined");
      const std::optional<Shape> expected = state_shape(key, param);
      TL_CHECK(!expected || value.shape() == *expected, kind(), ".load_state_dict: state '", key, "' of parameter ",
               index, " has shape ", value.shape(), " but ", *expected, " was expected");
    }
    for (const std::string& key : keys)
      TL_CHECK(state.count(key), kind(), ".load_state_dict: parameter ", index, " lacks state '", key, "'");
  }
}

Optimizer::PreparedLoad Optimizer::prepare_load(const OptimizerStateDict& dict) const {
  const SavedParams saved_params = this->saved_params(dict);
  check_state(dict, saved_params);
  PreparedLoad prepared;
  for (const auto& saved : dict.param_groups) prepared.options.push_back(complete(saved.options));
  for (const auto& [index, saved] : dict.state) {
    const Tensor& param = *saved_params.at(index).param;
    Slot& slot = prepared.state.try_emplace(param.identity(), Slot{param, {}}).first->second;
    for (const auto& [key, value] : saved) {
      const bool converted = is_floating_point(value.dtype()) && state_shape(key, param) != Shape{};
      slot.state[key] = converted ? value.to(param.dtype()).clone() : value.clone();
    }
  }
  return prepared;
}

void Optimizer::commit_load(PreparedLoad prepared) noexcept {
  state_ = std::move(prepared.state);
  for (size_t g = 0; g < groups_.size(); ++g) groups_[g].options = std::move(prepared.options[g]);
}

void Optimizer::load_state_dict(const OptimizerStateDict& dict) { commit_load(prepare_load(dict)); }

}  // namespace tl::optim
