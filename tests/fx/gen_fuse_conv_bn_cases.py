#!/usr/bin/env python3
"""Regenerates tests/fx/data/fuse_conv_bn_cases.json, PyTorch 1.13's torch.nn.utils.fusion.fuse_conv_bn_eval on small
float32 convs and batch norms for tests/fx/test_fuse_conv_bn.cpp: per case the conv's and the batch norm's tensors
and eps, and the folded weight and bias, every value a float32 written exactly. Each case is one where folding in
float64 (torchless's former order) gives other bits than PyTorch's float32 order somewhere (the script
checks), so the test tells the two apart. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/fx/gen_fuse_conv_bn_cases.py"""
import json
import pathlib

import torch
from torch.nn.utils.fusion import fuse_conv_bn_eval

HERE = pathlib.Path(__file__).resolve().parent


def values(t):
    return {"shape": list(t.shape), "values": [repr(v) for v in t.detach().double().reshape(-1).tolist()]}


def float64_fold(conv, bn):
    """torchless's former order: the scale and the bias in float64, the weight times the rounded scale."""
    scale = bn.weight.double() * (bn.running_var.double() + bn.eps).rsqrt()
    bias = conv.bias.double() if conv.bias is not None else torch.zeros_like(scale)
    w = conv.weight * scale.float().reshape(-1, 1, 1, 1)
    return w, ((bias - bn.running_mean.double()) * scale + bn.bias.double()).float()


def case(g, out_channels, conv_bias, eps):
    conv = torch.nn.Conv2d(3, out_channels, 3, bias=conv_bias).eval()
    bn = torch.nn.BatchNorm2d(out_channels, eps=eps).eval()
    with torch.no_grad():
        conv.weight.copy_(torch.randn(conv.weight.shape, generator=g) * 0.3)
        if conv_bias:
            conv.bias.copy_(torch.randn(out_channels, generator=g) * 0.1)
        bn.running_mean.copy_(torch.randn(out_channels, generator=g) * 0.2)
        bn.running_var.copy_(torch.rand(out_channels, generator=g) * 2 + 0.05)
        bn.weight.copy_(torch.randn(out_channels, generator=g) * 0.5 + 1)
        bn.bias.copy_(torch.randn(out_channels, generator=g) * 0.1)
    fused = fuse_conv_bn_eval(conv, bn)
    w64, b64 = float64_fold(conv, bn)
    differ = int((w64 != fused.weight).sum() + (b64 != fused.bias).sum())
    assert differ > 0, "float64 folding gives PyTorch's bits on this case: it would not tell the orders apart"
    c = {"eps": eps, "weight": values(conv.weight), "running_mean": values(bn.running_mean),
         "running_var": values(bn.running_var), "bn_weight": values(bn.weight), "bn_bias": values(bn.bias),
         "fused_weight": values(fused.weight), "fused_bias": values(fused.bias)}
    if conv_bias:
        c["bias"] = values(conv.bias)
    print(f"out_channels {out_channels} bias {conv_bias} eps {eps}: float64 folding differs in {differ} values")
    return c


def main():
    g = torch.Generator().manual_seed(33)
    cases = [case(g, 8, False, 1e-5), case(g, 8, True, 1e-3)]
    (HERE / "data" / "fuse_conv_bn_cases.json").write_text(json.dumps(cases, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
