#!/usr/bin/env python3
"""tl-tracediff's --device and --short-names (with the rank and step options) against HTA's numbers on the
kineto GPU traces of tests/trace/data/kineto_ddp (hta_expected.json, from gen_kineto_ddp.py): each case runs
the command with the options the case names, reads its --csv, and compares every count and duration with
HTA's row; a bad --device value is a usage error (exit 2) naming it. Run by meson (test "tracediff_cli"):
    tests/trace/check_tracediff_cli.py build/tools/tl-tracediff tests/trace/data/kineto_ddp"""
import csv
import json
import os
import subprocess
import sys
import tempfile


def flags(options):
    """The command-line options standing for a case's CompareOptions."""
    args = ["--device", options.get("device_type", "all")]
    if options.get("use_short_name"):
        args.append("--short-names")
    if options.get("totals"):
        args.append("--totals")
    for side in ("control", "test"):
        for rank in options.get(f"{side}_ranks", []):
            args += [f"--{side}-rank", str(rank)]
        if options.get(f"{side}_steps"):
            args += [f"--{side}-steps", ",".join(map(str, options[f"{side}_steps"]))]
    return args


def check_case(tool, data, case, scratch):
    """The differences between the command's CSV and HTA's rows for one case."""
    out = os.path.join(scratch, case["name"] + ".csv")
    cmd = [tool, os.path.join(data, "control"), os.path.join(data, "test"), "--csv", out] + flags(case["options"])
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        return [f"{' '.join(cmd)} exited {run.returncode}: {run.stderr}"]
    ours = {row["name"]: row for row in csv.DictReader(open(out))}
    problems = []
    if sorted(ours) != sorted(r["name"] for r in case["rows"]):
        problems.append(f"names differ: {sorted(ours)} vs HTA's {[r['name'] for r in case['rows']]}")
    for hta in case["rows"]:
        row = ours.get(hta["name"])
        if row is None:
            continue
        for ours_column, hta_column in (("control_counts", "control_counts"), ("test_counts", "test_counts"),
                                        ("diff_counts", "diff_counts"),
                                        ("control_duration_us", "control_total_duration"),
                                        ("test_duration_us", "test_total_duration"),
                                        ("diff_duration_us", "diff_duration")):
            if float(row[ours_column]) != float(hta[hta_column]):
                problems.append(f"{hta['name']}: {ours_column} {row[ours_column]} vs HTA's {hta[hta_column]}")
    return problems


def main(tool, data):
    expected = json.load(open(os.path.join(data, "hta_expected.json")))
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        for case in expected["cases"]:
            problems += [f"{case['name']}: {p}" for p in check_case(tool, data, case, scratch)]
    bad = subprocess.run([tool, "--device", "tpu", "a", "b"], capture_output=True, text=True)
    if bad.returncode != 2 or "--device: expected cpu, gpu or all, got 'tpu'" not in bad.stderr:
        problems.append(f"--device tpu: exit {bad.returncode}, stderr {bad.stderr!r}")
    for p in problems:
        print(p)
    print(f"{len(expected['cases'])} cases, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
