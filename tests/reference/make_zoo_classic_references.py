#!/usr/bin/env python3
"""Regenerates tests/reference/zoo_classic.json.gz (gzipped: the texts of deep models repeat; 1.2 MB
as JSON), torchvision 0.14's facts for the classic and residual families (tests/models/test_alexnet.cpp,
test_vgg.cpp, test_squeezenet.cpp, test_resnext.cpp, test_densenet.cpp, test_resnet.cpp): print(model), state_dict keys
and shapes, parameter counts (also of the default 1000-class model, for docs/model_zoo.md), torch.fx's
graph and code of each family's first builder, and eval logits on seeded weights. Run with Debian's
PyTorch 1.13 (with the machine's default CPU capability, as tests/reference/make_rng_references.py:
torchless draws its normal_ / uniform_ streams bit for bit):
    /usr/bin/python3 tests/reference/make_zoo_classic_references.py

The rule both sides apply (tests/models/zoo_reference.cpp): manual_seed(SEED); build the model with
num_classes=10 (a small file); calibrate its BatchNorm2d layers in float64 as
tests/support/bn_calibration.cpp does, on a (2, 3, H, W) input at the family's odd size, then back to
float32; draw x_odd = randn(3, 3, H, W), then (first builder only) x_224 = randn(3, 3, 224, 224); eval
logits of x[:1] and of x."""
import gzip
import json
import math
import pathlib

import torch
import torch.fx as fx
import torchvision.models as tvm

HERE = pathlib.Path(__file__).resolve().parent
SEED = 34
NUM_CLASSES = 10

# family: (odd input size (H, W), builders; the first is the cheapest, also run at 224x224 and traced)
FAMILIES = {
    "alexnet": ((67, 71), ["alexnet"]),
    "vgg": ((33, 35), ["vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]),
    "squeezenet": ((37, 39), ["squeezenet1_1", "squeezenet1_0"]),
    "resnext": ((33, 35), ["resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2",
                           "wide_resnet101_2"]),
    "densenet": ((65, 67), ["densenet121", "densenet161", "densenet169", "densenet201"]),
    "resnet": ((33, 35), ["resnet101", "resnet152"]),
}


def number(x):
    x = float(x)
    assert math.isfinite(x)
    return float(f"{x:.9g}")


def flat(t):
    return [number(v) for v in t.detach().double().reshape(-1).tolist()]


def calibrate_batch_norms(model, input_shape):
    """tests/support/bn_calibration.cpp in Python: affine parameters first (module order), then each BN's
    running statistics from the input it receives on one eval pass, with a small jitter."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        for bn in bns:
            c = bn.num_features
            bn.weight.copy_(torch.rand(c) + 0.5)
            bn.bias.copy_(torch.randn(c) * 0.1)

    def before(bn, inputs):
        x = inputs[0]
        c = bn.num_features
        mean = x.mean((0, 2, 3))
        var = (x - mean.view(1, c, 1, 1)).pow(2.0).mean((0, 2, 3))
        bn.running_mean.copy_(mean + torch.randn(c) * 0.05)
        bn.running_var.copy_(var * (torch.rand(c) * 0.4 + 0.8))

    handles = [bn.register_forward_pre_hook(before) for bn in bns]
    training = model.training
    model.eval()
    with torch.no_grad():
        model(torch.randn(input_shape).to(next(model.parameters()).dtype))
    for h in handles:
        h.remove()
    model.train(training)


def logits(model, x):
    with torch.no_grad():
        return {"batch1": flat(model(x[:1])), "batch3": flat(model(x))}


def builder_case(name, odd, first):
    default_count = sum(p.numel() for p in getattr(tvm, name)().parameters())
    torch.manual_seed(SEED)
    model = getattr(tvm, name)(num_classes=NUM_CLASSES)
    case = {
        "repr": repr(model),
        "state_dict": [[k, list(v.shape)] for k, v in model.state_dict().items()],
        "parameters": sum(p.numel() for p in model.parameters()),
        "parameters_1000_classes": default_count,
    }
    # In float64: a statistic of a BN input whose mean dwarfs its spread would carry both sides' fp32
    # rounding, amplified, into the logits.
    calibrate_batch_norms(model.double(), (2, 3) + odd)
    model.float().eval()
    x_odd = torch.randn((3, 3) + odd)
    case["odd"] = logits(model, x_odd)
    if first:
        case["size224"] = logits(model, torch.randn(3, 3, 224, 224))
        traced = fx.symbolic_trace(model)
        case["graph"] = f"{traced.graph}\n"
        case["code"] = traced.code
    return case


def main():
    torch.set_num_threads(2)
    out = {"seed": SEED, "num_classes": NUM_CLASSES, "families": {}}
    for family, (odd, builders) in FAMILIES.items():
        cases = {name: builder_case(name, odd, i == 0) for i, name in enumerate(builders)}
        out["families"][family] = {"odd_size": list(odd), "builders": cases}
        print(family, "done", flush=True)
    path = HERE / "zoo_classic.json.gz"
    path.write_bytes(gzip.compress((json.dumps(out, indent=1) + "\n").encode(), compresslevel=9, mtime=0))
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
