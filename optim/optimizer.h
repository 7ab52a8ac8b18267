// optim/optimizer.h — the Optimizer base (torch.optim.Optimizer): parameter groups with their own
// hyper-parameters, per-parameter state created lazily and keyed by the parameter (PyTorch's state[p]),
// zero_grad and the state dict. step() validates every group (options and params may be edited) first.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tl::optim {

/// A parameter group's hyper-parameters by PyTorch's names (group['lr'], ...), booleans as 0 / 1;
/// Adam's betas are "beta1" and "beta2". The schedulers add "initial_lr" as PyTorch's do.
using Hyperparameters = std::map<std::string, double>;

/// One of PyTorch's param_groups: tensors optimized with the same hyper-parameters. Both may be edited
/// between steps (params appended, removed or replaced); step() checks them. Given to a constructor, as
/// PyTorch's `[{"params": [a]}, {"params": [b], "lr": 1e-2}]`, written
/// `{{.params = {a}}, {.params = {b}, .options = {{"lr", 1e-2}}}}`, `options` holds only the overrides of
/// the constructor's defaults. (Each constructor also takes a braced list of groups, so that `{}` means
/// no groups rather than an ambiguous empty list.)
struct ParamGroup {
  std::vector<Tensor> params;
  Hyperparameters options;
};

/// Per-parameter state (momentum_buffer; step, exp_avg, ...), empty until the first update of the
/// parameter, as PyTorch's lazily filled optimizer.state.
using ParamState = std::map<std::string, Tensor>;

/// optimizer.state_dict(): the kind ("SGD", "Adam", ...), each group's parameter indices (counted
/// across groups in order; a parameter listed twice keeps its first index, as PyTorch packs it) and
/// hyper-parameters, and the state of each parameter that has one, by index. Its tensors alias the optimizer's.
struct OptimizerStateDict {
  struct Group {
    std::vector<int64_t> params;
    Hyperparameters options;
  };
  std::string kind;
  std::vector<Group> param_groups;
  std::map<int64_t, ParamState> state;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam" or "LBFGS" (the
  /// Python class name).
  const char* kind() const { return kind_; }

  /// One update of every parameter whose .grad is defined (others are skipped, as PyTorch's), in
  /// place on the parameters' data and without recording autograd history. Throws tl::Error, before
  /// updating anything, for a group's invalid options (naming the group when there are several), a
  /// parameter add_param_group would refuse (edited into a group), a .grad whose shape or dtype differs
  /// from its parameter's, or a state missing an entry its group's options need (amsgrad turned on later).
  /// A profile sees it as the scope "Optimizer.step#<kind>.step", as PyTorch's.
  void step();
  /// Zeroes each parameter's .grad in place (PyTorch 1.13's default), or clears it with set_to_none; a
  /// profile sees the scope "Optimizer.zero_grad#<kind>.zero_grad".
  void zero_grad(bool set_to_none = false);

  /// Adds `params` with `options` overriding the defaults the optimizer was made with. Throws tl::Error
  /// for an empty list, an undefined, non-floating-point or non-leaf tensor, a tensor already in a
  /// group, an unknown option name or an invalid value (the constructor's messages); nothing changes then.
  void add_param_group(std::vector<Tensor> params, const Hyperparameters& options = {});
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  /// The groups for changing hyper-parameters (group.options["lr"] = ..., as schedulers do) or params
  /// (a tensor appended to a group is updated from the next step on; state follows each parameter).
  std::vector<ParamGroup>& param_groups() { return groups_; }
  /// The state of `param` (PyTorch's optimizer.state[p]); empty before its first update, and for a
  /// tensor this optimizer never updated.
  const ParamState& state(const Tensor& param) const;
  /// The state of the parameter at `index` (counted across groups); empty before its first update.
  const ParamState& state(int64_t index) const;

  /// The state and hyper-parameters by parameter index (see OptimizerStateDict); aliases the state.
  OptimizerStateDict state_dict() const;
  /// Replaces state and hyper-parameters with (copies of) `dict`'s: the saved index at each position of
  /// the groups names the parameter now at that position (PyTorch's id_map), tensors are converted to
  /// the dtype of their parameter (counts and numbers excepted, see state_shape), and the state of any
  /// other tensor is dropped.
  /// Throws tl::Error, changing nothing, when `dict` is of another kind, has another number of groups or
  /// of parameters in a group, state for an index no group lists, a state entry this kind does not keep
  /// or a tensor whose shape differs from its parameter's, or invalid hyper-parameters.
  void load_state_dict(const OptimizerStateDict& dict);

