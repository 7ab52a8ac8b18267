#!/usr/bin/env python3
"""Writes tests/models/data/bad_input.json, what tests/models/test_bad_input.cpp compares with: which inputs and which
builder arguments torchvision 0.14 refuses.

"forward": for each family's cheapest builder (and the small VisionTransformer, SwinTransformer and MaxVit
configurations the other suites use), num_classes=10, in eval mode: the smallest square size s (1 ... 80) it runs
(vit and maxvit: their fixed size); when s > 1, the inputs (s - 1, s) and (s, s - 1), one side too small (fixed size:
one side 8 larger, one 8 smaller); a 3-D input (C, H, W) at s; a 4-channel input at s; for each whether PyTorch refuses
it, in which module and with which message. The module is the innermost one whose forward was running when the error
came (forward pre-hooks push, forward hooks pop): its dotted path ("" for the model's own forward) and class name. Sizes
from s to 80 that PyTorch refuses are listed too (none are expected: a model that runs at s runs at every larger size).

"builders": for each call of BUILDS, num_classes=-1 of every model above and num_classes=0 of a few: whether
torchvision refuses it (and its exception's type and first line), else its parameter count and whether its eval
forward at 32x32 raises.
Run with Debian's PyTorch 1.13:  /usr/bin/python3 tests/models/make_bad_input_cases.py"""
import json
import pathlib
import sys
from functools import partial

import torch
import torchvision.models as tvm
from torchvision.models import MaxVit, SwinTransformer, VisionTransformer
from torchvision.models.regnet import BlockParams, RegNet

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
from make_zoo_swin_maxvit_references import small_swin  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "data" / "bad_input.json"
MAX_SIZE = 80

# name: (builder, fixed input size or None)
MODELS = {
    "alexnet": (partial(tvm.alexnet, num_classes=10), None),
    "vgg11": (partial(tvm.vgg11, num_classes=10, init_weights=False), None),
    "squeezenet1_0": (partial(tvm.squeezenet1_0, num_classes=10), None),
    "squeezenet1_1": (partial(tvm.squeezenet1_1, num_classes=10), None),
    "resnet18": (partial(tvm.resnet18, num_classes=10), None),
    "densenet121": (partial(tvm.densenet121, num_classes=10), None),
    "googlenet": (partial(tvm.googlenet, num_classes=10, init_weights=False), None),
    "inception_v3": (partial(tvm.inception_v3, num_classes=10, init_weights=False), None),
    "mobilenet_v2": (partial(tvm.mobilenet_v2, num_classes=10), None),
    "mobilenet_v3_small": (partial(tvm.mobilenet_v3_small, num_classes=10), None),
    "mnasnet0_5": (partial(tvm.mnasnet0_5, num_classes=10), None),
    "shufflenet_v2_x0_5": (partial(tvm.shufflenet_v2_x0_5, num_classes=10), None),
    "efficientnet_b0": (partial(tvm.efficientnet_b0, num_classes=10), None),
    "efficientnet_v2_s": (partial(tvm.efficientnet_v2_s, num_classes=10), None),
    "regnet_x_400mf": (partial(tvm.regnet_x_400mf, num_classes=10), None),
    "convnext_tiny": (partial(tvm.convnext_tiny, num_classes=10), None),
    "swin_small": (partial(SwinTransformer, [4, 4], 16, [2, 2], [2, 4], [3, 3], num_classes=10), None),
    "vit_small": (partial(VisionTransformer, 32, 8, 2, 2, 16, 32, num_classes=10), 32),
    "maxvit_small": (partial(MaxVit, (32, 32), 8, 2, [8, 16], [1, 2], 4, 0.1, num_classes=10), 32),
}


