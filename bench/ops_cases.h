// bench/ops_cases.h — `bench_ops --numel N`: every case of bench/ops_cases.txt timed at one size, one `RESULT
// bench=ops impl=torchless ...` line each, per-call microseconds; bench/pt_ops.py times the same list in PyTorch.
#pragma once

#include <cstdint>
#include <string>

namespace tl::bench {

/// Times each case of the cases file `path` (its format is in its header) at the size `numel` with `runs`
/// samples of at least `sample_ms` each, printing one RESULT line per case; with `only` (comma-separated case
/// names) just those. Throws tl::Error when the file is malformed, names a case this side does not know, has
/// no shape of `numel` elements, or lacks a case `only` names.
void run_op_cases(const std::string& path, int64_t numel, int runs, double sample_ms, const std::string& only = "");

}  // namespace tl::bench
