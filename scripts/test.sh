#!/usr/bin/env bash
# scripts/test.sh — installs what is missing, builds, runs every test suite plus the installed-package
# check, then the same suites under ASan + UBSan and the fuzzers (scripts/sanitize.sh; SANITIZE=0 skips
# them), and ends with "N passed, N failed, N skipped" counted over all doctest cases and checks.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh || exit 1
bash scripts/build.sh true || { echo "0 passed, 1 failed"; exit 1; }

meson test -C build --print-errorlogs --timeout-multiplier 2
meson_status=$?

parts=$(mktemp) sanitize_log=$(mktemp)
trap 'rm -f "$parts" "$sanitize_log"' EXIT
echo "tests: $(/usr/bin/python3 scripts/count_tests.py testlog build "$meson_status")" | tee -a "$parts"
if bash tests/install/check_install.sh build; then
  echo "install: 1 passed, 0 failed" | tee -a "$parts"
else
  echo "install: 0 passed, 1 failed" | tee -a "$parts"
fi
if [ "${SANITIZE:-1}" != 0 ]; then
  bash scripts/sanitize.sh | tee "$sanitize_log"
  grep -E '^(sanitize|fuzz [a-z_]+): ' "$sanitize_log" >>"$parts"
fi
/usr/bin/python3 scripts/count_tests.py sum "$parts"
