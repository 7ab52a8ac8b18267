#!/usr/bin/env python3
"""Regenerates tests/reference/norm_layers.json, PyTorch 1.13's numbers for tests/nn/test_normalization.cpp:
nn.LayerNorm's forward and the gradients of input, weight and bias (float32 and float64, several
normalized_shapes, with and without elementwise_affine), and its repr. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_norm_references.py

With the machine's default CPU capability, as tests/reference/make_rng_references.py: the initial parameters
are its normal_ / uniform_ streams, which torchless draws bit for bit."""
import json
import math
import pathlib

import torch

HERE = pathlib.Path(__file__).resolve().parent


def number(x):
    """JSON has no inf/nan: those go as strings, as Python's float() reads them."""
    x = float(x)
    return x if math.isfinite(x) else str(x)


def flat(t):
    return [number(v) for v in t.detach().double().reshape(-1).tolist()]


def layer_norm_cases():
    cases = []
    g = torch.Generator().manual_seed(32)
    for shape, normalized, eps, affine, dtype in [((2, 3, 4), [4], 1e-5, True, torch.float32),
                                                  ((2, 3, 4), [3, 4], 1e-3, True, torch.float32),
                                                  ((5, 7), [7], 1e-5, False, torch.float32),
                                                  ((3, 2, 33), [33], 1e-5, True, torch.float64),
                                                  ((4,), [4], 1e-5, True, torch.float32)]:
        x = (torch.randn(shape, generator=g) * 3 + 1).to(dtype).requires_grad_()
        m = torch.nn.LayerNorm(normalized, eps=eps, elementwise_affine=affine).to(dtype)
        if affine:
            with torch.no_grad():
                m.weight.copy_(torch.randn(normalized, generator=g))
                m.bias.copy_(torch.randn(normalized, generator=g))
        out = m(x)
        grad = torch.randn(shape, generator=g).to(dtype)
        out.backward(grad)
        case = {"shape": list(shape), "normalized_shape": normalized, "eps": eps, "affine": affine,
                "dtype": str(dtype).replace("torch.", ""), "repr": repr(m), "x": flat(x), "grad": flat(grad),
                "out": flat(out), "grad_x": flat(x.grad)}
        if affine:
            case.update({"weight": flat(m.weight), "bias": flat(m.bias), "grad_weight": flat(m.weight.grad),
                         "grad_bias": flat(m.bias.grad)})
        cases.append(case)
    return cases


def main():
    data = {"generator": "tests/reference/make_norm_references.py", "torch": torch.__version__,
            "layer_norm": layer_norm_cases()}
    with open(HERE / "norm_layers.json", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
