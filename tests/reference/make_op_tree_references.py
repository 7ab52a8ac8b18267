#!/usr/bin/env python3
"""Regenerates tests/reference/op_tree_resnet18.txt and op_tree_my_module.txt: the op events PyTorch 1.13
records on CPU, with their nesting and Input Shapes, for an inference forward of torchvision's resnet18
and of the profiler tutorial's MyModule as models/my_module.cpp writes it. Compared by
tests/profiler/test_op_tree.cpp. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_op_tree_references.py

The tree is the profiler's own (experimental_event_tree: parents as recorded, nanosecond times); Debian's
build has no kineto, which this does not need. Batch 2, not 1: with one image ATen runs most 3x3
convolutions through thnn_conv2d (its mkldnn heuristic wants a batch above 1 or a large input), where
torchless always runs oneDNN, as ATen's mkldnn_convolution does."""
import pathlib

import numpy
import torch
import torchvision

HERE = pathlib.Path(__file__).resolve().parent

HEADER = """\
# PyTorch {version}: {what}
# Made by tests/reference/make_op_tree_references.py; compared by tests/profiler/test_op_tree.cpp.
# One line per event in recording order: two spaces per nesting level, the name, the Input Shapes.
"""


class MyModule(torch.nn.Module):
    """models/my_module.cpp's MyModule: the tutorial's, with mask.cpu() a copy into a new buffer (on CPU,
    PyTorch's cpu() would return the mask itself) and MASK INDICES optionally through nonzero()."""

    def __init__(self, in_features, out_features, use_nonzero):
        super().__init__()
        self.linear = torch.nn.Linear(in_features, out_features)
        self.use_nonzero = use_nonzero

    def forward(self, input, mask):
        with torch.autograd.profiler.record_function("LINEAR PASS"):
            out = self.linear(input)
        with torch.autograd.profiler.record_function("MASK INDICES"):
            if self.use_nonzero:
                threshold = out.sum(1).mean()
                hi_idx = (mask > threshold).nonzero()
            else:
                threshold = out.sum(1).mean().item()
                host = torch.empty(mask.shape, dtype=mask.dtype)
                host.copy_(mask)
                hi_idx = torch.from_numpy(numpy.argwhere(host.numpy() > threshold))
        return out, hi_idx


def event_lines(run):
    run()  # warm-up
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        run()
    lines = []

    def walk(event, depth):
        lines.append("  " * depth + event.name + " " + str(event.extra_fields.inputs.shapes))
        for child in event.children:
            walk(child, depth + 1)

    for root in prof.profiler.kineto_results.experimental_event_tree():
        walk(root, 0)
    return lines


def write(name, what, lines):
    text = HEADER.format(version=torch.__version__, what=what) + "\n".join(lines) + "\n"
    (HERE / name).write_text(text)


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    x = torch.randn(2, 3, 64, 64)
    with torch.no_grad():
        write("op_tree_resnet18.txt", "torchvision's resnet18 forward (eval, no_grad, input 2 x 3 x 64 x 64)",
              event_lines(lambda: model(x)))
    lines = []
    for use_nonzero in (False, True):
        module = MyModule(500, 10, use_nonzero)
        input, mask = torch.rand(8, 500), torch.rand(6, 6, 6)
        lines.append(f"# use_nonzero={use_nonzero}")
        with torch.no_grad():
            lines += event_lines(lambda: module(input, mask))
    write("op_tree_my_module.txt", "the profiler tutorial's MyModule(500, 10) forward (no_grad, input 8 x 500, "
          "float32 mask 6 x 6 x 6), first with MASK INDICES through NumPy, then through nonzero()", lines)


if __name__ == "__main__":
    main()
