#!/usr/bin/python3
"""tests/nn/gen_spatial_cases.py — PyTorch 1.13's values and gradients for F.pad, F.interpolate, F.unfold,
F.fold, F.adaptive_max_pool2d and F.avg_pool2d's options.

Writes tests/ops/data/spatial_cases.json (the folder tests/ops/loss_cases.h reads), read by
tests/nn/test_spatial.cpp: each case names the function and its variant ("pad_reflect", "interpolate_bilinear"),
its input, its arguments, PyTorch's outputs and torch.autograd's gradient of (output * weight).sum() for the
input. Inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/nn/gen_spatial_cases.py
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from torch_cases import enc, write_cases  # noqa: E402

CASES = []


def case(name, op, shape, args, fn, dtype=torch.float64):
    x = torch.randn(shape, dtype=torch.float64).to(dtype).requires_grad_()
    out = fn(x)
    outs = list(out) if isinstance(out, tuple) else [out]
    weight = torch.randn(outs[0].shape, dtype=torch.float64).to(dtype)
    (outs[0] * weight).sum().backward()
    CASES.append({"name": name, "op": op, "inputs": {"input": enc(x.detach()), "weight": enc(weight)}, "args": args,
                  "outputs": [enc(o.detach()) for o in outs], "grads": {"input": enc(x.grad)}})


def pad_cases():
    for mode, shape, pad in [("constant", (1, 2, 4, 5), [1, 2, 0, 1]), ("constant", (1, 2, 4, 5), [-1, 2, 1, -1]),
                             ("constant", (2, 2, 4), [1, 0, 2, 1, 0, 1]), ("reflect", (2, 2, 6), [2, 1]),
                             ("reflect", (3, 7), [0, 3]), ("reflect", (1, 2, 4, 5), [1, 2, 3, 0]),
                             ("reflect", (3, 4, 5), [4, 4, -1, 3]), ("replicate", (2, 2, 6), [3, 0]),
                             ("replicate", (1, 2, 4, 5), [4, 1, 0, 3]), ("replicate", (3, 4, 5), [-2, 6, 2, -1]),
                             ("circular", (2, 2, 6), [2, 1]), ("circular", (1, 2, 4, 5), [1, 2, 2, 1]),
                             ("circular", (1, 2, 4, 5), [-1, 3, 0, -2])]:
        value = 1.5 if mode == "constant" else None
        args = {"pad": pad} | ({"value": value} if value is not None else {})
        case(f"pad {mode} {list(shape)} {pad}", f"pad_{mode}", shape, args,
             lambda x, p=pad, m=mode, v=value: F.pad(x, p, mode=m, value=v))
    case("pad constant float32", "pad_constant", (2, 3, 5), {"pad": [2, 1], "value": -0.5},
         lambda x: F.pad(x, [2, 1], value=-0.5), torch.float32)
    case("pad reflect float32", "pad_reflect", (1, 2, 4, 5), {"pad": [1, 1, 2, 2]},
         lambda x: F.pad(x, [1, 1, 2, 2], mode="reflect"), torch.float32)


def interpolate_cases():
    for mode in ["nearest", "bilinear"]:
        corners = [None] if mode == "nearest" else [False, True]
        for align in corners:
            for kind, value, recompute in [("size", [7, 9], None), ("size", [3, 2], None), ("size", [5, 6], None),
                                           ("scale", [2.0, 2.0], None), ("scale", [1.7, 1.7], None),
                                           ("scale", [1.7, 2.3], True), ("scale", [0.6, 0.5], None)]:
                sizes = {"size": value} if kind == "size" else {"scale_h": value[0], "scale_w": value[1]}
                args = sizes | ({"align_corners": align} if align is not None else {}) | \
                       ({"recompute_scale_factor": recompute} if recompute else {})
                kw = {"size" if kind == "size" else "scale_factor": tuple(value), "mode": mode,
                      "align_corners": align, "recompute_scale_factor": recompute}
                case(f"interpolate {mode} {kind}={value} align_corners={align} recompute={recompute}",
                     f"interpolate_{mode}", (1, 2, 5, 6), args, lambda x, kw=kw: F.interpolate(x, **kw))
        case(f"interpolate {mode} float32", f"interpolate_{mode}", (1, 2, 4, 5), {"scale_h": 1.5, "scale_w": 1.5},
             lambda x, m=mode: F.interpolate(x, scale_factor=1.5, mode=m), torch.float32)


def block_cases():
    for k, d, p, s in [([2, 2], [1, 1], [0, 0], [1, 1]), ([2, 3], [2, 1], [1, 0], [1, 2]), ([3, 3], [1, 1], [1, 1], [2, 2])]:
        args = {"kernel_size": k, "dilation": d, "padding": p, "stride": s}
        case(f"unfold k={k} d={d} p={p} s={s}", "unfold", (1, 2, 6, 7), args,
             lambda x, a=args: F.unfold(x, **a))
        cols = F.unfold(torch.zeros(1, 2, 6, 7), **args)
        case(f"fold k={k} d={d} p={p} s={s}", "fold", tuple(cols.shape), args | {"output_size": [6, 7]},
             lambda x, a=args: F.fold(x, (6, 7), **a))


def pool_cases():
    for size in [[3, 3], [2, 4], [5, 7], [1, 1]]:
        case(f"adaptive_max_pool2d {size}", "adaptive_max_pool2d", (1, 2, 5, 7), {"output_size": size},
             lambda x, s=size: F.adaptive_max_pool2d(x, s, return_indices=True))
    for k, s, p, ceil, include, divisor in [(3, 2, 1, True, True, None), (3, 2, 1, True, False, None),
                                            (3, 2, 0, True, True, None), (2, 3, 1, True, True, None),
                                            (3, 2, 1, False, True, 4), (3, 2, 1, True, False, 7)]:
        args = {"kernel_size": [k, k], "stride": [s, s], "padding": [p, p], "ceil_mode": ceil,
                "count_include_pad": include} | ({"divisor_override": divisor} if divisor else {})
        case(f"avg_pool2d k={k} s={s} p={p} ceil={ceil} include_pad={include} divisor={divisor}", "avg_pool2d",
             (1, 2, 7, 6), args,
             lambda x, a=args: F.avg_pool2d(x, a["kernel_size"], a["stride"], a["padding"], ceil, include, divisor))


def main():
    torch.manual_seed(0)
    pad_cases()
    interpolate_cases()
    block_cases()
    pool_cases()
    here = os.path.dirname(os.path.abspath(__file__))
    write_cases(os.path.join(here, "..", "ops", "data", "spatial_cases.json"), "tests/nn/gen_spatial_cases.py", CASES)


if __name__ == "__main__":
    main()