  /// What load_state_dict installs: checked, with every tensor copied and converted.
  class PreparedLoad;
  /// load_state_dict in two steps, so that a caller loading several objects (load_checkpoint) can make
  /// every check and allocation before it changes any: prepare_load changes nothing and throws what
  /// load_state_dict throws; commit_load cannot fail. Commit only what this optimizer prepared, with
  /// its groups' params unchanged since.
  PreparedLoad prepare_load(const OptimizerStateDict& dict) const;
  void commit_load(PreparedLoad prepared) noexcept;

 protected:
  /// `defaults` must hold every option this kind has but the `required` ones (PyTorch's `required`
  /// sentinel: SGD's lr), which a group must then specify. The derived constructor adds the groups
  /// with add_first_groups (check_options is not callable before it runs).
  Optimizer(const char* kind, Hyperparameters defaults, std::vector<std::string> required = {})
      : kind_(kind), defaults_(std::move(defaults)), required_(std::move(required)) {}
  /// add_param_group for each group in order, with the empty-list check PyTorch's constructor makes.
  void add_first_groups(std::vector<ParamGroup> groups);
  /// The state of `param`, created empty if it has none (for state PyTorch's constructor fills: Adagrad's).
  ParamState& mutable_state(const Tensor& param);
  /// Throws tl::Error with PyTorch's wording unless each of `params` is a defined floating-point leaf of
  /// the optimizer's dtype that no other position holds. `group` is the index of an existing group (its
  /// params are checked against the groups before it), or nullopt for a group about to be added.
  void check_params(const std::vector<Tensor>& params, std::optional<size_t> group) const;
  /// step()'s checks, before it changes anything: no open autocast scope, and each group's options,
  /// params, gradients and state (see step).
  void check_step() const;
  /// Throws tl::Error with PyTorch's wording when a value of a complete option set is invalid.
  virtual void check_options(const Hyperparameters& options) const = 0;
  /// The state entries a parameter has after its first update with `options`.
  virtual std::vector<std::string> state_keys(const Hyperparameters& options) const = 0;
  /// The state entries a parameter may have besides state_keys (LBFGS's, made at its first iteration).
  virtual std::vector<std::string> optional_state_keys() const { return {}; }
  /// The shape of state entry `key` of `param`: {} for a count or number ("step"; NAdam's "mu_product"),
  /// else the parameter's; nullopt where it depends on more than the parameter (LBFGS's history).
  /// load_state_dict checks it, and converts a floating-point entry that is not a number to the
  /// parameter's dtype.
  virtual std::optional<Shape> state_shape(const std::string& key, const Tensor& param) const {
    return key == "step" ? Shape{} : param.shape();
  }
  /// Updates `param` (under NoGradGuard) from `grad` with the group's `options`; fills `state` lazily.
  virtual void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) = 0;

 private:
  /// A parameter and its state; holding the parameter keeps its identity (the map's key) unique.
  struct Slot {
    Tensor param;
    ParamState state;
  };
  using StateMap = std::unordered_map<const void*, Slot>;  // by param.identity()
  /// A saved index's parameter now, and the saved options of its group.
  struct SavedParam {
    const Tensor* param;
    const Hyperparameters* options;
  };
  using SavedParams = std::unordered_map<int64_t, SavedParam>;

  Hyperparameters complete(const Hyperparameters& options) const;
  /// The parameter at `index` counted across groups; throws tl::Error when out of range.
  const Tensor& param_at(int64_t index) const;
  /// load_state_dict's checks of kind and group sizes, then PyTorch's id_map of `dict`.
  SavedParams saved_params(const OptimizerStateDict& dict) const;
  /// load_state_dict's checks of the state entries.
  void check_state(const OptimizerStateDict& dict, const SavedParams& saved_params) const;

  const char* kind_;
  Hyperparameters defaults_;
  std::vector<std::string> required_;  // options without a default
  std::vector<ParamGroup> groups_;
  StateMap state_;
};

class Optimizer::PreparedLoad {
  friend class Optimizer;
  StateMap state;
  std::vector<Hyperparameters> options;  // of each group
};

/// The value of `key` in `options`. Complete groups have every key; one the user erased from a group's
/// options is a tl::Error (PyTorch's KeyError), which step() and the schedulers' steps raise first, naming
/// the group, through check_group_option.
double option(const Hyperparameters& options, const std::string& key);
/// Throws tl::Error "<who>: param_groups[<g>] has no '<key>' (it was erased from the group's options)"
/// when `group` (the g-th) lacks `key`.
void check_group_option(const ParamGroup& group, size_t g, const std::string& key, std::string_view who);

}  // namespace tl::optim
