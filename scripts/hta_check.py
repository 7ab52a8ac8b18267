#!/usr/bin/env python3
"""Checks tl-tracediff against HTA 0.5 on two trace directories as tensorboard_trace_handler writes them
(e.g. bench/tracediff_demo's OUT_DIR/unfused and OUT_DIR/fused, or OUT_DIR/batch8 and OUT_DIR/batch16 of
its resnet18-train mode): HTA loads each directory (TraceAnalysis(trace_dir=...)), and its
TraceDiff.compare_traces, without its rounding to whole microseconds, must give the op counts and total
durations of tl-tracediff's CSV for the same directories. By default both use their defaults (first rank,
first iteration); with --iterations all, HTA is given every iteration of each side (it sums them) and the
CSV must come from `tl-tracediff --iterations all --totals`. Prints the comparison; exits 1 naming each op
that differs (durations within 0.01 us). HTA and its apt packages: ../shared/anchors/hta/HOW_TO_RUN.md.
    build/tools/tl-tracediff CONTROL_DIR TEST_DIR --csv diff.csv
    PYTHONPATH=../shared/anchors/hta /usr/bin/python3 scripts/hta_check.py CONTROL_DIR TEST_DIR diff.csv
    build/tools/tl-tracediff CONTROL_DIR TEST_DIR --iterations all --totals --csv all.csv
    PYTHONPATH=../shared/anchors/hta /usr/bin/python3 scripts/hta_check.py --iterations all CONTROL_DIR TEST_DIR all.csv"""
import csv
import os
import sys

os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"  # read when HTA is imported

from hta.trace_analysis import TraceAnalysis  # noqa: E402
from hta.trace_diff import LabeledTrace, TraceDiff  # noqa: E402


def main(control_dir, test_dir, csv_path, all_iterations):
    control = LabeledTrace(label="control", t=TraceAnalysis(trace_dir=control_dir).t)
    test = LabeledTrace(label="test", t=TraceAnalysis(trace_dir=test_dir).t)
    if all_iterations:
        hta = TraceDiff.compare_traces(control, test, control_iteration=control.iterations(),
                                       test_iteration=test.iterations())
    else:
        hta = TraceDiff.compare_traces(control, test)
    print(hta.sort_values("diff_duration").to_string())
    ours = {row["name"]: row for row in csv.DictReader(open(csv_path))}
    problems = []
    for name in sorted(set(hta.index) | set(ours)):
        if name not in ours or name not in hta.index:
            problems.append(f"{name}: only in {'HTA' if name in hta.index else 'tl-tracediff'}")
            continue
        h, o = hta.loc[name], ours[name]
        for side in ("control", "test"):
            if h[f"{side}_counts"] != float(o[f"{side}_counts"]):
                problems.append(f"{name}: {side} counts HTA {h[f'{side}_counts']} vs {o[f'{side}_counts']}")
            if abs(h[f"{side}_total_duration"] - float(o[f"{side}_duration_us"])) > 0.01:
                problems.append(f"{name}: {side} duration HTA {h[f'{side}_total_duration']} us vs "
                                f"{o[f'{side}_duration_us']} us")
    print(f"{len(hta)} ops in HTA's table, {len(ours)} in tl-tracediff's CSV, {len(problems)} differences")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    all_iterations = args[:2] == ["--iterations", "all"]
    if all_iterations:
        args = args[2:]
    if len(args) != 3:
        sys.exit(__doc__)
    sys.exit(main(*args, all_iterations))
