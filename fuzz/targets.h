// fuzz/targets.h — the fuzz targets, one per parser (and one for graph edits), shared by the libFuzzer harnesses (fuzz_*.cpp)
// and the corpus replay (replay.cpp). Contract: an input either parses or is rejected with tl::Error.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace tl::fuzz {

/// Runs one input through a target. Returns true when it parsed, false when it was rejected with
/// tl::Error. Anything else breaks the contract and aborts, so libFuzzer records a crash: another
/// exception type (std::bad_alloc, a JSON library exception), a failed TL_INTERNAL_ASSERT, a failed
/// check of the target's own, and whatever the sanitizers report.
using Target = bool (*)(std::span<const std::byte> input);

/// nn::load_safetensors from memory; every tensor returned must be contiguous and fit in the input.
bool run_safetensors(std::span<const std::byte> input);
/// nn::load into the conv-bn tutorial's model, strictly then not; a rejected load must leave every
/// parameter and buffer bit for bit as it was. "Parsed" means the strict load succeeded.
bool run_state_dict(std::span<const std::byte> input);
/// trace::load_trace from memory (JSON, or gzip through zlib), then compare_traces of the
/// trace with itself and its table and CSV, as tl-tracediff would.
bool run_trace(std::span<const std::byte> input);

/// Edits of a traced model decoded from the bytes (fuzz/graph_edit.cpp): after each edit either it
/// threw tl::Error and the graph prints and runs exactly as before, or it succeeded and the graph
/// lints. "Parsed" means no edit was rejected.
bool run_graph_edit(std::span<const std::byte> input);

/// The target run_<name> for `name` "safetensors", "state_dict", "trace" or "graph_edit"; nullptr
/// for another name.
Target find_target(std::string_view name);

}  // namespace tl::fuzz
