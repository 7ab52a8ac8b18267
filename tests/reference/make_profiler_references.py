#!/usr/bin/env python3
"""Regenerates tests/reference/profiler_train_step.txt, PyTorch 1.13's profile of one ResNet18 training
step as tests/profiler/test_training_profile.cpp compares it: the optimizer scopes and the backward
steps, named and nested as PyTorch's profiler records them. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_profiler_references.py

The nesting is read from the profiler's own event tree (experimental_event_tree: parents as recorded,
nanosecond times), not rebuilt from the microsecond times of a trace, which can put a short op beside
its parent. Debian's build has no kineto, so the Chrome trace it writes is the legacy one (no
categories, no flow events); what this file holds does not depend on that."""
import pathlib

import torch
import torchvision

HERE = pathlib.Path(__file__).resolve().parent
EVALUATE = "autograd::engine::evaluate_function: "

HEADER = """\
# PyTorch {version}: one profiled training step of torchvision's resnet18 (train mode, batch 2 x 3 x 64 x 64,
# CrossEntropyLoss, SGD(lr=0.1, momentum=0.9), zero_grad(set_to_none=False)) after one warm-up step.
# Made by tests/reference/make_profiler_references.py; compared by tests/profiler/test_training_profile.cpp.
# Each top-level optimizer scope (Optimizer.step with its direct children; PyTorch's own aten::empty of
# its Python record_function left out) and each top-level backward step with its direct children and
# its node's direct children, in recording order, two spaces per level.
"""


def outline(roots):
    lines = []
    for event in roots:
        if event.name.startswith("Optimizer."):
            lines.append(event.name)
            if event.name.startswith("Optimizer.step#"):
                children = list(event.children)
                # record_function's __enter__ allocates its handle inside the scope it opens.
                if children and children[0].name == "aten::empty":
                    children = children[1:]
                lines += ["  " + child.name for child in children]
        elif event.name.startswith(EVALUATE):
            lines.append(event.name)
            for child in event.children:
                lines.append("  " + child.name)
                if not child.name.startswith("aten::"):  # the node: its formula's ops
                    lines += ["    " + op.name for op in child.children]
    return lines


def resnet18_training_step():
    """One ResNet18 training step (seed 0, batch 2x3x64x64, cross-entropy, SGD momentum 0.9), as a function;
    tests/profiler/test_training_profile.cpp runs the same step. make_op_tree_references.py profiles it too."""
    torch.manual_seed(0)
    model = torchvision.models.resnet18()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss()
    x = torch.randn(2, 3, 64, 64)
    target = torch.tensor([1, 2])

    def step():
        optimizer.zero_grad(set_to_none=False)
        criterion(model(x), target).backward()
        optimizer.step()

    return step


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    step = resnet18_training_step()
    step()  # warm-up: .grad and the momentum buffers exist, as in every later step
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        step()
    roots = prof.profiler.kineto_results.experimental_event_tree()
    text = HEADER.format(version=torch.__version__) + "\n".join(outline(roots)) + "\n"
    (HERE / "profiler_train_step.txt").write_text(text)


if __name__ == "__main__":
    main()
