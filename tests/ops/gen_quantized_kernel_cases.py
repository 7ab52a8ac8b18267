#!/usr/bin/python3
"""tests/ops/gen_quantized_kernel_cases.py — PyTorch 1.13's int8 kernels (onednn engine), for
tests/ops/test_quantized_kernels.cpp.

Writes tests/ops/data/quantized_kernel_cases.json: per case the op, its inputs as integers plus qparams (quint8
activations per tensor, qint8 weights per channel or per tensor with zero point 0, float biases), its arguments
and PyTorch's int_repr() of the result. Ops: quantized::conv2d / conv2d_relu (1x1 and 3x3, stride 2, padding,
groups incl. depthwise, dilation, batch 1 and 3, ResNet18-like channels; zero points 0 as a ReLU's output has them,
and not), conv2d then add(_relu) (the reference of our fused conv2d_add(_relu)), linear / linear_relu (input zero
point 0 and not), add / add_relu, max_pool2d, adaptive_avg_pool2d, cat.
Floats are Python reprs of float64; inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/ops/gen_quantized_kernel_cases.py
"""
import json
import os

import torch

torch.backends.quantized.engine = "onednn"
Q = torch.ops.quantized


def floats(t):
    return [repr(float(v)) for v in t.flatten().tolist()]


def ints(t):
    return [int(v) for v in t.flatten().tolist()]


def activation(shape, scale, zero_point, spread=1.0):
    """A quint8 tensor whose values span its range (a few saturate)."""
    return torch.quantize_per_tensor(torch.randn(shape) * spread + 0.3, scale, zero_point, torch.quint8)


def qtensor(q):
    """A quantized tensor as the test rebuilds it: integers, shape, qparams."""
    out = {"shape": list(q.shape), "dtype": "qint8" if q.dtype == torch.qint8 else "quint8", "ints": ints(q.int_repr())}
    if q.qscheme() == torch.per_tensor_affine:
        out.update(scale=repr(q.q_scale()), zero_point=q.q_zero_point())
    else:
        out.update(scales=floats(q.q_per_channel_scales()), axis=q.q_per_channel_axis())
    return out


def weight(shape, per_channel):
    """A symmetric qint8 weight (zero points 0, as onednn requires), per output channel or per tensor."""
    w = torch.randn(shape) * 0.2
    if not per_channel:
        return torch.quantize_per_tensor(w, float(w.abs().max()) / 127.0, 0, torch.qint8)
    scales = (w.flatten(1).abs().amax(1) / 127.0).double()
    return torch.quantize_per_channel(w, scales, torch.zeros(shape[0], dtype=torch.long), 0, torch.qint8)


# (N, C_in, H, W, C_out, k, stride, padding, dilation, groups, per_channel, bias)
CONV_SHAPES = [(1, 64, 14, 14, 64, 3, 1, 1, 1, 1, True, True),
               (3, 16, 9, 11, 32, 3, 2, 1, 1, 1, True, True),
               (1, 64, 14, 14, 128, 1, 2, 0, 1, 1, True, True),
               (3, 8, 10, 10, 12, 1, 1, 0, 1, 1, False, True),
               (1, 32, 12, 12, 32, 3, 1, 1, 1, 32, True, True),
               (3, 24, 9, 9, 24, 3, 2, 1, 1, 24, True, False),
               (1, 16, 11, 11, 32, 3, 1, 2, 2, 4, True, True),
               (1, 3, 32, 32, 64, 7, 2, 3, 1, 1, True, True),
               (3, 4, 5, 5, 6, 3, 1, 1, 1, 1, True, False)]


