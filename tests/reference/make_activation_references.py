#!/usr/bin/env python3
"""Regenerates tests/reference/activations.json, PyTorch 1.13's numbers for tests/nn/test_activation.cpp: for
each activation module (torch.nn's, with its options) its repr, its output on a fixed (2, 3, 4) input that
covers every branch (the bounds -3, 0, 3, 6, large values), the gradient of sum(output * G) for a fixed G
with respect to the input (and PReLU's weight), and the name of the output's grad_fn. An inplace module runs
on a clone of the input, as a training script runs it on a non-leaf.
Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_activation_references.py
"""
import json
import math
import pathlib

import torch
import torch.nn as nn

HERE = pathlib.Path(__file__).resolve().parent
X = [-30.0, -7.5, -3.0, -2.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5,
     2.0, 2.75, 3.0, 4.0, 5.5, 6.0, 7.0, 10.0, 20.0, 25.0, -10.0, -4.25]
G = [((i * 7) % 11 - 5) / 4 for i in range(24)]

# name (test_activation.cpp builds the same module under the same name) -> module
MODULES = {
    "Sigmoid": nn.Sigmoid(), "Tanh": nn.Tanh(), "SiLU": nn.SiLU(), "Mish": nn.Mish(), "Hardswish": nn.Hardswish(),
    "GELU": nn.GELU(), "GELU_tanh": nn.GELU(approximate="tanh"),
    "LeakyReLU": nn.LeakyReLU(), "LeakyReLU_0.2": nn.LeakyReLU(0.2), "LeakyReLU_inplace": nn.LeakyReLU(0.2, True),
    "ELU": nn.ELU(), "ELU_0.5": nn.ELU(0.5), "ELU_inplace": nn.ELU(0.5, True),
    "Softplus": nn.Softplus(), "Softplus_2": nn.Softplus(2, 10.5), "Softplus_float": nn.Softplus(0.5, 4.0),
    "Hardsigmoid": nn.Hardsigmoid(), "Hardtanh": nn.Hardtanh(), "Hardtanh_int": nn.Hardtanh(-2, 3),
    "ReLU6": nn.ReLU6(), "PReLU": nn.PReLU(), "PReLU_3": nn.PReLU(3, 0.1),
    "Hardswish_inplace": nn.Hardswish(True), "SiLU_inplace": nn.SiLU(True), "Mish_inplace": nn.Mish(True),
    "Hardsigmoid_inplace": nn.Hardsigmoid(True), "Hardtanh_inplace": nn.Hardtanh(-2, 3, True),
    "ReLU6_inplace": nn.ReLU6(True),
    "Softmax": nn.Softmax(1), "LogSoftmax": nn.LogSoftmax(dim=-1),
}


def number(x):
    """JSON has no inf/nan: those go as strings, as Python's float() reads them."""
    x = float(x)
    return x if math.isfinite(x) else str(x)


def flat(t):
    return [number(v) for v in t.detach().reshape(-1).tolist()]


def case(name, module):
    x = torch.tensor(X).view(2, 3, 4).requires_grad_()
    inplace = getattr(module, "inplace", False)
    out = module(x.clone() if inplace else x)
    (out * torch.tensor(G).view(2, 3, 4)).sum().backward()
    result = {"repr": repr(module), "output": flat(out), "grad": flat(x.grad), "grad_fn": out.grad_fn.name()}
    if isinstance(module, nn.PReLU):
        result["weight"] = flat(module.weight)
        result["weight_grad"] = flat(module.weight.grad)
        result["state_dict"] = list(module.state_dict().keys())
    return result


def main():
    data = {"generator": "tests/reference/make_activation_references.py", "torch": torch.__version__, "x": X,
            "g": G, "modules": {name: case(name, m) for name, m in MODULES.items()}}
    with open(HERE / "activations.json", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
