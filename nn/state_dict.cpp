// nn/state_dict.cpp — Module::state_dict and Module::load_state_dict with PyTorch's names, order
// and error wording. A load validates everything before copying anything.
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/grad_mode.h"
#include "nn/module.h"

namespace tl::nn {
namespace {

std::string quoted_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "\"" : ", \"") + k + "\"";
  return out;
}

/// Why `source` cannot be copied into the model's `target` named `key`, or "" when it can.
std::string copy_problem(const std::string& key, const Tensor& source, const Tensor& target) {
  if (!source.defined()) return "cannot copy None from checkpoint into " + key + ".";
  if (source.is_proxy())
    return "cannot copy " + key + " from checkpoint: it is a symbolic proxy without data.";
  if (source.shape() != target.shape())
    return tl::detail::str_cat("size mismatch for ", key, ": copying a param with shape ", source.shape(),
                           " from checkpoint, the shape in current model is ", target.shape(), ".");
  return "";
}

}  // namespace

void Module::append_state(const std::string& prefix, StateDict& out, std::vector<StateOwner>* owners) const {
  for (const auto* own : {&parameters_, &buffers_})
    for (const auto& [name, t] : *own)
      if (t.defined()) {
        out.emplace_back(prefix + name, t);
        if (owners) owners->push_back({this, name, false});
      }
  for (auto& [name, t] : packed_state()) {
    out.emplace_back(prefix + name, std::move(t));
    if (owners) owners->push_back({this, name, true});
  }
  for (const auto& [name, child] : children_) child->append_state(prefix + name + ".", out, owners);
}

Tensor Module::missing_state(const std::string&) const { return Tensor(); }

StateDict Module::packed_state() const { return {}; }

std::function<void()> Module::prepare_packed_state(const StateDict&, const std::string& prefix) {
  TL_INTERNAL_ASSERT(false, "prepare_packed_state: ", type_name(), " at '", prefix, "' has no packed state");
  return {};
}

StateDict Module::state_dict() const {
  StateDict out;
  append_state("", out);
  return out;
}

IncompatibleKeys Module::load_state_dict(const StateDict& dict, bool strict) {
  // Like a Python dict built from the pairs: a repeated key keeps its last tensor.
  std::unordered_map<std::string, const Tensor*> given;
  for (const auto& [key, t] : dict) given[key] = &t;

  IncompatibleKeys keys;
  std::vector<std::string> errors;
  std::vector<std::pair<Tensor, Tensor>> copies;  // (model tensor, checkpoint tensor)
  std::unordered_set<std::string> expected;
  StateDict own;
  std::vector<StateOwner> owners;
  append_state("", own, &owners);
  // Per module with packed state, in order: its entries from the checkpoint, and whether all were there and fit.
  std::vector<std::pair<const Module*, std::string>> packed_modules;  // (module, prefix)
  std::unordered_map<const Module*, std::pair<StateDict, bool>> packed;
  for (size_t i = 0; i < own.size(); ++i) {
    const auto& [key, target] = own[i];
    const StateOwner& owner = owners[i];
    expected.insert(key);
    if (owner.packed && !packed.count(owner.module)) {
      packed_modules.emplace_back(owner.module, key.substr(0, key.size() - owner.name.size()));
      packed[owner.module].second = true;
    }
    std::optional<Tensor> source;  // the checkpoint's tensor (None included), or what the module fills in
    if (auto it = given.find(key); it != given.end()) source = *it->second;
    else if (Tensor fill = owner.packed ? Tensor() : owner.module->missing_state(owner.name); fill.defined())
      source = fill;
    std::string problem = source ? copy_problem(key, *source, target) : "";
    if (!source) keys.missing_keys.push_back(key);
    else if (!problem.empty()) errors.push_back(std::move(problem));
    if (owner.packed) {
      auto& [entries, complete] = packed[owner.module];
      complete = complete && source && problem.empty();
      if (complete) entries.emplace_back(owner.name, *source);
    } else if (source && problem.empty()) {
      copies.emplace_back(target, *std::move(source));
    }
  }
  // Every packed module's state is checked and prepared before anything changes; installing it cannot throw.
  std::vector<std::function<void()>> installs;
  for (const auto& [module, prefix] : packed_modules) {
    const auto& [entries, complete] = packed.at(module);
    if (!complete) continue;
    try {
      // The tree is this module's own, reached through const traversal: installing into it is a load's job.
      installs.push_back(const_cast<Module*>(module)->prepare_packed_state(entries, prefix));
    } catch (const Error& e) {
      errors.push_back(e.what());
    }
  }
  std::unordered_set<std::string> reported;
  for (const auto& entry : dict)
    if (!expected.count(entry.first) && reported.insert(entry.first).second)
      keys.unexpected_keys.push_back(entry.first);

  if (strict) {
    if (!keys.unexpected_keys.empty())
      errors.insert(errors.begin(), "Unexpected key(s) in state_dict: " + quoted_list(keys.unexpected_keys) + ". ");
    if (!keys.missing_keys.empty())
      errors.insert(errors.begin(), "Missing key(s) in state_dict: " + quoted_list(keys.missing_keys) + ". ");
  }
  if (!errors.empty()) {
    std::string message = "Error(s) in loading state_dict for " + type_name() + ":";
    for (const std::string& e : errors) message += "\n\t" + e;
    tl::detail::throw_error(message);
  }
  // Conversions allocate: all of them happen before the first copy writes into the model.
  for (auto& [target, source] : copies)
    if (source.dtype() != target.dtype()) source = source.to(target.dtype());
  NoGradGuard no_grad;  // writing parameters is not part of any graph (PyTorch loads under no_grad)
  for (auto& [target, source] : copies) target.copy_(source);
  for (const auto& install : installs) install();
  return keys;
}

}  // namespace tl::nn