def conv_cases(seed=0, shapes=CONV_SHAPES, zero_points=(110, 95, 128, 70), label=""):
    """zero_points: the input's, the conv's output's, the residual's and the add's output's."""
    x_zp, out_zp, residual_zp, add_zp = zero_points
    torch.manual_seed(seed)
    out = []
    for n, c, h, w_, o, k, s, p, d, g, per_channel, with_bias in shapes:
        x = activation((n, c, h, w_), 0.04, x_zp)
        wq = weight((o, c // g, k, k), per_channel)
        b = torch.randn(o) * 0.5 if with_bias else None
        packed = Q.conv2d_prepack(wq, b, [s, s], [p, p], [d, d], g)
        residual = activation((n, o, (h + 2 * p - d * (k - 1) - 1) // s + 1, (w_ + 2 * p - d * (k - 1) - 1) // s + 1),
                              0.05, residual_zp)
        base = {"x": qtensor(x), "weight": qtensor(wq), "bias": floats(b) if b is not None else None,
                "stride": [s, s], "padding": [p, p], "dilation": [d, d], "groups": g,
                "output_scale": repr(0.07), "output_zero_point": out_zp}
        name = f"N{n} C{c} {h}x{w_} -> {o} k{k} s{s} p{p} d{d} g{g}{' per_tensor' if not per_channel else ''}{label}"
        conv = Q.conv2d(x, packed, 0.07, out_zp)
        out.append(dict(base, op="conv2d", name=name, expected=ints(conv.int_repr())))
        # A ReLU's output zero point is 0 in a converted model (its observer sees ReLU's output). With another one,
        # PyTorch 1.13's onednn kernels apply ReLU after adding the zero point, a no-op (conv2d_relu returns
        # conv2d's integers); torchless clamps at the zero point (test_quantized_kernels.cpp checks that).
        out.append(dict(base, op="conv2d_relu", name=name, output_zero_point=0,
                        expected=ints(Q.conv2d_relu(x, packed, 0.07, 0).int_repr())))
        # Our conv2d_add(_relu) is PyTorch's conv2d (its output qparams) then add(_relu) into the final ones.
        for relu in (False, True):
            add = Q.add_relu if relu else Q.add
            y = add(conv, residual, 0.09, add_zp)
            out.append(dict(base, op="conv2d_add_relu" if relu else "conv2d_add", name=name, other=qtensor(residual),
                            add_scale=repr(0.09), add_zero_point=add_zp, expected=ints(y.int_repr())))
    return out


def relu_input_conv_cases():
    """Zero points 0, as in a converted model where a ReLU's output (zero point 0) feeds the convs and a residual
    block's add_relu: oneDNN's primitive then has no zero point attribute, and another kernel."""
    shapes = [CONV_SHAPES[i] for i in (1, 3, 4, 7)]
    return conv_cases(4, shapes, (0, 0, 0, 0), " zero points 0") + conv_cases(5, shapes[:1], (0, 95, 128, 0),
                                                                               " input zero point 0")


# (N, in_features, out_features, per_channel, bias)
LINEAR_SHAPES = [(1, 512, 100, True, True), (3, 64, 10, True, True), (5, 33, 7, False, True), (2, 16, 8, True, False)]


def linear_cases(seed=1, shapes=LINEAR_SHAPES, x_zero_point=100, label=""):
    torch.manual_seed(seed)
    out = []
    for n, k, o, per_channel, with_bias in shapes:
        x = activation((n, k), 0.05, x_zero_point)
        wq = weight((o, k), per_channel)
        b = torch.randn(o) * 0.5 if with_bias else None
        packed = Q.linear_prepack(wq, b)
        base = {"x": qtensor(x), "weight": qtensor(wq), "bias": floats(b) if b is not None else None,
                "output_scale": repr(0.11), "output_zero_point": 80, "name": f"N{n} {k} -> {o}{label}"}
        out.append(dict(base, op="linear", expected=ints(Q.linear(x, packed, 0.11, 80).int_repr())))
        out.append(dict(base, op="linear_relu", output_zero_point=0,
                        expected=ints(Q.linear_relu(x, packed, 0.11, 0).int_repr())))
    return out


def pointwise_cases():
    torch.manual_seed(2)
    out = []
    for shape in [(1, 64, 7, 7), (3, 5, 4, 3), (2, 1000)]:
        a, b = activation(shape, 0.05, 128), activation(shape, 0.03, 60, spread=2.0)
        for op, fn in [("add", Q.add), ("add_relu", Q.add_relu)]:
            out.append({"op": op, "name": str(shape), "a": qtensor(a), "b": qtensor(b), "scale": repr(0.08),
                        "zero_point": 64, "expected": ints(fn(a, b, 0.08, 64).int_repr())})
        # The same tensor twice, as a residual of itself.
        out.append({"op": "add", "name": f"{shape} self", "a": qtensor(a), "b": qtensor(a), "scale": repr(0.1),
                    "zero_point": 0, "expected": ints(Q.add(a, a, 0.1, 0).int_repr())})
    return out


def pool_cat_cases():
    torch.manual_seed(3)
    out = []
    for shape, k, s, p, d, ceil in [((1, 64, 28, 28), 3, 2, 1, 1, False), ((3, 5, 9, 7), 2, 2, 0, 1, True),
                                    ((1, 4, 10, 10), 3, 1, 1, 2, False)]:
        x = activation(shape, 0.05, 128).contiguous(memory_format=torch.channels_last)
        y = torch.nn.functional.max_pool2d(x, k, s, p, d, ceil_mode=ceil)
        out.append({"op": "max_pool2d", "name": str(shape), "x": qtensor(x), "kernel_size": [k, k], "stride": [s, s],
                    "padding": [p, p], "dilation": [d, d], "ceil_mode": ceil, "expected": ints(y.int_repr())})
    # Channels-last inputs, as a quantized conv returns them (ATen's NHWC kernel), and one contiguous.
    for shape, size, channels_last in [((1, 512, 7, 7), [1, 1], True), ((3, 8, 9, 7), [2, 3], True),
                                       ((2, 3, 10, 10), [4, 4], True), ((1, 2, 5, 6), [5, 6], True),
                                       ((2, 16, 9, 7), [2, 3], False)]:
        x = activation(shape, 0.05, 128)
        if channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        y = torch.nn.functional.adaptive_avg_pool2d(x, size)
        out.append({"op": "adaptive_avg_pool2d", "name": f"{shape}{' channels_last' if channels_last else ''}", "x": qtensor(x), "output_size": size,
                    "expected": ints(y.int_repr())})
    for dim, scale, zero_point in [(1, 0.06, 90), (0, None, None), (3, 0.02, 200)]:
        xs = [activation((2, 3, 4, 5), 0.05, 128), activation((2, 3, 4, 5), 0.04, 100, spread=2.0)]
        y = Q.cat(xs, dim, scale, zero_point)
        out.append({"op": "cat", "name": f"dim {dim}", "xs": [qtensor(t) for t in xs], "dim": dim,
                    "scale": repr(scale) if scale is not None else None, "zero_point": zero_point,
                    "expected": ints(y.int_repr()), "out_scale": repr(y.q_scale()),
                    "out_zero_point": y.q_zero_point()})
    return out


def main():
    cases = {"conv": conv_cases() + relu_input_conv_cases(),
             "linear": linear_cases() + linear_cases(6, LINEAR_SHAPES[1:], 0, " input zero point 0"), "pointwise": pointwise_cases(),
             "pool_cat": pool_cat_cases()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "quantized_kernel_cases.json")
    with open(path, "w") as f:
        json.dump(cases, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
