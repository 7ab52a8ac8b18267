#!/usr/bin/env python3
"""Counts test results the way CI reports them: "N passed, N failed, N skipped".

  count_tests.py testlog BUILD_DIR [MESON_STATUS]
      Counts meson's BUILD_DIR/meson-logs/testlog.json: a doctest suite by its cases, any other test
      as one. Failed tests are named on stderr. A non-zero MESON_STATUS with nothing failed (a test
      that could not start) counts as one failure.
  count_tests.py sum FILE...
      Adds up the "[label: ]N passed, N failed[, N skipped]" lines of the files (one per part of a
      run: test suite, install check, sanitizer suite, each fuzzer).
Both print the total as their only stdout line and exit 1 when anything failed."""
import json, pathlib, re, sys

DOCTEST = re.compile(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped")
SUMMARY = re.compile(r"^(?:[\w .-]+: )?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?")


def count_testlog(build_dir, meson_status):
    passed = failed = skipped = 0
    log = pathlib.Path(build_dir) / "meson-logs" / "testlog.json"
    lines = log.read_text().splitlines() if log.exists() else []
    for line in lines:
        t = json.loads(line)
        m = DOCTEST.search(t.get("stdout", ""))
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
            print(f"failed: {t['name']} ({t['result']})", file=sys.stderr)
    if (meson_status != 0 or not lines) and failed == 0:
        failed = 1
    return passed, failed, skipped


def sum_summaries(files):
    passed = failed = skipped = 0
    for name in files:
        for line in pathlib.Path(name).read_text().splitlines():
            m = SUMMARY.match(line.strip())
            if m:
                passed, failed, skipped = passed + int(m.group(1)), failed + int(m.group(2)), skipped + int(m.group(3) or 0)
    return passed, failed, skipped


def main(argv):
    if len(argv) >= 2 and argv[0] == "testlog":
        totals = count_testlog(argv[1], int(argv[2]) if len(argv) > 2 else 0)
    elif len(argv) >= 2 and argv[0] == "sum":
        totals = sum_summaries(argv[1:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    passed, failed, skipped = totals
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
