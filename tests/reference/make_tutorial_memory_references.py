#!/usr/bin/env python3
"""Regenerates tests/reference/profiler_tutorial_memory.txt: the profiler tutorial's three acts as PyTorch
1.13's profiler records them on CPU, each event with the CPU memory it saw (profile_memory=True): MyModule
(500, 10) as models/my_module.cpp writes it (make_op_tree_references.py's), input 128 x 500, a 100 x 100 x 100
mask; act 1 a float64 mask through NumPy, act 2 a float32 one, act 3 float32 through nonzero(). Compared,
memory columns, names and counts of key_averages(), by tests/profiler/test_profiler_tutorial.cpp. Run with
Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_tutorial_memory_references.py

What the profiler sees inside MASK INDICES: the copy of the mask (its aten::empty, a child, +N) and its free
(the scope's own, -N), the temporaries of out.sum(1) and .mean() made by child ops and freed by the scope
(-516 bytes); not NumPy's memory (the comparison's bool array, argwhere's result, which torch.from_numpy
wraps without an allocation). The scopes are opened as C++'s RECORD_FUNCTION and torchless's RecordFunction
open them (torch.ops.profiler._record_function_enter_new / _exit, what record_function uses from PyTorch 2.0):
1.13's Python record_function allocates a handle, torch.zeros(1), before its scope opens and frees it inside
when __enter__ replaces it, 4 bytes more freed by the scope (the header gives its figures too).

Values do not matter to the memory but for the count nonzero() finds: Linear's weight is 0 and its bias 0.05,
so the threshold is 0.5, and the mask's elements are (i % 7) / 7 in row-major order, 3 in 7 of them above it."""
import contextlib
import pathlib

import torch
from make_op_tree_references import MyModule

HERE = pathlib.Path(__file__).resolve().parent
SIDE, BATCH = 100, 128
ACTS = [("act 1: float64 mask, MASK INDICES through NumPy", torch.float64, False),
        ("act 2: float32 mask, MASK INDICES through NumPy", torch.float32, False),
        ("act 3: float32 mask, MASK INDICES through nonzero()", torch.float32, True)]

HEADER = """\
# PyTorch {version}: the profiler tutorial's MyModule(500, 10) forward (grad mode, profile_memory=True, after a
# warm-up), input {batch} x 500, mask {side} x {side} x {side}, weight 0, bias 0.05, mask[i] = (i % 7) / 7.
# Made by tests/reference/make_tutorial_memory_references.py; compared by tests/profiler/test_profiler_tutorial.cpp.
# One line per event in recording order, an op that is its same-named parent's only child folded into it as
# the tables fold it: two spaces per nesting level, the name, its CPU Mem in bytes (its own and its children's
# allocations minus releases). Scopes opened as C++'s RECORD_FUNCTION. With 1.13's Python record_function, as
# the tutorial writes it, MASK INDICES' Self CPU Mem is {python_scope} (acts 1, 2, 3):
# its torch.zeros(1) handle, made before the scope, is freed inside it (-4), and __enter__'s 288-byte handle
# is made (by a child aten::empty) and freed inside it too.
"""


@contextlib.contextmanager
def cpp_record_function(name):
    """A scope as C++'s RECORD_FUNCTION opens it: no handle tensor."""
    handle = torch.ops.profiler._record_function_enter_new(name, None)
    try:
        yield
    finally:
        torch.ops.profiler._record_function_exit._RecordFunction(handle)


def profiled(dtype, use_nonzero, scope):
    """The profile of one forward after a warm-up."""
    module = MyModule(500, 10, use_nonzero, scope)
    with torch.no_grad():
        module.linear.weight.zero_()
        module.linear.bias.fill_(0.05)
    input = torch.rand(BATCH, 500)
    mask = (torch.arange(SIDE ** 3, dtype=torch.float64).remainder(7) / 7).to(dtype).reshape(SIDE, SIDE, SIDE)
    module(input, mask)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        module(input, mask)
    return prof


ALLOCATION = torch._C._profiler._EventType.Allocation


def allocated(event):
    """The bytes allocated minus released while `event` ran: its allocations and its descendants'."""
    if event.tag == ALLOCATION:
        return event.extra_fields.alloc_size
    return sum(allocated(child) for child in event.children)


def event_lines(prof):
    """The profiler's own event tree (experimental_event_tree: nanosecond times, each allocation under the op
    that made it) as its tables see it, each op with allocated(); allocations outside every op as "[memory]"
    lines. The tables' EventList._remove_dup_nodes (torch/autograd/profiler_util.py) folds an op into its
    parent when the parent has its name and no other child (mean.dim inside aten::mean, div_.Tensor inside
    div_.Scalar); so does this."""
    lines = []

    def walk(event, depth):
        if event.tag == ALLOCATION:
            if depth == 0:
                lines.append(f"[memory] {allocated(event)}")
            return
        lines.append("  " * depth + f"{event.name} {allocated(event)}")
        children = [c for c in event.children if c.tag != ALLOCATION]
        while len(children) == 1 and children[0].name == event.name:
            children = [c for c in children[0].children if c.tag != ALLOCATION]
        for child in children:
            walk(child, depth + 1)

    for root in prof.profiler.kineto_results.experimental_event_tree():
        walk(root, 0)
    return lines


def mask_indices_self(prof):
    """MASK INDICES' own allocations and releases (its Self CPU Mem)."""
    scope = next(e for e in prof.profiler.kineto_results.experimental_event_tree() if e.name == "MASK INDICES")
    return sum(allocated(child) for child in scope.children if child.tag == ALLOCATION)


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    lines, python_scope = [], []
    for title, dtype, use_nonzero in ACTS:
        lines.append("# " + title)
        lines += event_lines(profiled(dtype, use_nonzero, cpp_record_function))
        tutorial = profiled(dtype, use_nonzero, torch.autograd.profiler.record_function)
        python_scope.append(f"{mask_indices_self(tutorial)} B")
    text = HEADER.format(version=torch.__version__, batch=BATCH, side=SIDE, python_scope=", ".join(python_scope))
    (HERE / "profiler_tutorial_memory.txt").write_text(text + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
