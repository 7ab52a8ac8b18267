#!/usr/bin/env bash
# scripts/test.sh — installs what is missing, builds, runs every test suite plus the installed-package
# check, and ends with "N passed, N failed, N skipped" counted over all doctest cases and checks.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh || exit 1
bash scripts/build.sh || { echo "0 passed, 1 failed"; exit 1; }

meson test -C build --print-errorlogs --timeout-multiplier 2
meson_status=$?

extra_passed=0; extra_failed=0
if bash tests/install/check_install.sh build; then extra_passed=1; else extra_failed=1; fi

/usr/bin/python3 - "$meson_status" "$extra_passed" "$extra_failed" <<'PY'
import json, re, sys
meson_status, extra_pass, extra_fail = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
passed, failed, skipped = extra_pass, extra_fail, 0
summary = re.compile(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped")
with open("build/meson-logs/testlog.json") as log:
    for line in log:
        t = json.loads(line)
        m = summary.search(t.get("stdout", ""))
        if m:  # a doctest suite: count its cases
            p, f, s = int(m.group(2)), int(m.group(3)), int(m.group(4))
            if t["result"] not in ("OK", "SKIP") and f == 0:
                f = 1  # crashed or timed out after its summary
            passed, failed, skipped = passed + p, failed + f, skipped + s
        elif t["result"] == "OK":
            passed += 1
        elif t["result"] == "SKIP":
            skipped += 1
        else:
            failed += 1
            print(f"failed: {t['name']} ({t['result']})")
if meson_status != 0 and failed == 0:
    failed = 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
