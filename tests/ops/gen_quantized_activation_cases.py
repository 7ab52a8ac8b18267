#!/usr/bin/python3
"""tests/ops/gen_quantized_activation_cases.py — PyTorch 1.13's quantized activations and binary ops that the
model zoo's converted graphs call (onednn engine), for tests/ops/test_quantized_activations.cpp.

Writes tests/ops/data/quantized_activation_cases.json: per case the op, its quint8 inputs (integers, shape, qparams;
channels-last where a conv would have made them so), its arguments, and PyTorch's result: int_repr() and qparams.
Ops: relu / relu_, hardtanh / relu6 (in place too), hardsigmoid, sigmoid, quantized::hardswish, quantized::mul /
mul_relu (one shape, and squeeze-excitation's broadcast), mul(_relu).Scalar and add(_relu).Scalar (every branch of
ATen's qparam rules). Inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/ops/gen_quantized_activation_cases.py
"""
import json
import os

import torch
import torch.nn.functional as F

torch.backends.quantized.engine = "onednn"
Q = torch.ops.quantized


def qtensor(q):
    return {"shape": list(q.shape), "channels_last": q.dim() == 4 and q.is_contiguous(memory_format=torch.channels_last)
            and not q.is_contiguous(), "ints": [int(v) for v in q.int_repr().flatten().tolist()],
            "scale": repr(q.q_scale()), "zero_point": q.q_zero_point()}


def activation(shape, scale, zero_point, spread=3.0, channels_last=False):
    q = torch.quantize_per_tensor(torch.randn(shape) * spread + 0.2, scale, zero_point, torch.quint8)
    return q.contiguous(memory_format=torch.channels_last) if channels_last else q


def case(op, name, inputs, result, **args):
    return dict(op=op, name=name, inputs=[qtensor(t) for t in inputs], args={k: repr(v) for k, v in args.items()},
                expected=[int(v) for v in result.int_repr().flatten().tolist()], out_scale=repr(result.q_scale()),
                out_zero_point=result.q_zero_point())


def unary_cases():
    torch.manual_seed(0)
    out = []
    for shape, scale, zero_point, cl in [((2, 16, 9, 7), 0.05, 128, True), ((3, 37), 0.03, 60, False),
                                         ((1, 8, 5, 5), 0.1, 0, True), ((4, 33), 0.02, 250, False)]:
        x = activation(shape, scale, zero_point, channels_last=cl)
        name = f"{shape} zp {zero_point}"
        out.append(case("relu", name, [x], torch.relu(x)))
        out.append(case("relu_", name, [x], torch.relu_(x.clone())))
        out.append(case("hardtanh", name, [x], F.hardtanh(x, -1.0, 1.5), min_val=-1.0, max_val=1.5))
        out.append(case("relu6", name, [x], F.relu6(x)))
        out.append(case("relu6_", name, [x], F.relu6(x.clone(), inplace=True)))
        out.append(case("hardsigmoid", name, [x], F.hardsigmoid(x)))
        out.append(case("sigmoid", name, [x], torch.sigmoid(x)))
        for o_scale, o_zp in [(0.04, 30), (0.021, 7)]:
            out.append(case("hardswish", f"{name} -> ({o_scale}, {o_zp})", [x], Q.hardswish(x, o_scale, o_zp),
                            output_scale=o_scale, output_zero_point=o_zp))
    return out


def binary_cases():
    torch.manual_seed(1)
    out = []
    # (a shape, b shape, channels-last a, channels-last b): one shape, and squeeze-excitation's scale * input
    for sa, sb, cla, clb in [((2, 8, 6, 5), (2, 8, 6, 5), True, True), ((3, 21), (3, 21), False, False),
                             ((2, 24, 1, 1), (2, 24, 7, 9), True, True), ((1, 16, 5, 5), (1, 16, 1, 1), False, True)]:
        a = activation(sa, 1.0 / 256, 0, spread=0.3, channels_last=cla) if sa[-1] == 1 else \
            activation(sa, 0.05, 110, channels_last=cla)
        b = activation(sb, 0.04, 70, channels_last=clb)
        name = f"{sa} * {sb}"
        out.append(case("mul", name, [a, b], Q.mul(a, b, 0.06, 100), scale=0.06, zero_point=100))
        out.append(case("mul_relu", name, [a, b], Q.mul_relu(a, b, 0.03, 0), scale=0.03, zero_point=0))
    x = activation((2, 8, 5, 3), 0.05, 100, channels_last=True)
    for c in (2.5, 0.0, -1.5):
        out.append(case("mul_scalar", f"{c}", [x], Q.mul(x, c), b=c))
        out.append(case("mul_relu_scalar", f"{c}", [x], Q.mul_relu(x, c), b=c))
    # add.Scalar: the zero point shifted in range, and both ends widened (1.13's three branches).
    for c in (1.0, -2.25, 6.0, -9.0):
        out.append(case("add_scalar", f"{c}", [x], Q.add(x, c), b=c))
        out.append(case("add_relu_scalar", f"{c}", [x], Q.add_relu(x, c), b=c))
    return out


def main():
    cases = {"unary": unary_cases(), "binary": binary_cases()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "quantized_activation_cases.json")
    with open(path, "w") as f:
        json.dump(cases, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
