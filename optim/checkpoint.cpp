// optim/checkpoint.cpp — checkpoints as safetensors: tensors under "model." and "optimizer.state.",
// hyper-parameters and counters as JSON in __metadata__. Loading parses and checks everything first.
#include "optim/checkpoint.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "nn/safetensors.h"

namespace tl::optim {
namespace {

using Json = nlohmann::json;
constexpr std::string_view kModel = "model.", kState = "optimizer.state.";

Json to_json(const OptimizerStateDict& dict) {
  Json groups = Json::array();
  for (const auto& group : dict.param_groups) {
    Json g(group.options);
    g["params"] = group.params;
    groups.push_back(std::move(g));
  }
  return {{"kind", dict.kind}, {"param_groups", std::move(groups)}};
}

// JSON has no inf or nan (nlohmann writes null): such a counter is a string.
Json counter_json(double value) {
  if (std::isfinite(value)) return value;
  return std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
}

Json to_json(const lr_scheduler::SchedulerStateDict& dict) {
  Json counters = Json::object(), schedulers = Json::array();
  for (const auto& [key, value] : dict.counters) counters[key] = counter_json(value);
  for (const auto& child : dict.schedulers) schedulers.push_back(to_json(child));
  return {{"kind", dict.kind},         {"last_epoch", dict.last_epoch}, {"step_count", dict.step_count},
          {"base_lrs", dict.base_lrs}, {"last_lr", dict.last_lr},       {"options", dict.options},
          {"lists", dict.lists},       {"modes", dict.modes},           {"counters", std::move(counters)},
          {"schedulers", std::move(schedulers)}};
}

Json parse_entry(const nn::SafetensorsMetadata& metadata, const std::string& key, const std::string& path) {
  const auto it = metadata.find(key);
  TL_CHECK(it != metadata.end(), "load_checkpoint: ", path, ": no \"", key, "\" entry in __metadata__");
  Json json = Json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  TL_CHECK(json.is_object(), "load_checkpoint: ", path, ": the \"", key, "\" entry is not a JSON object");
  return json;
}

// Errors name a bad value's JSON type, never dump it: a hostile file may nest it arbitrarily deep.
// Hyper-parameters: every member but `skip` must be a number.
// `context` ("load_checkpoint: <path>") starts every message.
Hyperparameters numbers(const Json& object, const std::string& skip, const std::string& context) {
  TL_CHECK(object.is_object(), context, ": expected a JSON object of hyper-parameters, got ", object.type_name());
  Hyperparameters options;
  for (const auto& [key, value] : object.items()) {
    if (key == skip) continue;
    TL_CHECK(value.is_number(), context, ": hyper-parameter '", key, "' is ", value.type_name(), ", not a number");
    options[key] = value.get<double>();
  }
  return options;
}

// The state dict of `json` (to_json's layout) and `tensors` named "<state_prefix><index>.<key>".
OptimizerStateDict optimizer_dict(const Json& json, const nn::StateDict& tensors, const std::string& state_prefix,
                                  const std::string& context) {
  const std::string where = context + ": the optimizer entry ";
  TL_CHECK(json.contains("kind") && json["kind"].is_string(), where, "has no string \"kind\"");
  TL_CHECK(json.contains("param_groups") && json["param_groups"].is_array(), where, "has no \"param_groups\" array");
  OptimizerStateDict dict{json["kind"].get<std::string>(), {}, {}};
  for (const Json& group : json["param_groups"]) {
    TL_CHECK(group.is_object() && group.contains("params") && group["params"].is_array(), where,
             "has a group without a \"params\" array");
    OptimizerStateDict::Group g{{}, numbers(group, "params", context)};
    for (const Json& index : group["params"]) {
      TL_CHECK(index.is_number_integer(), where, "has a parameter index of type ", index.type_name());
      g.params.push_back(index.get<int64_t>());
    }
    dict.param_groups.push_back(std::move(g));
  }
  for (const auto& [name, tensor] : tensors) {
    const std::string rest = name.substr(state_prefix.size());
    const size_t dot = rest.find('.');
    int64_t index = -1;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + std::min(dot, rest.size()), index);
    TL_CHECK(dot != std::string::npos && error == std::errc() && end == rest.data() + dot && index >= 0,
             context, ": tensor '", name, "' is not named ", state_prefix, "<index>.<key>");
    dict.state[index][rest.substr(dot + 1)] = tensor;
  }
  return dict;
}

// `context` ("load_checkpoint: <path>") starts every message, as in numbers().
double counter(const std::string& key, const Json& value, const std::string& context) {
  if (!value.is_string()) return value.get<double>();
  const std::string& text = value.get_ref<const std::string&>();
  TL_CHECK(text == "inf" || text == "-inf" || text == "nan", context, ": counter '", key,
           "' is a string other than \"inf\", \"-inf\" and \"nan\"");
  return text == "nan" ? NAN : text == "inf" ? INFINITY : -INFINITY;
}

// Nested schedulers (SequentialLR's) are read to a bounded depth: a hostile file may nest them deeply.
lr_scheduler::SchedulerStateDict scheduler_dict(const Json& json, const std::string& context, int depth = 0) {
  lr_scheduler::SchedulerStateDict dict;
  TL_CHECK(json.is_object() && depth < 8, context, ": a scheduler entry is ", json.type_name(),
           depth < 8 ? "" : " nested 8 deep", ", not a scheduler's object");
  try {
    dict.kind = json.at("kind").get<std::string>();
    dict.last_epoch = json.at("last_epoch").get<double>();  // a float one too, as PyTorch keeps it
    // get<int64_t> would truncate a float silently.
    TL_CHECK(json.at("step_count").is_number_integer(), context, ": step_count is ",
             json.at("step_count").type_name(), ", not an integer");
    dict.step_count = json.at("step_count").get<int64_t>();
    dict.base_lrs = json.at("base_lrs").get<std::vector<double>>();
    dict.last_lr = json.at("last_lr").get<std::vector<double>>();
    // A checkpoint written before these entries existed has none.
    dict.lists = json.value("lists", Json::object()).get<std::map<std::string, std::vector<double>>>();
    dict.modes = json.value("modes", Json::object()).get<std::map<std::string, std::string>>();
    const Json counters = json.value("counters", Json::object());
    for (const auto& [key, value] : counters.items()) dict.counters[key] = counter(key, value, context);
    for (const Json& child : json.value("schedulers", Json::array()))
      dict.schedulers.push_back(scheduler_dict(child, context, depth + 1));
  } catch (const nlohmann::json::exception& e) {
    TL_CHECK(false, context, ": malformed lr_scheduler entry (", e.what(), ")");
  }
  TL_CHECK(json.contains("options"), context, ": the lr_scheduler entry has no \"options\"");
  dict.options = numbers(json["options"], "", context);
  return dict;
}

}  // namespace

