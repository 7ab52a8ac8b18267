#!/usr/bin/env python3
"""Regenerates tests/reference/output_differentiability.json: for each op with several results, which of
its results require grad (get a grad_fn) when its floating input does, and the grad_fn's name, as PyTorch
1.13 gives them (derivatives.yaml's output_differentiability; integer results never require grad).
Compared by tests/autograd/test_output_differentiability.cpp, which makes the same calls. Run with Debian's
PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_output_differentiability.py"""
import json
import pathlib

import torch

HERE = pathlib.Path(__file__).resolve().parent
aten = torch.ops.aten

# The C++ test spells each call the same way (its kCalls), on x = randn(2, 4, 3) that requires grad.
CALLS = {
    "native_layer_norm": lambda x: aten.native_layer_norm(x, [3], None, None, 1e-5),
    "native_group_norm": lambda x: aten.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-5),
    "native_dropout": lambda x: aten.native_dropout(x, 0.5, True),
    "nll_loss_forward": lambda x: aten.nll_loss_forward(x[:, :, 0].log_softmax(1), torch.tensor([0, 3]), None, 1, -100),
    "var_mean": lambda x: torch.var_mean(x, 1),
    "std_mean": lambda x: torch.std_mean(x, 1),
    "max.dim": lambda x: torch.max(x, 1),
    "min.dim": lambda x: torch.min(x, 1),
    "sort": lambda x: torch.sort(x, 1),
    "topk": lambda x: torch.topk(x, 2, 1),
    "kthvalue": lambda x: torch.kthvalue(x, 2, 1),
    "max_pool2d_with_indices": lambda x: aten.max_pool2d_with_indices(x, [2, 2]),
    "adaptive_max_pool2d": lambda x: aten.adaptive_max_pool2d(x, [2, 2]),
}


def main():
    torch.manual_seed(0)
    out = {}
    for name, call in CALLS.items():
        x = torch.randn(2, 4, 3, requires_grad=True)
        results = call(x)
        out[name] = {"requires_grad": [r.requires_grad for r in results],
                     "grad_fn": [type(r.grad_fn).__name__ if r.grad_fn is not None else "" for r in results]}
    (HERE / "output_differentiability.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
