#!/usr/bin/python3
"""tests/ops/gen_quantized_pool_norm_cases.py — PyTorch 1.13's avg_pool2d, mean and quantized::batch_norm2d(_relu) of
quint8 tensors (onednn engine), what mnasnet's, densenet's and inception_v3's converted graphs call, for
tests/ops/test_quantized_pool_norm.cpp.

Writes tests/ops/data/quantized_pool_norm_cases.json: per family a list of cases, each with its op, its quint8 input
(integers in logical order, shape, qparams; channels-last where a conv or a cat would have made it so), its
arguments, and PyTorch's result: int_repr() in logical order, qparams and whether it is channels-last. Covered:
avg_pool2d on both of ATen's paths (channels-last: its NHWC kernel; otherwise its NCHW frame, whose ties round
differently), padding, ceil_mode, count_include_pad=False, divisor_override, a 3-D input; mean on its integer fast
path (innermost dims of a contiguous tensor) and its dequantize-mean-quantize path; batch_norm2d(_relu) with channel
counts below, at and past ATen's vector width. Inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/ops/gen_quantized_pool_norm_cases.py
"""
import json
import os

import torch
import torch.nn.functional as F

torch.backends.quantized.engine = "onednn"
Q = torch.ops.quantized


def is_channels_last(q):
    return q.dim() == 4 and q.is_contiguous(memory_format=torch.channels_last) and not q.is_contiguous()


def qtensor(q):
    return {"shape": list(q.shape), "channels_last": is_channels_last(q),
            "ints": [int(v) for v in q.int_repr().flatten().tolist()], "scale": repr(q.q_scale()),
            "zero_point": q.q_zero_point()}


def activation(shape, scale, zero_point, channels_last):
    q = torch.quantize_per_tensor(torch.randn(shape) * 2.0 + 0.3, scale, zero_point, torch.quint8)
    return q.contiguous(memory_format=torch.channels_last) if channels_last else q


def floats(t):
    return [repr(v) for v in t.tolist()]


def case(op, name, x, result, **args):
    # floats as their repr (every digit); ints, bools and lists as they are
    return dict(op=op, name=name, input=qtensor(x), args={k: repr(v) if isinstance(v, float) else v
                                                          for k, v in args.items()},
                expected=[int(v) for v in result.int_repr().flatten().tolist()], out_scale=repr(result.q_scale()),
                out_zero_point=result.q_zero_point(), out_channels_last=is_channels_last(result))


def avg_pool_cases():
    torch.manual_seed(0)
    out = []
    # (shape, zero point, channels-last, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    for shape, zp, cl, k, s, p, ceil, include, divisor in [
            ((2, 16, 9, 7), 128, True, 3, 1, 1, False, True, None),   # inception's F.avg_pool2d(x, 3, 1, 1)
            ((2, 24, 8, 8), 101, True, 2, 2, 0, False, True, None),   # densenet's transition AvgPool2d(2, 2)
            ((2, 24, 8, 8), 101, False, 2, 2, 0, False, True, None),  # the same on ATen's NCHW frame
            ((1, 40, 7, 9), 3, True, 3, 2, 1, True, False, None),
            ((1, 5, 7, 9), 64, False, 3, 2, 1, True, False, None),
            ((1, 19, 6, 6), 200, True, 3, 1, 1, False, True, 7),
            ((3, 6, 5), 77, False, 2, 1, 0, False, True, None)]:
        x = activation(shape, 0.05, zp, cl)
        name = f"{shape} {'nhwc' if cl else 'nchw'} k{k} s{s} p{p} ceil={ceil} include_pad={include} divisor={divisor}"
        y = F.avg_pool2d(x, k, s, p, ceil_mode=ceil, count_include_pad=include, divisor_override=divisor)
        out.append(case("avg_pool2d", name, x, y, kernel_size=k, stride=s, padding=p, ceil_mode=ceil,
                        count_include_pad=include, divisor_override=divisor if divisor is not None else 0))
    return out


def mean_cases():
    torch.manual_seed(1)
    out = []
    # (shape, channels-last, dims, keepdim): mnasnet's x.mean([2, 3]) on a conv's channels-last output (ATen's
    # dequantize path), and ATen's integer fast path over the innermost dims of a contiguous tensor.
    for shape, cl, dims, keepdim in [((2, 16, 2, 2), True, [2, 3], False), ((2, 24, 3, 3), True, [2, 3], False),
                                     ((1, 32, 7, 7), True, [2, 3], True), ((2, 8, 5, 5), False, [2, 3], False),
                                     ((3, 37), False, [1], True), ((2, 6, 4, 5), False, [1], False),
                                     ((2, 6, 4, 5), False, [], False)]:
        x = activation(shape, 0.04, 90, cl)
        y = x.mean(dims, keepdim) if dims else x.mean()
        out.append(case("mean", f"{shape} {'nhwc' if cl else 'contiguous'} dim={dims} keepdim={keepdim}", x, y,
                        dim=dims, keepdim=keepdim))
    return out


def batch_norm_cases():
    torch.manual_seed(2)
    out = []
    # (shape, channels-last, eps, output scale, output zero point): channel counts below, at and past 32.
    for shape, cl, eps, o_scale, o_zp in [((2, 16, 5, 4), True, 1e-5, 0.03, 70), ((1, 40, 3, 3), False, 1e-3, 0.05, 0),
                                          ((2, 3, 4, 4), True, 1e-5, 0.02, 128), ((1, 70, 2, 3), True, 1e-5, 0.04, 10)]:
        x = activation(shape, 0.05, 120, cl)
        c = shape[1]
        weight, bias = torch.rand(c) + 0.5, torch.randn(c) * 0.2
        mean, var = torch.randn(c) * 0.5, torch.rand(c) * 2 + 0.1
        params = {"weight": floats(weight), "bias": floats(bias), "mean": floats(mean), "var": floats(var)}
        name = f"{shape} {'nhwc' if cl else 'nchw'} eps={eps} -> ({o_scale}, {o_zp})"
        for op, fn in [("batch_norm2d", Q.batch_norm2d), ("batch_norm2d_relu", Q.batch_norm2d_relu)]:
            c_ = case(op, name, x, fn(x, weight, bias, mean, var, eps, o_scale, o_zp), eps=eps, output_scale=o_scale,
                      output_zero_point=o_zp)
            c_["params"] = params
            out.append(c_)
    return out


def main():
    cases = {"avg_pool2d": avg_pool_cases(), "mean": mean_cases(), "batch_norm2d": batch_norm_cases()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "quantized_pool_norm_cases.json")
    with open(path, "w") as f:
        json.dump(cases, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
