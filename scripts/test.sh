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
# The install checks: out-of-tree consumers (pkg-config, CMake) of a static install and of a shared one (the
# shared libraries are linked from the static ones' objects, so the second configuration only links them),
# and as root (CI) the .deb files of the shared build: installed, used, purged. build/ is left static.
install_passed=0 install_failed=0 install_skipped=0
for kind in static both; do
  if meson configure build -Ddefault_library=$kind >/dev/null && ninja -C build >/dev/null &&
     bash tests/install/check_install.sh build; then
    install_passed=$((install_passed + 1))
  else
    install_failed=$((install_failed + 1))
  fi
done
# (build/ is configured `both` here, from the last round above.)
if [ "$(id -u)" -ne 0 ]; then
  echo "deb check: skipped (it installs packages: root only)"
  install_skipped=1
elif bash tests/install/check_deb.sh build; then
  install_passed=$((install_passed + 1))
else
  install_failed=$((install_failed + 1))
fi
meson configure build -Ddefault_library=static >/dev/null
echo "install: $install_passed passed, $install_failed failed, $install_skipped skipped" | tee -a "$parts"
if [ "${SANITIZE:-1}" != 0 ]; then
  bash scripts/sanitize.sh | tee "$sanitize_log"
  grep -E '^(sanitize|fuzz [a-z_]+): ' "$sanitize_log" >>"$parts"
fi
/usr/bin/python3 scripts/count_tests.py sum "$parts"
