#!/usr/bin/env bash
# scripts/fuzz.sh — runs the libFuzzer harnesses of a sanitizer tree (scripts/sanitize.sh builds it) for
# FUZZ_SECONDS each (default 30), and prints "fuzz <target>: 1 passed, 0 failed (N runs in S s)" each.
# usage: [FUZZ_SECONDS=3600] bash scripts/fuzz.sh [TARGET...]   (targets: safetensors state_dict trace graph_edit)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${SANITIZE_BUILD_DIR:-build-san}
fuzz_seconds=${FUZZ_SECONDS:-30}
targets=("$@")
((${#targets[@]})) || targets=(safetensors state_dict trace graph_edit)

# The same sanitizer settings as the test suite (see scripts/sanitize.sh), unless the caller set them.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}

# New inputs go to $build/fuzz-corpus/<target>, so the committed seeds (fuzz/corpus/) stay as they
# are and a later run goes on from what earlier ones found. A crashing input is saved as
# $build/fuzz-artifacts/<target>-crash-<sha1>: `$build/fuzz/fuzz_<target> FILE` replays it.
mkdir -p "$build/fuzz-artifacts"
status=0
for t in "${targets[@]}"; do
  harness="$build/fuzz/fuzz_$t"
  if [ ! -x "$harness" ]; then
    echo "fuzz $t: 0 passed, 1 failed ($harness not built: bash scripts/sanitize.sh)"
    status=1
    continue
  fi
  mkdir -p "$build/fuzz-corpus/$t"
  log="$build/fuzz-artifacts/$t.log"
  # -timeout: seconds for one input (inputs take about a millisecond; the margin absorbs a loaded
  # machine's stalls, which gave a false 11 s once); -rss_limit_mb: the contract's memory ceiling.
  dict=(); [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")  # graph_edit's bytes are a program: no dictionary
  "$harness" "$build/fuzz-corpus/$t" "fuzz/corpus/$t" "${dict[@]}" -max_total_time="$fuzz_seconds" \
      -timeout=25 -rss_limit_mb=2048 -artifact_prefix="$build/fuzz-artifacts/$t-" -print_final_stats=1 \
      >"$log" 2>&1
  fuzz_status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$fuzz_status" -eq 0 ]; then
    echo "fuzz $t: 1 passed, 0 failed (${runs:-0} runs in ${fuzz_seconds} s)"
  else
    tail -n 40 "$log"
    echo "fuzz $t: 0 passed, 1 failed (exit $fuzz_status after ${runs:-?} runs; log: $log)"
    status=1
  fi
done
exit $status
