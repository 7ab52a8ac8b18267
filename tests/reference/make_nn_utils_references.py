#!/usr/bin/env python3
"""Regenerates tests/reference/nn_utils_init.json, PyTorch 1.13's numbers for tests/nn/test_utils.cpp and
tests/nn/test_init.cpp: clip_grad_norm_ (total norm and clipped gradients for several p, clipping and not,
a non-finite gradient) and clip_grad_value_; nn.init's deterministic parts (calculate_gain, fans, the
bounds and standard deviations of the kaiming/xavier fills, trunc_normal_'s uniform bounds, eye_, dirac_).
Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_nn_utils_references.py

ATEN_CPU_CAPABILITY=default, as for the optimizer references: the default kernels round each float32
operation as torchless's do."""
import json
import math
import os
import pathlib

os.environ["ATEN_CPU_CAPABILITY"] = "default"
import torch  # noqa: E402  (the capability is read when torch loads)
import torch.nn.init as init  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
SHAPES = [(3, 5), (7,), (2, 2, 3)]


def number(x):
    """JSON has no inf/nan: those go as strings, as Python's float() reads them."""
    x = float(x)
    return x if math.isfinite(x) else str(x)


def flat(t):
    return [number(v) for v in t.detach().reshape(-1).tolist()]


def make_grads(seed, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=g) * scale for s in SHAPES]


def clip_norm_cases():
    cases = []
    for p in [2.0, 1.0, 3.0, 0.5, math.inf, -math.inf, 0.0, -1.0]:
        for max_norm in [0.5, 1e3]:
            grads = make_grads(7)
            params = [torch.zeros(s, requires_grad=True) for s in SHAPES]
            for param, g in zip(params, grads):
                param.grad = g.clone()
            total = torch.nn.utils.clip_grad_norm_(params, max_norm, p)
            cases.append({"norm_type": number(p), "max_norm": max_norm, "grads": [flat(g) for g in grads],
                          "total": number(total), "clipped": [flat(param.grad) for param in params]})
    # A nan gradient: with error_if_nonfinite=False the total is nan and every gradient becomes nan.
    grads = make_grads(3)
    grads[1][2] = math.nan
    params = [torch.zeros(s, requires_grad=True) for s in SHAPES]
    for param, g in zip(params, grads):
        param.grad = g.clone()
    total = torch.nn.utils.clip_grad_norm_(params, 1.0)
    cases.append({"norm_type": 2.0, "max_norm": 1.0, "grads": [flat(g) for g in grads], "total": number(total),
                  "clipped": [flat(param.grad) for param in params]})
    return cases


def clip_value_cases():
    cases = []
    for clip in [0.3, -0.2]:
        grads = make_grads(5)
        params = [torch.zeros(s, requires_grad=True) for s in SHAPES]
        for param, g in zip(params, grads):
            param.grad = g.clone()
        torch.nn.utils.clip_grad_value_(params, clip)
        cases.append({"clip_value": clip, "grads": [flat(g) for g in grads],
                      "clipped": [flat(param.grad) for param in params]})
    return cases


def gains():
    out = []
    for name in ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "conv_transpose3d", "sigmoid", "tanh", "relu", "selu"]:
        out.append({"nonlinearity": name, "param": None, "gain": float(init.calculate_gain(name))})
    for param in [None, 0.0, 0.2, math.sqrt(5), 3]:
        out.append({"nonlinearity": "leaky_relu", "param": param, "gain": init.calculate_gain("leaky_relu", param)})
    return out


def fills():
    """The bound (uniform) or std (normal) each kaiming/xavier call passes to its draw, as PyTorch computes
    it (read back from the source's formulas with the same operation order)."""
    out = []
    for shape in [(6, 4, 3, 5), (7, 3), (16, 1, 3, 3)]:
        t = torch.empty(shape)
        fan_in, fan_out = init._calculate_fan_in_and_fan_out(t)
        for a, mode, nl in [(0.0, "fan_in", "leaky_relu"), (math.sqrt(5), "fan_in", "leaky_relu"),
                            (0.0, "fan_out", "relu"), (0.3, "fan_out", "leaky_relu"), (0.0, "fan_in", "tanh")]:
            fan = init._calculate_correct_fan(t, mode)
            std = init.calculate_gain(nl, a) / math.sqrt(fan)
            out.append({"fill": "kaiming_uniform_", "shape": shape, "a": a, "mode": mode, "nonlinearity": nl,
                        "low": -(math.sqrt(3.0) * std), "high": math.sqrt(3.0) * std})
            out.append({"fill": "kaiming_normal_", "shape": shape, "a": a, "mode": mode, "nonlinearity": nl,
                        "mean": 0.0, "std": std})
        for gain in [1.0, 5.0 / 3]:
            std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
            out.append({"fill": "xavier_uniform_", "shape": shape, "gain": gain, "low": -(math.sqrt(3.0) * std),
                        "high": math.sqrt(3.0) * std})
            out.append({"fill": "xavier_normal_", "shape": shape, "gain": gain, "mean": 0.0, "std": std})
        for mean, std, a, b in [(0.0, 1.0, -2.0, 2.0), (0.5, 0.02, -0.1, 1.0), (-1.0, 3.0, -4.0, 0.5)]:
            def norm_cdf(x):
                return (1. + math.erf(x / math.sqrt(2.))) / 2.
            out.append({"fill": "trunc_normal_", "shape": shape, "mean": mean, "std": std, "a": a, "b": b,
                        "low": 2 * norm_cdf((a - mean) / std) - 1, "high": 2 * norm_cdf((b - mean) / std) - 1})
        out.append({"fill": "fans", "shape": shape, "fan_in": fan_in, "fan_out": fan_out})
    return out


def deterministic_fills():
    out = []
    for shape in [(3, 5), (4, 2), (3, 3)]:
        out.append({"fill": "eye_", "shape": shape, "groups": 1, "values": flat(init.eye_(torch.full(shape, 7.0)))})
    for shape, groups in [((4, 3, 5), 1), ((6, 2, 3, 4), 2), ((4, 6, 3, 3), 1), ((6, 3, 2, 3, 3), 3),
                          ((3, 5, 2, 2), 3)]:
        out.append({"fill": "dirac_", "shape": shape, "groups": groups,
                    "values": flat(init.dirac_(torch.full(shape, 7.0), groups))})
    return out


def main():
    data = {"clip_grad_norm_": clip_norm_cases(), "clip_grad_value_": clip_value_cases(), "shapes": SHAPES,
            "gains": gains(), "fills": fills(), "deterministic_fills": deterministic_fills()}
    (HERE / "nn_utils_init.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
