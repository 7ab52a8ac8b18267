// optim/checkpoint.h — a training checkpoint (model, optimizer, optional lr scheduler) in one
// safetensors file, so that a run resumed from it continues bit for bit as if never stopped; and an
// optimizer's and a scheduler's state dicts as entries of a general archive (nn/archive.h).
#pragma once

#include <string>

#include "nn/archive.h"
#include "nn/module.h"
#include "optim/lr_scheduler.h"
#include "optim/optimizer.h"

namespace tl::optim {

/// Writes `model`'s state dict, `optimizer`'s and (when given) `scheduler`'s to the safetensors file
/// `path` through tl::FileWriter (an existing file stays intact if anything fails). Layout:
///   tensors "model.<name>"                 every entry of model.state_dict()
///   tensors "optimizer.state.<i>.<key>"    the state of parameter i (momentum_buffer, step, exp_avg, ...)
///   __metadata__ "optimizer"               JSON {"kind", "param_groups": [{"params": [i, ...], "lr": ...}]}
///   __metadata__ "lr_scheduler"            JSON {"kind", "last_epoch", "step_count", "base_lrs",
///                                          "last_lr", "options", "lists", "modes", "counters",
///                                          "schedulers": [{...}, ...]} (only with a scheduler)
/// Hyper-parameters are JSON numbers written with 17 significant digits, so they read back exactly;
/// a counter that is not finite (ReduceLROnPlateau's best before a metric) is the string "inf", "-inf" or "nan".
/// Throws tl::Error as save_safetensors does.
void save_checkpoint(const std::string& path, const nn::Module& model, const Optimizer& optimizer,
                     const lr_scheduler::Scheduler* scheduler = nullptr);

/// Restores what save_checkpoint wrote into `model`, `optimizer` and `scheduler` (when given). Every
/// part is validated before any is changed: a file load_safetensors rejects, a missing or malformed
/// "optimizer" / "lr_scheduler" entry, a tensor outside the layout above, and every mismatch
/// Module::load_state_dict (strict), Optimizer::load_state_dict and Scheduler::load_state_dict
/// report throw tl::Error naming the file, and leave all three unchanged; so does a failed allocation
/// (the optimizer's state is copied before the model is loaded, and nothing after that can fail).
void load_checkpoint(const std::string& path, nn::Module& model, Optimizer& optimizer,
                     lr_scheduler::Scheduler* scheduler = nullptr);

/// Adds optimizer.state_dict() to `archive` under `key`, beside anything else (an epoch, a model's
/// state dict): each state tensor as "<key>.state.<index>.<name>", the kind and the param groups as
/// the string "<key>.param_groups" (JSON, the layout of save_checkpoint's "optimizer" entry;
/// tools/load_archive.py's optimizer_state_dict rebuilds PyTorch's dict from both). Throws tl::Error as
/// OutputArchive::write does; the archive is then unchanged.
void write(serialize::OutputArchive& archive, const std::string& key, const OptimizerStateDict& dict);

/// The optimizer state dict that write(archive, key, dict) added, for Optimizer::load_state_dict.
/// Throws tl::Error for a missing or non-string "<key>.param_groups", JSON that is not write's layout,
/// or a tensor under "<key>.state." not named <index>.<name>; `out` is then unchanged.
void read(const serialize::InputArchive& archive, const std::string& key, OptimizerStateDict& out);

/// Adds scheduler.state_dict() to `archive` under `key` as one string entry: JSON in the layout of
/// save_checkpoint's "lr_scheduler" entry. Throws tl::Error as OutputArchive::write does.
void write(serialize::OutputArchive& archive, const std::string& key, const lr_scheduler::SchedulerStateDict& dict);

/// The scheduler state dict that write(archive, key, dict) added, for Scheduler::load_state_dict.
/// Throws tl::Error for a missing or non-string "<key>" and for JSON that is not write's layout; `out`
/// is then unchanged.
void read(const serialize::InputArchive& archive, const std::string& key, lr_scheduler::SchedulerStateDict& out);

}  // namespace tl::optim
