#!/usr/bin/env python3
"""Regenerates tests/reference/profiler_table_shortening.json: PyTorch 1.13's key_averages tables for
rows whose names, input shapes and stack entries are too long for their columns, at several
max_name_column_width values, as torch.autograd.profiler_util._build_table shortens them (names cut at
the end with "...", shapes cut, source locations cut at the start). The rows go into the file too, so
tests/profiler/test_table.cpp builds the same rows and compares its tables byte for byte. Run with
Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_table_shortening.py"""
import json
import pathlib

import torch
from torch.autograd.profiler_util import EventList, FunctionEvent

HERE = pathlib.Path(__file__).resolve().parent


def name_of(length, stem):
    return (stem + "_" * length)[:length - 1] + "z"


# Names around the default width (55): PyTorch cuts every name of 52 bytes or more, even one that fits.
ROWS = [
    (name_of(80, "aten::a_very_long_operator_name"), [[2, 3, 224, 224], [64, 3, 7, 7], [64], [2], [3], [1]]),
    (name_of(56, "aten::fifty_six"), [[128, 500], [10, 500], [10]]),
    (name_of(55, "aten::fifty_five"), [[1]]),
    (name_of(53, "aten::fifty_three"), []),
    (name_of(52, "aten::fifty_two"), [[5, 6]]),
    (name_of(51, "aten::fifty_one"), [[7]]),
    ("aten::add", [[1000, 1000, 1000, 1000, 1000, 1000, 1000], [1000, 1000, 1000, 1000, 1000, 1000, 1000], []]),
    ("LINEAR PASS", []),
]
STACKS = [
    ["<built-in method _record_function_enter of PyCapsule object at 0x7ff2528fe3d0>",
     "/usr/lib/python3/dist-packages/torch/nn/modules/a_rather_long_module_path/linear.py(113): forward",
     "nn.Module: Linear_0"],
    ["prof_ref.py(9): forward", "nn.Module: MyModule_0"],
]
WIDTHS = [55, 40, 10, 4, 3, 2, 1]


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    events, rows = [], []
    start = 0
    for i, (name, shapes) in enumerate(ROWS):
        duration = 1000 - 37 * i  # distinct, so sorting by self time orders them
        stack = STACKS[i % len(STACKS)]
        events.append(FunctionEvent(id=i, name=name, thread=1, start_us=start, end_us=start + duration,
                                    input_shapes=shapes, stack=stack))
        rows.append({"name": name, "duration_us": duration, "input_shapes": str(shapes), "stack": stack})
        start += duration + 10
    event_list = EventList(events)
    event_list._build_tree()
    averages = event_list.key_averages(group_by_input_shapes=True, group_by_stack_n=5)
    tables = [{"max_name_column_width": w, "max_shapes_column_width": 60, "max_src_column_width": 50,
               "table": averages.table(sort_by="self_cpu_time_total", max_name_column_width=w,
                                       max_shapes_column_width=60, max_src_column_width=50)}
              for w in WIDTHS]
    out = {"made_by": "tests/reference/make_table_shortening.py", "torch": torch.__version__, "rows": rows,
           "tables": tables}
    (HERE / "profiler_table_shortening.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
