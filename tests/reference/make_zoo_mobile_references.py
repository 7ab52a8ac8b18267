#!/usr/bin/env python3
"""Writes what tests/models/test_{mobilenet,mnasnet,shufflenet,efficientnet}.cpp compare with, for
torchvision 0.14's mobile families, without any weights: per builder print(model), the state_dict's keys
and shapes with each tensor's sum and sum of squares after torch.manual_seed(SEED) (construction draws,
then the model's own init), eval logits of that model once its BatchNorms are set by bn_rule() on
inputs made by input_rule(), and gm.code of torch.fx.symbolic_trace per family; and stochastic_depth's draws after a seed. Run with Debian's
PyTorch 1.13:  /usr/bin/python3 tests/reference/make_zoo_mobile_references.py"""
import math
import pathlib

import torch
import torch.fx as fx
import torchvision.models as tvm

OUT = pathlib.Path(__file__).resolve().parent / "zoo_mobile"
SEED = 0
ODD = 67  # the odd input size every variant is checked at (224 only for each family's cheapest)

FAMILIES = {
    "mobilenet": ["mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large"],
    "mnasnet": ["mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"],
    "shufflenet": ["shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"],
    "efficientnet": ["efficientnet_b%d" % i for i in range(8)],
}
CHEAPEST = {"mobilenet_v3_small", "mnasnet0_5", "shufflenet_v2_x0_5", "efficientnet_b0"}
# torch.fx traces these (shufflenet's channel_shuffle unpacks x.size(), which a Proxy refuses).
TRACED = ["mobilenet_v2", "mobilenet_v3_small", "mnasnet0_5", "efficientnet_b0"]


def bn_rule(model):
    """The k-th BatchNorm2d (named_modules order), channel c: values both sides compute in double."""
    k = 0
    with torch.no_grad():
        for _, m in model.named_modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                c = torch.arange(m.num_features, dtype=torch.float64)
                m.running_mean.copy_(0.1 * torch.sin(0.7 * c + k))
                m.running_var.copy_(1.0 + 0.25 * (1.0 + torch.cos(0.3 * c + 2 * k)))
                m.weight.copy_(1.0 + 0.2 * torch.sin(0.5 * c + 3 * k))
                m.bias.copy_(0.1 * torch.cos(0.9 * c + k))
                k += 1


def input_rule(n, size):
    """Sample s of the batch: element j (row-major over C, H, W) is sin(0.05 * j + s)."""
    j = torch.arange(3 * size * size, dtype=torch.float64)
    return torch.stack([torch.sin(0.05 * j + s) for s in range(n)]).reshape(n, 3, size, size).float()


def fmt(v):
    return "%.9g" % v


def stochastic_depth_draws():
    """torchvision.ops.stochastic_depth in training after manual_seed(7): "row" then "batch" on one input."""
    from torchvision.ops import stochastic_depth
    torch.manual_seed(7)
    x = input_rule(6, 2)
    lines = []
    for p, mode in [(0.5, "row"), (0.3, "row"), (0.5, "batch"), (0.8, "batch")]:
        lines.append("%s %s " % (fmt(p), mode) + " ".join(fmt(v) for v in stochastic_depth(x, p, mode).flatten().tolist()))
    (OUT / "stochastic_depth.txt").write_text("\n".join(lines) + "\n")


def write_structure(out, name, model):
    """<name>_repr.txt (print(model)) and <name>_state_dict.txt: per entry "key shape sum sum_of_squares"."""
    (out / (name + "_repr.txt")).write_text(str(model) + "\n")
    lines = []
    for key, t in model.state_dict().items():
        d = t.double()
        lines.append("%s %s %s %s" % (key, ",".join(str(s) for s in t.shape), fmt(d.sum().item()),
                                      fmt((d * d).sum().item())))
    (out / (name + "_state_dict.txt")).write_text("\n".join(lines) + "\n")


def write_logits(out, name, model, sizes):
    """<name>_logits.txt: for each size, batch 1 then 3 of input_rule, a line "size n classes" and the logits."""
    logits = []
    with torch.no_grad():
        for size in sizes:
            for n in (1, 3):
                y = model(input_rule(n, size))
                logits.append("%d %d %d" % (size, n, y.shape[1]))
                logits.append(" ".join(fmt(v) for v in y.flatten().tolist()))
    (out / (name + "_logits.txt")).write_text("\n".join(logits) + "\n")


def write_builder(out, name, model, at_224, traced, prepare=None):
    """Writes <name>_repr.txt, _state_dict.txt, _code.txt (when `traced`) and _logits.txt of `model`, built
    after torch.manual_seed(SEED): the logits once bn_rule (and `prepare`, when given) set its weights, in
    eval mode, at ODD (batch 1 and 3) and, with `at_224`, at 224x224."""
    write_structure(out, name, model)
    if traced:
        (out / (name + "_code.txt")).write_text(fx.symbolic_trace(model).code)
    bn_rule(model)
    if prepare is not None:
        prepare(model)
    model.eval()
    write_logits(out, name, model, [ODD] + ([224] if at_224 else []))
    print(name, sum(p.numel() for p in model.parameters()))


def main():
    OUT.mkdir(exist_ok=True)
    torch.set_num_threads(2)
    stochastic_depth_draws()
    for family, names in FAMILIES.items():
        for name in names:
            torch.manual_seed(SEED)
            write_builder(OUT, name, getattr(tvm, name)(), name in CHEAPEST, name in TRACED)

if __name__ == "__main__":
    main()
