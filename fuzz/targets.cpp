// fuzz/targets.cpp — the fuzz targets. Each runs the real entry point a user calls on untrusted bytes
// and turns every breach of "parse or throw tl::Error" into an abort, with the reason on stderr.
#include "fuzz/targets.h"

#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "core/tensor.h"
#include "fuzz/contract.h"
#include "models/toy_fuser.h"
#include "nn/safetensors.h"
#include "nn/serialize.h"
#include "trace/trace.h"
#include "trace/trace_diff.h"

namespace tl::fuzz {
namespace {

// Deep copies of the model's tensors, to check that a rejected load changed nothing.
std::vector<Tensor> snapshot(const nn::Module& model) {
  std::vector<Tensor> copies;
  for (const auto& [name, t] : model.state_dict()) copies.push_back(t.clone());
  return copies;
}

void check_unchanged(const nn::Module& model, const std::vector<Tensor>& before) {
  const nn::StateDict now = model.state_dict();
  require(now.size() == before.size(), "state_dict", "the model's state dict changed size");
  for (size_t i = 0; i < now.size(); ++i) {
    const Tensor& t = now[i].second;
    // Bitwise, so NaNs loaded by an earlier non-strict load compare equal to themselves.
    const bool same = t.is_contiguous() && t.dtype() == before[i].dtype() && t.nbytes() == before[i].nbytes() &&
                      std::memcmp(t.raw_data(), before[i].raw_data(), static_cast<size_t>(t.nbytes())) == 0;
    require(same, "state_dict", "a rejected load changed '" + now[i].first + "'");
  }
}

}  // namespace

bool run_safetensors(std::span<const std::byte> input) {
  nn::StateDict tensors;
  if (!parses("safetensors", [&] { tensors = nn::load_safetensors(input); })) return false;
  for (const auto& [name, t] : tensors) {
    require(t.is_contiguous() && t.nbytes() <= static_cast<int64_t>(input.size()), "safetensors",
            detail::str_cat("'", name, "' holds ", t.nbytes(), " bytes, read from ", input.size()));
  }
  return true;
}

bool run_state_dict(std::span<const std::byte> input) {
  // The model and the generator are rebuilt for every input, so an input always runs the same way.
  manual_seed(0);
  const auto model = models::toy_fuser_model();
  bool loaded_strictly = false;
  for (bool strict : {true, false}) {
    const std::vector<Tensor> before = snapshot(*model);
    const bool loaded = parses("state_dict", [&] { nn::load(*model, input, strict); });
    if (!loaded) check_unchanged(*model, before);
    if (strict) loaded_strictly = loaded;
  }
  return loaded_strictly;
}

bool run_trace(std::span<const std::byte> input) {
  return parses("trace", [&] {
    trace::TraceSet set;
    set.label = "<bytes>";
    set.traces.push_back(trace::load_trace(input));
    const trace::DiffTable table = trace::compare_traces(set, set);
    (void)table.sort_values("abs_diff_self_duration").table();
    (void)table.to_csv();
  });
}

Target find_target(std::string_view name) {
  if (name == "safetensors") return &run_safetensors;
  if (name == "state_dict") return &run_state_dict;
  if (name == "trace") return &run_trace;
  if (name == "graph_edit") return &run_graph_edit;
  return nullptr;
}

}  // namespace tl::fuzz
