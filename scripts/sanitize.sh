#!/usr/bin/env bash
# scripts/sanitize.sh — every test suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang,
# build-san/), then each libFuzzer harness for FUZZ_SECONDS (default 30; scripts/fuzz.sh). Prints
# "sanitize: N passed, N failed, N skipped" and one "fuzz <target>: ..." line each; exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${SANITIZE_BUILD_DIR:-build-san}
targets=(safetensors state_dict trace graph_edit)

# abort_on_error gives a core-dump-like exit that meson and libFuzzer report as a crash; leaks are
# checked at exit. allocator_may_return_null: tests/core/test_storage.cpp lifts the allocation limit
# to see the system refuse 2^62 bytes, which ASan would otherwise report instead of returning null.
# UBSan aborts on its first report (the build adds -fno-sanitize-recover too).
asan=abort_on_error=1:detect_leaks=1:allocator_may_return_null=1
export ASAN_OPTIONS=$asan:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

fail_all() {
  echo "sanitize: 0 passed, 1 failed, 0 skipped ($1)"
  for t in "${targets[@]}"; do echo "fuzz $t: 0 passed, 1 failed (not run)"; done
  exit 1
}

cxx=$(command -v clang++-14 || command -v clang++) || fail_all "clang++ not found: bash scripts/deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  launcher=$(command -v ccache || true)
  # -O1 and line tables only: full stack traces at well under half the compile time of -O2 -g.
  CXX="${launcher:+$launcher }$cxx" meson setup "$build" --buildtype=plain -Dcpp_args="-O1 -gline-tables-only" \
      -Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=true -Dbench=false -Dexamples=false \
      || fail_all "meson setup failed"
fi
ninja -C "$build" || fail_all "build failed"

meson test -C "$build" --no-rebuild --print-errorlogs --timeout-multiplier 4
meson_status=$?
suite=$(/usr/bin/python3 scripts/count_tests.py testlog "$build" "$meson_status")
status=$?
echo "sanitize: $suite"

bash scripts/fuzz.sh "${targets[@]}" || status=1
exit $status