# name: builder call; the same calls are made in C++ by tests/models/test_bad_input.cpp.
BUILDS = {
    "efficientnet_b0(dropout=0.1)": lambda: tvm.efficientnet_b0(dropout=0.1),
    "efficientnet_b5(norm_layer=BatchNorm2d)": lambda: tvm.efficientnet_b5(norm_layer=torch.nn.BatchNorm2d),
    "efficientnet_b0(norm_layer=BatchNorm2d, num_classes=10)":
        lambda: tvm.efficientnet_b0(norm_layer=torch.nn.BatchNorm2d, num_classes=10),
    "efficientnet_b0(stochastic_depth_prob=1.05, num_classes=10)":
        lambda: tvm.efficientnet_b0(stochastic_depth_prob=1.05, num_classes=10),
    "efficientnet_b0(stochastic_depth_prob=1.5)": lambda: tvm.efficientnet_b0(stochastic_depth_prob=1.5),
    "efficientnet_b0(stochastic_depth_prob=-0.5)": lambda: tvm.efficientnet_b0(stochastic_depth_prob=-0.5),
    "convnext_tiny(stochastic_depth_prob=1.5)": lambda: tvm.convnext_tiny(stochastic_depth_prob=1.5),
    "swin_t(stochastic_depth_prob=0.1)": lambda: tvm.swin_t(stochastic_depth_prob=0.1),
    "SwinTransformer(depths=[1], heads=[2])": lambda: SwinTransformer([4, 4], 16, [1], [2], [3, 3]),
    "SwinTransformer(stochastic_depth_prob=1.5)": lambda: small_swin(False, stochastic_depth_prob=1.5),
    "MaxVit(stochastic_depth_prob=1.5)": lambda: MaxVit((32, 32), 8, 2, [8, 16], [1, 2], 4, 1.5, num_classes=10),
    "mobilenet_v2(round_nearest=0)": lambda: tvm.mobilenet_v2(round_nearest=0),
    "mobilenet_v2(round_nearest=-8, num_classes=10)": lambda: tvm.mobilenet_v2(round_nearest=-8, num_classes=10),
    "mobilenet_v2(width_mult=-1, num_classes=10)": lambda: tvm.mobilenet_v2(width_mult=-1.0, num_classes=10),
    "densenet121(drop_rate=1.5, num_classes=10)": lambda: tvm.densenet121(drop_rate=1.5, num_classes=10),
    "densenet121(drop_rate=-0.5, num_classes=10)": lambda: tvm.densenet121(drop_rate=-0.5, num_classes=10),
    "regnet_x_400mf(stem_width=0)": lambda: tvm.regnet_x_400mf(stem_width=0),
    "BlockParams.from_init_params(group_width=0)": lambda: BlockParams.from_init_params(16, 48, 27.89, 2.09, 0),
    "RegNet(widths [24, 56], group widths [8])":
        lambda: RegNet(BlockParams([1, 1], [24, 56], [8], [1.0, 1.0], [2, 2], None), num_classes=10),
    "RegNet(group widths [0])": lambda: RegNet(BlockParams([1], [24], [0], [1.0], [2], None), num_classes=10),
    "VisionTransformer(image_size=30, patch_size=8)": lambda: VisionTransformer(30, 8, 2, 2, 16, 32),
    "VisionTransformer(hidden_dim=15, num_heads=2)": lambda: VisionTransformer(32, 8, 2, 2, 15, 32),
}
# num_classes=-1 for each family's class (torchvision builds every other layer, then nn.Linear refuses the head).
NEGATIVE_CLASSES = {name: build for name, (build, _) in MODELS.items()}
# num_classes=0 for a few (torchvision builds an empty head, nn.Linear's or SqueezeNet's 1x1 conv).
ZERO_CLASSES = ["squeezenet1_0", "resnet18", "mobilenet_v3_small", "efficientnet_b0", "swin_small", "vit_small"]


def build_case(build):
    """Whether torchvision refuses the call (with its exception's type and text); else the parameter count and
    whether the model's eval forward at 32x32 raises (a drop probability outside [0, 1] does at every forward)."""
    try:
        model = build()
    except Exception as e:  # noqa: BLE001
        return {"refused": True, "message": f"{type(e).__name__}: {str(e).splitlines()[0]}"}
    c = {"refused": False}
    if isinstance(model, torch.nn.Module):
        c["parameters"] = sum(p.numel() for p in model.parameters())
        c["forward_refused"] = failing_module(model.eval(), torch.zeros(1, 3, 32, 32)) is not None
    return c


def failing_module(model, x):
    """None when model(x) runs, else (path, class name, first line of PyTorch's message)."""
    names = {m: n for n, m in model.named_modules()}
    stack = []
    handles = []
    def enter(module, inputs):
        stack.append(module)

    def leave(module, inputs, output):
        stack.pop()

    for m in model.modules():
        handles.append(m.register_forward_pre_hook(enter))
        handles.append(m.register_forward_hook(leave))
    try:
        model(x)
        return None
    except Exception as e:  # noqa: BLE001: every refusal is recorded, whatever its Python type
        inner = stack[-1]
        return names[inner], type(inner).__name__, str(e).splitlines()[0]
    finally:
        for h in handles:
            h.remove()


def case(model, shape):
    got = failing_module(model, torch.zeros(shape))
    c = {"input": list(shape), "refused": got is not None}
    if got is not None:
        c["module"], c["type"], c["message"] = got
    return c


def main():
    torch.manual_seed(0)
    out = {}
    with torch.no_grad():
        for name, (build, fixed) in MODELS.items():
            model = build().eval()
            if fixed is None:
                sizes = [s for s in range(1, MAX_SIZE + 1) if failing_module(model, torch.zeros(1, 3, s, s)) is None]
                smallest = sizes[0]
                refused_above = [s for s in range(smallest, MAX_SIZE + 1) if s not in sizes]
                good = smallest
            else:
                smallest, refused_above, good = fixed, [], fixed
            cases = [case(model, (1, 3, good, good))]
            if fixed is not None:
                cases += [case(model, (1, 3, good + 8, good)), case(model, (1, 3, good, good - 8))]
            elif smallest > 1:
                cases += [case(model, (1, 3, smallest - 1, smallest)), case(model, (1, 3, smallest, smallest - 1))]
            cases += [case(model, (3, good, good)), case(model, (1, 4, good, good))]
            out[name] = {"smallest": smallest, "refused_above": refused_above, "cases": cases}
            print(name, smallest, refused_above, [(c["input"], c.get("module"), c.get("type")) for c in cases[1:]])
    builds = {name: build_case(build) for name, build in BUILDS.items()}
    for name, build in NEGATIVE_CLASSES.items():
        builds[f"{name}(num_classes=-1)"] = build_case(partial(build, num_classes=-1))
        if name in ZERO_CLASSES:
            builds[f"{name}(num_classes=0)"] = build_case(partial(build, num_classes=0))
    for name, c in builds.items():
        print(name, c)
    OUT.write_text(json.dumps({"forward": out, "builders": builds}, indent=1) + "\n")


if __name__ == "__main__":
    main()
