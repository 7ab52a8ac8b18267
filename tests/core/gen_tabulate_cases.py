#!/usr/bin/python3
# Prints the expected strings of tests/core/test_text_table.cpp's tabulate cases, as
# python3-tabulate (the library the fx_profiling_tutorial uses) formats them.
import tabulate

rows = [["call_module", "layer1_0_conv1", 0.00345683, 5.15744],
        ["call_function", "add", 1.2e-05, 0.0178],
        ["placeholder", "x", 7.15256e-07, 0.000995988],
        ["output", "output", 3.5, 12]]
print(repr(tabulate.tabulate(rows, headers=['Op type', 'Op', 'Average runtime (s)', 'Pct total runtime'])))