void save_checkpoint(const std::string& path, const nn::Module& model, const Optimizer& optimizer,
                     const lr_scheduler::Scheduler* scheduler) {
  nn::StateDict tensors;
  for (auto& [name, tensor] : model.state_dict()) tensors.emplace_back(std::string(kModel) + name, tensor);
  const OptimizerStateDict dict = optimizer.state_dict();
  for (const auto& [index, state] : dict.state)
    for (const auto& [key, tensor] : state)
      tensors.emplace_back(std::string(kState) + std::to_string(index) + "." + key, tensor);
  nn::SafetensorsMetadata metadata{{"optimizer", to_json(dict).dump()}};
  if (scheduler) metadata["lr_scheduler"] = to_json(scheduler->state_dict()).dump();
  nn::save_safetensors(path, tensors, metadata);
}

void load_checkpoint(const std::string& path, nn::Module& model, Optimizer& optimizer,
                     lr_scheduler::Scheduler* scheduler) {
  const nn::SafetensorsMetadata metadata = nn::load_safetensors_metadata(path);
  nn::StateDict model_tensors, state_tensors;
  for (auto& [name, tensor] : nn::load_safetensors(path)) {
    if (name.starts_with(kModel)) model_tensors.emplace_back(name.substr(kModel.size()), std::move(tensor));
    else if (name.starts_with(kState)) state_tensors.emplace_back(name, std::move(tensor));
    else TL_CHECK(false, "load_checkpoint: ", path, ": tensor '", name, "' is neither model.* nor optimizer.state.*");
  }
  // Everything that can fail happens before the first change: the optimizer's state is checked and
  // copied, the scheduler's checked, and Module::load_state_dict changes nothing when it throws.
  Optimizer::PreparedLoad optimizer_state =
      optimizer.prepare_load(optimizer_dict(parse_entry(metadata, "optimizer", path), state_tensors,
                                            std::string(kState), "load_checkpoint: " + path));
  lr_scheduler::SchedulerStateDict scheduler_state;
  if (scheduler) {
    scheduler_state = scheduler_dict(parse_entry(metadata, "lr_scheduler", path), "load_checkpoint: " + path);
    scheduler->check_state_dict(scheduler_state);
  }
  model.load_state_dict(model_tensors);
  optimizer.commit_load(std::move(optimizer_state));
  if (scheduler) scheduler->load_state_dict(std::move(scheduler_state));
}

void write(serialize::OutputArchive& archive, const std::string& key, const OptimizerStateDict& dict) {
  nn::StateDict state;
  for (const auto& [index, tensors] : dict.state)
    for (const auto& [name, tensor] : tensors) state.emplace_back(std::to_string(index) + "." + name, tensor);
  serialize::OutputArchive next = archive;  // both writes or neither
  next.write(key + ".param_groups", to_json(dict).dump());
  if (!state.empty()) next.write(key + ".state", state);
  archive = std::move(next);
}

void read(const serialize::InputArchive& archive, const std::string& key, OptimizerStateDict& out) {
  std::string groups;
  archive.read(key + ".param_groups", groups);
  const std::string state_prefix = key + ".state.";
  nn::StateDict state;
  for (const auto& [name, value] : archive.entries())
    if (name.starts_with(state_prefix) && std::holds_alternative<Tensor>(value))
      state.emplace_back(name, std::get<Tensor>(value));
  const std::string context = "InputArchive: optimizer state dict '" + key + "'";
  const Json json = Json::parse(groups, nullptr, /*allow_exceptions=*/false);
  TL_CHECK(json.is_object(), context, ": '", key, ".param_groups' is not a JSON object");
  out = optimizer_dict(json, state, state_prefix, context);
}

void write(serialize::OutputArchive& archive, const std::string& key, const lr_scheduler::SchedulerStateDict& dict) {
  archive.write(key, to_json(dict).dump());
}

void read(const serialize::InputArchive& archive, const std::string& key, lr_scheduler::SchedulerStateDict& out) {
  std::string text;
  archive.read(key, text);
  const std::string context = "InputArchive: scheduler state dict '" + key + "'";
  const Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  TL_CHECK(json.is_object(), context, ": '", key, "' is not a JSON object");
  out = scheduler_dict(json, context);
}

}  // namespace tl::optim
