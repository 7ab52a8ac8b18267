#!/usr/bin/python3
"""tests/ops/gen_special_values.py — PyTorch 1.13's results for the special-value sweep.

Writes tests/ops/data/special_values.json, read by tests/ops/test_special_values.cpp: for every sample
of every op (tests/ops/op_db.cpp's table mirrors SAMPLES below, sample by sample) and every special value (NaN, +inf,
-inf, -0.0, a float32 denormal) planted in the input x, what PyTorch eager returns. The inference ops
(to_mkldnn, mkldnn_convolution, ...) have no eager PyTorch twin with our layouts: their reference is the
eager op they stand for (conv2d + add + relu, max_pool2d, ...), computed here.
Values are Python float reprs ("nan", "-inf", "-0.0" included), exact for float32 and bfloat16.
Usage: /usr/bin/python3 tests/ops/gen_special_values.py
"""
import json
import os

import torch
import torch.nn.functional as F

SPECIALS = {
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "-0.0": -0.0,
    "denormal": float(torch.tensor(1e-40, dtype=torch.float32)),
}
# x is (1, 2, 4, 4): index 5 is inside plane 0; 16, 17, 20, 21 fill the first 2x2 window of plane 1;
# 30 sits in plane 1's last row.
SPECIAL_AT = [5, 16, 17, 20, 21, 30]


def make_x(s):
    v = [((i * 7) % 13 - 6) / 4 for i in range(32)]
    for i in SPECIAL_AT:
        v[i] = s
    return torch.tensor(v, dtype=torch.float32).view(1, 2, 4, 4)


Y = torch.tensor([0.5 + ((i * 5) % 7) * 0.25 for i in range(32)], dtype=torch.float32).view(1, 2, 4, 4)
# conv weight (3, 2, 3, 3) with some exact zeros (inf * 0 is NaN) and a bias
W = torch.tensor([((i * 3) % 11 - 5) / 8 for i in range(54)], dtype=torch.float32).view(3, 2, 3, 3)
B = torch.tensor([0.1, -0.2, 0.3])
W1 = W[:, :, 1]  # the 1-d convs' weight (3, 2, 3)
# linear weight (3, 4) with an exact zero, and its bias (op_db.cpp's linear_weight, linear_bias)
LW = torch.tensor([((i * 5) % 9 - 4) / 4 for i in range(12)], dtype=torch.float32).view(3, 4)
LB = torch.tensor([0.1, -0.2, 0.3])


def seq(t):
    """The 1-d ops' (N, C, L) view of a (1, 2, 4, 4) sample: (1, 2, 16)."""
    return t.flatten(2, 3)


BN = [torch.tensor(v) for v in ([1.5, -0.5], [0.1, 0.2], [0.25, -0.5], [0.5, 2.0])]

# gather / scatter indices along dim 3 of x: distinct within each row, or with repeats (op_db.cpp's row_index).
ROW_INDEX = torch.tensor([3, 0, 1, 2, 0, 3, 2, 1, 1, 3, 2, 0, 3, 1, 0, 2]).view(1, 2, 4, 2)
REPEATED_INDEX = torch.tensor([2, 2, 0, 1, 3, 3, 1, 0, 0, 0, 2, 2, 1, 3, 3, 1]).view(1, 2, 4, 2)


def bf(t):
    """What a bfloat16 kernel sees: the value rounded to bfloat16, computed on in float32."""
    return t.to(torch.bfloat16).float()


def residual(x):
    return torch.cat([x, x[:, :1]], 1)


def bn_train(x):
    rm, rv = BN[2].clone(), BN[3].clone()
    out = F.batch_norm(x, rm, rv, BN[0], BN[1], True, 0.1, 1e-5)
    return out, rm, rv


def conv_backward(grad, x):
    return torch.ops.aten.convolution_backward(grad, x, W, [3], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                               [True, True, True])


def bn_backward(grad, x, train):
    """Our kernel computes the batch statistics itself; PyTorch's CPU kernel reads them from the forward."""
    save_mean, save_invstd = None, None
    if train:
        _, save_mean, save_invstd = torch.native_batch_norm(x, BN[0], BN[1], BN[2].clone(), BN[3].clone(), True,
                                                            0.1, 1e-5)
    return torch.ops.aten.native_batch_norm_backward(grad, x, BN[0], BN[2], BN[3], save_mean, save_invstd, train,
                                                     1e-5, [True, True, True])


def ln_backward(grad, x):
    w, b = Y[0, 0, 0], Y[0, 1, 0]
    _, mean, rstd = torch.native_layer_norm(x, [4], w, b, 1e-5)
    return torch.ops.aten.native_layer_norm_backward(grad, x, [4], mean, rstd, w, b, [True, True, True])


def gn(x, y):
    return torch.native_group_norm(x, y[0, :, 0, 0].contiguous(), y[0, :, 1, 1].contiguous(), 1, 2, 16, 1, 1e-5)


def gn_backward(grad, x):
    # contiguous: PyTorch's native_group_norm reads a strided weight as if it were contiguous (F.group_norm
    # makes it so first)
    w, b = Y[0, :, 0, 0].contiguous(), Y[0, :, 1, 1].contiguous()
    _, mean, rstd = torch.native_group_norm(x, w, b, 1, 2, 16, 1, 1e-5)
    return torch.ops.aten.native_group_norm_backward(grad, x, mean, rstd, w, 1, 2, 16, 1, [True, True, True])


def instance_norm_running(x):
    rm, rv = BN[2].clone(), BN[3].clone()
    out = F.instance_norm(x, rm, rv, None, None, True, 0.1, 1e-5)
    return out, rm, rv


def max_pool_backward(grad, x):
    _, indices = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    return torch.ops.aten.max_pool2d_with_indices_backward(grad, x, [3, 3], [2, 2], [1, 1], [1, 1], False, indices)


def adaptive_max_backward(grad, x):
    return torch.ops.aten.adaptive_max_pool2d_backward(grad, x, F.adaptive_max_pool2d(x, 2, return_indices=True)[1])


# prelu's slopes (op_db.cpp's prelu_weight): one for all, or one per channel of x.
PRELU_WEIGHT = torch.tensor([0.25, -0.5])


def addc(f):
    """addcmul's and addcdiv's samples (op_db.cpp's addc): the special value in self, tensor1 or tensor2."""
    return {"self": lambda x, y: f(x, y, y - 1.0, value=0.5), "tensor1": lambda x, y: f(y, x, y, value=1),
            "tensor2": lambda x, y: f(y, y, x, value=-2),
            "broadcast": lambda x, y: f(x, y[:, :1], y[..., 1:2], value=1),
            "float64": lambda x, y: f(x, y.double(), y, value=0.5)}


def inplace(name):
    return lambda x, y: getattr(x.clone(), name)()


def inplace2(name):
    return lambda x, y: getattr(x.clone(), name)(y)


SAMPLES = {
    "empty": {"shape": lambda x, y: torch.empty(2, 3)},
    "zeros": {"plain": lambda x, y: torch.zeros(2, 3)},
    "ones": {"plain": lambda x, y: torch.ones(2, 3)},
    "full": {"fill": lambda x, y: torch.full((2, 3), float(x.flatten()[5]))},
    "arange": {"end": lambda x, y: torch.arange(0, float(x.flatten()[5]))},
    "empty_like": {"shape": lambda x, y: torch.empty_like(x)},
    "zeros_like": {"plain": lambda x, y: torch.zeros_like(x)},
    "ones_like": {"plain": lambda x, y: torch.ones_like(x), "float64": lambda x, y: torch.ones_like(x, dtype=torch.float64)},
    "full_like": {"plain": lambda x, y: torch.full_like(x, -2.5)},
    "eye": {"square": lambda x, y: torch.eye(3), "m": lambda x, y: torch.eye(2, 3, dtype=torch.int64)},
    "linspace": {"plain": lambda x, y: torch.linspace(-1.5, 2, 9),
                 "int64": lambda x, y: torch.linspace(0, 10, 7, dtype=torch.int64)},
    "logspace": {"plain": lambda x, y: torch.logspace(-2, 2, 5), "base": lambda x, y: torch.logspace(0, 3, 4, 2.0)},
    "rand": {"shape": lambda x, y: torch.rand(2, 3)},
    "randn": {"shape": lambda x, y: torch.randn(2, 3)},
    "randint": {"shape": lambda x, y: torch.randint(-3, 10, (2, 3))},
    "randperm": {"shape": lambda x, y: torch.randperm(7)},
    "rand_like": {"shape": lambda x, y: torch.rand_like(x)},
    "randn_like": {"shape": lambda x, y: torch.randn_like(x)},
    "randint_like": {"shape": lambda x, y: torch.randint_like(x, 0, 5)},
    "normal": {"shape": lambda x, y: torch.normal(x, y)},
    "bernoulli": {"shape": lambda x, y: torch.bernoulli((y - 0.5) / 2)},
    "bernoulli_": {"shape": lambda x, y: x.clone().bernoulli_(0.3)},
    "multinomial": {"shape": lambda x, y: torch.multinomial(y.flatten(), 3)},
    "uniform_": {"shape": lambda x, y: x.clone().uniform_(-1.0, 2.0)},
    "normal_": {"shape": lambda x, y: x.clone().normal_(0.5, 2.0)},
    "copy_": {"plain": lambda x, y: y.clone().copy_(x)},
    "clone": {"plain": lambda x, y: x.clone()},
    "contiguous": {"transposed": lambda x, y: x.transpose(2, 3).contiguous()},
    "to": {"bfloat16": lambda x, y: x.to(torch.bfloat16), "float64": lambda x, y: x.to(torch.float64)},
    "view": {"plain": lambda x, y: x.view(2, 16)},
    "reshape": {"plain": lambda x, y: x.reshape(4, 8)},
    "flatten": {"plain": lambda x, y: x.flatten()},
    "permute": {"plain": lambda x, y: x.permute(0, 2, 3, 1)},
    "transpose": {"plain": lambda x, y: x.transpose(1, 3)},
    "t": {"plain": lambda x, y: x.view(4, 8).t()},
    "slice": {"plain": lambda x, y: x[:, :, 1:3]},
    "select": {"plain": lambda x, y: x.select(1, 1)},
    "expand": {"plain": lambda x, y: x.view(1, 32).expand(2, 32)},
    "squeeze": {"plain": lambda x, y: x.squeeze()},
    "squeeze.dim": {"plain": lambda x, y: x.squeeze(0)},
    "unsqueeze": {"plain": lambda x, y: x.unsqueeze(1)},
    "narrow": {"plain": lambda x, y: x.narrow(2, 1, 2), "negative_start": lambda x, y: x.narrow(3, -3, 2)},
    "diagonal": {"plain": lambda x, y: torch.diagonal(x, 0, 2, 3), "offset": lambda x, y: x.diagonal(-1, 3, 1)},
    "diagonal_backward": {"plain": lambda x, y: aten.diagonal_backward(x.diagonal(1, 2, 3), x.shape, 1, 2, 3)},
    "chunk": {"plain": lambda x, y: torch.chunk(x, 2, 1), "uneven": lambda x, y: x.flatten().chunk(3)},
    "split": {"plain": lambda x, y: x.split(3, 3)},
    "split_with_sizes": {"plain": lambda x, y: torch.split(x, [1, 3], 3)},
    "unbind": {"plain": lambda x, y: x.unbind(1)},
    "flip": {"plain": lambda x, y: torch.flip(x, [1, 3])},
    "roll": {"dims": lambda x, y: x.roll([1, -2], [2, 3]), "flat": lambda x, y: torch.roll(x.transpose(2, 3), 5)},
    "repeat": {"plain": lambda x, y: x.repeat(2, 1, 1, 2), "new_dims": lambda x, y: x.repeat(2, 1, 3, 1, 1)},
    "tile": {"plain": lambda x, y: torch.tile(x, (2, 3))},
    "triu": {"plain": lambda x, y: torch.triu(x), "diagonal": lambda x, y: x.triu(-1)},
    "tril": {"plain": lambda x, y: torch.tril(x), "diagonal": lambda x, y: x.tril(1)},
    "gelu": {"none": lambda x, y: F.gelu(x), "tanh": lambda x, y: F.gelu(x, approximate="tanh"),
             "float64": lambda x, y: F.gelu(x.to(torch.float64)), "bfloat16": lambda x, y: F.gelu(x.to(torch.bfloat16))},
    "hardswish": {"plain": lambda x, y: F.hardswish(x), "float64": lambda x, y: F.hardswish(x.to(torch.float64)),
                  "bfloat16": lambda x, y: F.hardswish(x.to(torch.bfloat16))},
    "silu": {"plain": lambda x, y: F.silu(x), "float64": lambda x, y: F.silu(x.to(torch.float64)),
             "bfloat16": lambda x, y: F.silu(x.to(torch.bfloat16))},
    "mish": {"plain": lambda x, y: F.mish(x), "float64": lambda x, y: F.mish(x.to(torch.float64)),
             "bfloat16": lambda x, y: F.mish(bf(x)).to(torch.bfloat16)},  # PyTorch 1.13 has no bfloat16 mish
    "leaky_relu": {"plain": lambda x, y: F.leaky_relu(x), "slope": lambda x, y: F.leaky_relu(x, 0.2),
                   "float64": lambda x, y: F.leaky_relu(x.to(torch.float64), -0.5),
                   "bfloat16": lambda x, y: F.leaky_relu(x.to(torch.bfloat16))},
    **{name + "_": {"plain": lambda x, y, f=f: f(x.clone(), inplace=True),
                    "float64": lambda x, y, f=f: f(x.to(torch.float64) * 1.0, inplace=True)}
       for name, f in (("hardswish", F.hardswish), ("silu", F.silu), ("mish", F.mish), ("hardsigmoid", F.hardsigmoid),
                       ("relu6", F.relu6))},
    "hardtanh_": {"plain": lambda x, y: F.hardtanh(x.clone(), -0.5, 1.25, inplace=True),
                  "int64": lambda x, y: F.hardtanh((x * 4.0).to(torch.int64), -1.5, 2.5, inplace=True)},
    "relu6": {"plain": lambda x, y: F.relu6(x), "int64": lambda x, y: F.relu6((x * 4.0).to(torch.int64))},
    "leaky_relu_": {"plain": lambda x, y: F.leaky_relu(x.clone(), 0.2, inplace=True),
                    "float64": lambda x, y: F.leaky_relu(x.to(torch.float64), 0.2, inplace=True)},
    "elu": {"plain": lambda x, y: F.elu(x), "params": lambda x, y: torch.ops.aten.elu(x, 0.5, 2.0, 1.5),
            "float64": lambda x, y: torch.ops.aten.elu(x.to(torch.float64), 0.5, 2.0, 1.5),
            "bfloat16": lambda x, y: F.elu(x.to(torch.bfloat16))},
    "elu_": {"plain": lambda x, y: torch.ops.aten.elu_(x.clone(), 0.5, 2.0, 1.5),
             "float64": lambda x, y: F.elu(x.to(torch.float64), 0.5, inplace=True)},
    "softplus": {"plain": lambda x, y: F.softplus(x), "params": lambda x, y: F.softplus(x, 2, 1.5),
                 "float64": lambda x, y: F.softplus(x.to(torch.float64), 2, 1.5),
                 "bfloat16": lambda x, y: F.softplus(x.to(torch.bfloat16))},
    "hardsigmoid": {"plain": lambda x, y: F.hardsigmoid(x), "float64": lambda x, y: F.hardsigmoid(x.to(torch.float64)),
                    "bfloat16": lambda x, y: F.hardsigmoid(x.to(torch.bfloat16))},
    "hardtanh": {"plain": lambda x, y: F.hardtanh(x), "bounds": lambda x, y: F.hardtanh(x, -0.5, 1.25),
                 "float64": lambda x, y: F.hardtanh(x.to(torch.float64), 0, 6),
                 "int64": lambda x, y: F.hardtanh((x * 4.0).to(torch.int64), -1.5, 2.5)},
    "prelu": {"one": lambda x, y: F.prelu(x, PRELU_WEIGHT[:1]), "channels": lambda x, y: x.prelu(PRELU_WEIGHT),
              "weight": lambda x, y: F.prelu(y - 1.25, x.flatten()[5:7]),
              "float64": lambda x, y: F.prelu(x.to(torch.float64), (y.flatten()[:2] - 1.0).to(torch.float64))},
    "clamp": {"plain": lambda x, y: torch.clamp(x, -1.0, 1.0)},
    "clamp_min": {"plain": lambda x, y: torch.clamp_min(x, -0.5), "nan_bound": lambda x, y: x.clamp_min(float("nan")),
                  "int64": lambda x, y: x.to(torch.int64).clamp_min(0.5)},
    "clamp_max": {"plain": lambda x, y: torch.clamp_max(x, 0.5), "nan_bound": lambda x, y: x.clamp_max(float("nan")),
                  "int64": lambda x, y: x.to(torch.int64).clamp_max(0.5)},
    "clamp_min_": {"plain": lambda x, y: x.clone().clamp_min_(-0.5)},
    "clamp_max_": {"plain": lambda x, y: x.clone().clamp_max_(0.5)},
    "nan_to_num": {"plain": lambda x, y: torch.nan_to_num(x), "values": lambda x, y: x.nan_to_num(1.0, 2.0, -3.0),
                   "bfloat16": lambda x, y: x.to(torch.bfloat16).nan_to_num(),
                   "float64": lambda x, y: x.to(torch.float64).nan_to_num(),
                   "int64": lambda x, y: x.to(torch.int64).nan_to_num()},
    "nan_to_num_": {"plain": lambda x, y: x.clone().nan_to_num_(), "values": lambda x, y: x.clone().nan_to_num_(1.0, 2.0, -3.0)},
    "reciprocal": {"plain": lambda x, y: torch.reciprocal(x)},
    "rsub": {"self": lambda x, y: torch.rsub(x, y), "other": lambda x, y: torch.rsub(y, x), "number": lambda x, y: 2.0 - x},
    "__rtruediv__": {"number": lambda x, y: 1.0 / x},
    "clamp_": {"plain": lambda x, y: x.clone().clamp_(-1.0, 1.0)},
    "where": {"plain": lambda x, y: torch.where(y > 1.2, x, y)},
    "lerp": {"self": lambda x, y: torch.lerp(x, y, y * 0.5 - 0.5), "end": lambda x, y: torch.lerp(y, x, y - 1.0),
             "weight": lambda x, y: torch.lerp(y, y * 2.0, x),
             "broadcast": lambda x, y: torch.lerp(x, y[..., :1], y[:, :, :1]),
             "float64": lambda x, y: torch.lerp(x.double(), y.double(), (y * 0.5 - 0.5).double())},
    "lerp.Scalar": {"scalar": lambda x, y: torch.lerp(x, y, 0.3), "scalar_high": lambda x, y: y.lerp(x, 0.75),
                    "broadcast": lambda x, y: torch.lerp(x, y[..., :1], 0.6),
                    "bfloat16": lambda x, y: torch.lerp(x.to(torch.bfloat16), y.to(torch.bfloat16), 0.25)},
    "clamp.Tensor": {"self": lambda x, y: torch.clamp(x, y - 2.0, y), "min_bound": lambda x, y: torch.clamp(y, x, y + 1.0),
                     "max_bound": lambda x, y: y.clamp(y - 1.0, x), "min_only": lambda x, y: torch.clamp(x, min=y - 1.5),
                     "max_only": lambda x, y: torch.clamp(x, max=y - 1.0), "crossing": lambda x, y: torch.clamp(x, y, y - 1.0),
                     "broadcast": lambda x, y: torch.clamp(x, y[..., :1] - 1.75, y),
                     "int64": lambda x, y: torch.clamp((x * 4.0).to(torch.int64), y - 2.0, y)},
    "clamp_.Tensor": {"plain": lambda x, y: x.clone().clamp_(y - 2.0, y)},
    "clamp_min.Tensor": {"self": lambda x, y: torch.clamp_min(x, y - 1.5), "min": lambda x, y: y.clamp_min(x)},
    "clamp_max.Tensor": {"self": lambda x, y: torch.clamp_max(x, y - 1.0), "max": lambda x, y: y.clamp_max(x)},
    "clamp_min_.Tensor": {"plain": lambda x, y: x.clone().clamp_min_(y - 1.5)},
    "clamp_max_.Tensor": {"plain": lambda x, y: x.clone().clamp_max_(y - 1.0)},
    "addcmul": addc(torch.addcmul) | {
        "int64": lambda x, y: torch.addcmul((x * 4.0).to(torch.int64), (y * 2.0).to(torch.int64),
                                            (y * 4.0).to(torch.int64), value=3)},
    "addcdiv": addc(torch.addcdiv),
    "threshold_backward": {"plain": lambda x, y: torch.ops.aten.threshold_backward(y, x, 0.0)},
    "gelu_backward": {"none": lambda x, y: torch.ops.aten.gelu_backward(y, x),
                      "tanh": lambda x, y: torch.ops.aten.gelu_backward(y, x, approximate="tanh"),
                      "float64": lambda x, y: torch.ops.aten.gelu_backward(y.to(torch.float64), x.to(torch.float64))},
    "hardswish_backward": {"plain": lambda x, y: torch.ops.aten.hardswish_backward(y, x),
                           "float64": lambda x, y: torch.ops.aten.hardswish_backward(y.to(torch.float64), x.to(torch.float64))},
    "silu_backward": {"plain": lambda x, y: torch.ops.aten.silu_backward(y, x),
                      "float64": lambda x, y: torch.ops.aten.silu_backward(y.to(torch.float64), x.to(torch.float64))},
    "mish_backward": {"plain": lambda x, y: torch.ops.aten.mish_backward(y, x),
                      "float64": lambda x, y: torch.ops.aten.mish_backward(y.to(torch.float64), x.to(torch.float64))},
    "leaky_relu_backward": {"plain": lambda x, y: torch.ops.aten.leaky_relu_backward(y, x, 0.2, False),
                            "result": lambda x, y: torch.ops.aten.leaky_relu_backward(y, x, 0.01, True)},
    "elu_backward": {"plain": lambda x, y: torch.ops.aten.elu_backward(y, 0.5, 2.0, 1.5, False, x),
                     "result": lambda x, y: torch.ops.aten.elu_backward(y, 0.5, 2.0, 1.5, True, x),
                     "float64": lambda x, y: torch.ops.aten.elu_backward(y.double(), 1, 1, 1, False, x.double())},
    "softplus_backward": {"plain": lambda x, y: torch.ops.aten.softplus_backward(y, x, 1, 20),
                          "params": lambda x, y: torch.ops.aten.softplus_backward(y, x, 2, 1.5)},
    "hardsigmoid_backward": {"plain": lambda x, y: torch.ops.aten.hardsigmoid_backward(y, x)},
    "hardtanh_backward": {"plain": lambda x, y: torch.ops.aten.hardtanh_backward(y, x, -0.5, 1.25)},
    "prelu_backward": {"one": lambda x, y: torch.ops.aten.prelu_backward(y, x, PRELU_WEIGHT[:1]),
                       "channels": lambda x, y: torch.ops.aten.prelu_backward(y, x, PRELU_WEIGHT)},
    "native_dropout": {"eval": lambda x, y: torch.native_dropout(x, 0.5, False),
                       "p0": lambda x, y: torch.native_dropout(x, 0.0, True)},
    "native_dropout_backward": {"plain": lambda x, y: torch.ops.aten.native_dropout_backward(x, y > 1.0, 2.0)},
    "allclose": {"self": lambda x, y: torch.allclose(x, x), "equal_nan": lambda x, y: torch.allclose(x, x, equal_nan=True)},
    "equal": {"self": lambda x, y: torch.equal(x, x)},
    "sum": {"all": lambda x, y: x.sum(), "dims": lambda x, y: x.sum([2, 3]),
            "dtype": lambda x, y: x.sum([2, 3], dtype=torch.float64)},
    "mean": {"all": lambda x, y: x.mean(), "dim": lambda x, y: x.mean([3]),
             "dtype": lambda x, y: x.mean([3], True, dtype=torch.float64),
             "quantized": lambda x, y: torch.quantize_per_tensor(x, 0.1, 128, torch.quint8).mean([2, 3]).int_repr()},
    "max": {"all": lambda x, y: x.max(), "dim": lambda x, y: tuple(x.max(3))},
    "min": {"all": lambda x, y: x.min(), "dim": lambda x, y: tuple(x.min(3))},
    "argmax": {"all": lambda x, y: x.argmax(), "dim": lambda x, y: x.argmax(3)},
    "argmin": {"all": lambda x, y: x.argmin(), "dim": lambda x, y: x.argmin(3)},
    "amax": {"all": lambda x, y: torch.amax(x), "dim": lambda x, y: x.amax(3),
             "dims": lambda x, y: torch.amax(x, [2, 3], True)},
    "amin": {"all": lambda x, y: torch.amin(x), "dim": lambda x, y: x.amin(3),
             "dims": lambda x, y: torch.amin(x, [2, 3], True)},
    "prod": {"all": lambda x, y: torch.prod(x), "float64": lambda x, y: x.prod(dtype=torch.float64)},
    "prod.dim_int": {"dim": lambda x, y: torch.prod(x, 3), "keepdim": lambda x, y: x.prod(2, True)},
    "logsumexp": {"dim": lambda x, y: torch.logsumexp(x, 3), "dims": lambda x, y: x.logsumexp([2, 3], True)},
    "any": {"all": lambda x, y: x.any(), "dim": lambda x, y: x.any(3)},
    "all": {"all": lambda x, y: x.all(), "dim": lambda x, y: x.all(3)},
    "var": {"all": lambda x, y: x.var(), "dim": lambda x, y: x.var(3, unbiased=False, keepdim=True),
            "correction": lambda x, y: torch.var(x, [2, 3], correction=2)},
    "std": {"all": lambda x, y: x.std(), "dim": lambda x, y: x.std(3, unbiased=False, keepdim=True),
            "correction": lambda x, y: torch.std(x, [2, 3], correction=2)},
    "var_mean": {"dim": lambda x, y: torch.var_mean(x, 3)},
    "std_mean": {"dim": lambda x, y: torch.std_mean(x, 3)},
    "linalg_vector_norm": {"2": lambda x, y: torch.linalg.vector_norm(x),
                           "1_dim": lambda x, y: torch.linalg.vector_norm(x, 1, 3),
                           "inf_dims": lambda x, y: torch.linalg.vector_norm(x, float("inf"), [2, 3], True),
                           "3_dim": lambda x, y: torch.linalg.vector_norm(x, 3, 3),
                           "0": lambda x, y: torch.linalg.vector_norm(x, 0)},
    "norm": {"2": lambda x, y: x.norm(), "1_dim": lambda x, y: x.norm(1, 3),
             "fro_dims": lambda x, y: torch.norm(x, "fro", [2, 3])},
    "sort": {"dim": lambda x, y: tuple(torch.sort(x, 3)), "descending": lambda x, y: tuple(x.sort(2, True))},
    "argsort": {"dim": lambda x, y: torch.argsort(x, 3), "descending": lambda x, y: x.argsort(2, True)},
    # + 0.0: which of the tied -0.0 and 0.0 topk / kthvalue select is unspecified
    "topk": {"largest": lambda x, y: torch.topk(x, 3, 3).values + 0.0,
             "smallest": lambda x, y: x.topk(2, 2, False).values + 0.0},
    "kthvalue": {"dim": lambda x, y: torch.kthvalue(x, 2, 3).values + 0.0,
                 "keepdim": lambda x, y: x.kthvalue(3, 2, True).values + 0.0},
    "value_selecting_reduction_backward": {
        "sort": lambda x, y: aten.value_selecting_reduction_backward(y, 3, x.sort(3).indices, x.shape, True),
        "kthvalue": lambda x, y: aten.value_selecting_reduction_backward(y.select(2, 0), 2, x.argsort(2).select(2, 1),
                                                                          x.shape, False)},
    "cumsum": {"dim": lambda x, y: torch.cumsum(x, 3), "dtype": lambda x, y: x.cumsum(2, dtype=torch.float64)},
    "cumprod": {"dim": lambda x, y: torch.cumprod(x, 3), "dtype": lambda x, y: x.cumprod(2, dtype=torch.float64)},
    "nonzero": {"plain": lambda x, y: torch.nonzero(x)},
    "argwhere": {"plain": lambda x, y: torch.argwhere(x)},
    "index_select": {"plain": lambda x, y: torch.index_select(x, 3, torch.tensor([3, 0, 2]))},
    "masked_select": {"plain": lambda x, y: torch.masked_select(x, y > 1.2)},
    "index": {"mask": lambda x, y: x[y > 1.2],
              "tensors": lambda x, y: x[:, torch.tensor([1, 0, 1]), :, torch.tensor([3, -1, 0])]},
    "index_put": {"values": lambda x, y: torch.index_put(y, (y > 1.2,), x[y > 1.2]),
                  "self": lambda x, y: torch.ops.aten.index_put(x, [None, torch.tensor([1, 1])], y[:, 0], True)},
    "index_put_": {"plain": lambda x, y: torch.ops.aten.index_put_(x.clone(), [None, torch.tensor([0, 1])], y[:, 0:2])},
    "gather": {"plain": lambda x, y: torch.gather(x, 3, ROW_INDEX)},
    "take_along_dim": {"dim": lambda x, y: torch.take_along_dim(x, ROW_INDEX, 3),
                       "flat": lambda x, y: torch.take_along_dim(x, torch.tensor([5, 0, 31, 5]))},
    "scatter": {"self": lambda x, y: torch.scatter(x, 3, ROW_INDEX, y), "src": lambda x, y: torch.scatter(y, 3, ROW_INDEX, x)},
    "scatter_": {"plain": lambda x, y: x.clone().scatter_(3, ROW_INDEX, y)},
    "scatter.value": {"plain": lambda x, y: x.scatter(3, ROW_INDEX, -1.5)},
    "scatter_.value": {"plain": lambda x, y: x.clone().scatter_(3, ROW_INDEX, 2)},
    "scatter_add": {"self": lambda x, y: torch.scatter_add(x, 3, REPEATED_INDEX, y),
                    "src": lambda x, y: torch.scatter_add(y, 3, REPEATED_INDEX, x)},
    "scatter_add_": {"plain": lambda x, y: x.clone().scatter_add_(3, REPEATED_INDEX, y)},
    "index_add": {"self": lambda x, y: torch.index_add(x, 3, torch.tensor([3, 0, 3]), y[..., :3], alpha=2.0),
                  "source": lambda x, y: torch.index_add(y, 3, torch.tensor([3, 0, 3]), x[..., :3])},
    "index_add_": {"plain": lambda x, y: x.clone().index_add_(3, torch.tensor([3, 0, 3]), y[..., :3])},
    "masked_fill": {"plain": lambda x, y: torch.masked_fill(x, y > 1.2, -1.5),
                    "broadcast": lambda x, y: x.masked_fill(torch.tensor([True, False, False, True]), 0.5)},
    "masked_fill_": {"plain": lambda x, y: x.clone().masked_fill_(y > 1.2, 2)},
    "masked_fill.Tensor": {"self": lambda x, y: x.masked_fill(y > 1.2, y.sum()),
                           "value": lambda x, y: y.masked_fill(y > 1.2, x.sum())},
    "masked_fill_.Tensor": {"plain": lambda x, y: x.clone().masked_fill_(y > 1.2, y.max())},
    "pow.Scalar": {"base": lambda x, y: torch.pow(2.5, x), "zero": lambda x, y: torch.pow(0, x)},
    "cat": {"plain": lambda x, y: torch.cat([x, y], 1)},
    "stack": {"plain": lambda x, y: torch.stack([x, y], 0)},
    "matmul": {"self": lambda x, y: x.view(8, 4) @ y.view(4, 8), "other": lambda x, y: y.view(8, 4) @ x.view(4, 8)},
    "mm": {"plain": lambda x, y: torch.mm(x.view(8, 4), y.view(4, 8))},
    "bmm": {"plain": lambda x, y: torch.bmm(x.view(2, 4, 4), y.view(2, 4, 4))},
    "einsum": {"bmm": lambda x, y: torch.einsum("bhqd,bhkd->bhqk", x, y),
               "implicit": lambda x, y: torch.einsum("bhij,bhjk", x, y),
               "transpose": lambda x, y: torch.einsum("...ij->...ji", x),
               "diagonal": lambda x, y: torch.einsum("bhii->bhi", x), "sum": lambda x, y: torch.einsum("bhij->hi", x)},
    "addmm": {"plain": lambda x, y: torch.addmm(y.flatten()[:8], x.view(8, 4), y.view(4, 8)),
              "self": lambda x, y: torch.addmm(x.flatten()[:8], y.view(8, 4), y.view(4, 8))},
    "baddbmm": {"plain": lambda x, y: torch.baddbmm(y.view(2, 4, 4), x.view(2, 4, 4), y.view(2, 4, 4), beta=0.5, alpha=2),
                "self": lambda x, y: y.view(2, 4, 4).baddbmm(x.view(2, 4, 4).transpose(1, 2), y.view(2, 4, 4))},
    "outer": {"plain": lambda x, y: torch.outer(x.flatten()[:6], y.flatten()[:5])},
    "linear": {"plain": lambda x, y: F.linear(x.view(8, 4), y.view(8, 4), y.flatten()[:8])},
    "conv2d": {"input": lambda x, y: F.conv2d(x, W, B, padding=1),
               "weight": lambda x, y: F.conv2d(y, x.view(2, 2, 2, 4))},
    "batch_norm": {"eval": lambda x, y: F.batch_norm(x, BN[2], BN[3], BN[0], BN[1], False, 0.1, 1e-5),
                   "train": lambda x, y: bn_train(x)},
    "layer_norm": {"last": lambda x, y: F.layer_norm(x, (4,), y[0, 0, 0], y[0, 1, 0]),
                   "plane": lambda x, y: F.layer_norm(x, (4, 4))},
    "native_layer_norm": {"last": lambda x, y: torch.native_layer_norm(x, [4], y[0, 0, 0], y[0, 1, 0], 1e-5)[:1],
                          "stats": lambda x, y: torch.native_layer_norm(x, [4], y[0, 0, 0], y[0, 1, 0], 1e-5)[1:],
                          "plane": lambda x, y: torch.native_layer_norm(x, [2, 4, 4], y[0], None, 1e-5)[:1],
                          "bfloat16": lambda x, y: torch.native_layer_norm(
                              x.to(torch.bfloat16), [4], y[0, 0, 0].to(torch.bfloat16), y[0, 1, 0].to(torch.bfloat16),
                              1e-5)},
    "group_norm": {"groups2": lambda x, y: F.group_norm(x, 2, y[0, :, 0, 0], y[0, :, 1, 1]),
                   "groups1": lambda x, y: F.group_norm(x, 1)},
    "native_group_norm": {"affine": lambda x, y: gn(x, y)[:1], "stats": lambda x, y: gn(x, y)[1:],
                          "bfloat16": lambda x, y: torch.native_group_norm(
                              x.to(torch.bfloat16), y[0, :, 0, 0].to(torch.bfloat16).contiguous(),
                              y[0, :, 1, 1].to(torch.bfloat16).contiguous(), 1, 2, 16, 2, 1e-5)},
    "instance_norm": {"plain": lambda x, y: F.instance_norm(x, None, None, y[0, :, 0, 0], y[0, :, 1, 1], True, 0.1,
                                                            1e-5),
                      "running": lambda x, y: instance_norm_running(x)},
    "embedding": {"plain": lambda x, y: F.embedding(ROW_INDEX, x.reshape(8, 4)),
                  "padding": lambda x, y: F.embedding(REPEATED_INDEX, x.reshape(8, 4), padding_idx=2)},
    "_embedding_bag": {
        "sum": lambda x, y: embedding_bag(x.reshape(8, 4), 0), "mean": lambda x, y: embedding_bag(x.reshape(8, 4), 1),
        "max": lambda x, y: embedding_bag(x.reshape(8, 4), 2),
        "per_sample_weights": lambda x, y: embedding_bag(x.reshape(8, 4), 0, y.reshape(-1)[:16]),
        "include_last_offset": lambda x, y: embedding_bag(x.reshape(8, 4), 0, offsets=torch.tensor([0, 3, 3, 9, 12]),
                                                          include_last_offset=True),
        "mean_padding": lambda x, y: embedding_bag(x.reshape(8, 4), 1, padding_idx=2),
        "max_padding": lambda x, y: embedding_bag(x.reshape(8, 4), 2, padding_idx=3)},
    "_embedding_bag_backward": {"sum": lambda x, y: embedding_bag_backward(x, y, 0, False, False),
                                "mean_scaled": lambda x, y: embedding_bag_backward(x, y, 1, True, False),
                                "max": lambda x, y: embedding_bag_backward(x, y, 2, False, False),
                                "weighted": lambda x, y: embedding_bag_backward(x, y, 0, False, True)},
    "_embedding_bag_per_sample_weights_backward": {
        "plain": lambda x, y: torch.ops.aten._embedding_bag_per_sample_weights_backward(
            x.reshape(-1)[:16].reshape(4, 4), y.reshape(8, 4), BAG_INDICES, BAG_OFFSETS,
            bags_of(y, 0, y.reshape(-1)[16:])[1], 0, 2)},
    "embedding_renorm_": {"l2": lambda x, y: torch.embedding_renorm_(x.clone().reshape(8, 4), BAG_INDICES, 1.0, 2.0),
                          "l1": lambda x, y: torch.embedding_renorm_(x.clone().reshape(8, 4), REPEATED_INDEX, 2.0, 1.0)},
    "bilinear": {"plain": lambda x, y: F.bilinear(x.reshape(8, 4), y.reshape(8, 4), y.reshape(2, 4, 4), y.flatten()[:2])},
    "feature_dropout": {"eval": lambda x, y: torch.feature_dropout(x, 0.5, False)},
    "unflatten": {"plain": lambda x, y: x.unflatten(3, (2, 2)), "inferred": lambda x, y: x.unflatten(-1, (-1, 1))},
    "conv1d": {"input": lambda x, y: F.conv1d(seq(x), W1, B, stride=2, padding=1),
               "weight_groups_dilation": lambda x, y: F.conv1d(seq(y), x.view(4, 1, 8), dilation=2, groups=2)},
    "conv_transpose1d": {"input": lambda x, y: F.conv_transpose1d(seq(x), W1.transpose(0, 1), B, 2, 1, 1),
                         "weight_groups": lambda x, y: F.conv_transpose1d(seq(y), x.view(2, 2, 8), None, 3, 2, 1, 2)},
    "conv_transpose2d": {"input": lambda x, y: F.conv_transpose2d(x, W.transpose(0, 1), B, 2, 1, 1),
                         "weight_groups_dilation": lambda x, y: F.conv_transpose2d(y, x.view(2, 2, 2, 4), None, 1, 0, 0,
                                                                                   2, (2, 1))},
    "max_pool1d": {"k2": lambda x, y: F.max_pool1d(seq(x), 2), "k3s2p1": lambda x, y: F.max_pool1d(seq(x), 3, 2, 1),
                   "dilation2_ceil": lambda x, y: F.max_pool1d(seq(x), 3, 2, 0, 2, True)},
    "max_pool1d_with_indices": {"k3s2p1": lambda x, y: F.max_pool1d(seq(x), 3, 2, 1, return_indices=True)},
    "avg_pool1d": {"k2": lambda x, y: F.avg_pool1d(seq(x), 2),
                   "ceil_exclude_pad": lambda x, y: F.avg_pool1d(seq(x), 3, 2, 1, True, False)},
    "adaptive_avg_pool1d": {"5": lambda x, y: F.adaptive_avg_pool1d(seq(x), 5)},
    "adaptive_max_pool1d": {"5": lambda x, y: F.adaptive_max_pool1d(seq(x), 5, return_indices=True)},
    "max_pool2d": {"k2": lambda x, y: F.max_pool2d(x, 2), "k3s2p1": lambda x, y: F.max_pool2d(x, 3, 2, 1),
                   "dilation2": lambda x, y: F.max_pool2d(x, 2, 1, 0, 2),
                   "ceil": lambda x, y: F.max_pool2d(x, 3, 2, 0, ceil_mode=True),
                   "bfloat16": lambda x, y: F.max_pool2d(x.to(torch.bfloat16), 2)},
    "avg_pool2d": {"k2": lambda x, y: F.avg_pool2d(x, 2), "k3s2p1": lambda x, y: F.avg_pool2d(x, 3, 2, 1),
                   "ceil_exclude_pad": lambda x, y: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                   "divisor_override": lambda x, y: F.avg_pool2d(x, 3, 2, 1, divisor_override=5),
                   "quantized": lambda x, y: F.avg_pool2d(torch.quantize_per_tensor(x, 0.1, 128, torch.quint8), 3, 2,
                                                          1).int_repr()},
    "adaptive_avg_pool2d": {"2x2": lambda x, y: F.adaptive_avg_pool2d(x, 2),
                            "3x3": lambda x, y: F.adaptive_avg_pool2d(x, 3)},
    "dropout": {"eval": lambda x, y: F.dropout(x, 0.5, False)},
    "convolution_backward": {"input": lambda x, y: conv_backward(residual(y), x),
                             "grad_output": lambda x, y: conv_backward(residual(x), y)},
    "native_batch_norm_backward": {"train": lambda x, y: bn_backward(y, x, True),
                                   "eval": lambda x, y: bn_backward(y, x, False),
                                   "train_grad_out": lambda x, y: bn_backward(x, y, True)},
    "native_layer_norm_backward": {"input": lambda x, y: ln_backward(y, x),
                                   "grad_out": lambda x, y: ln_backward(x, y)},
    "native_group_norm_backward": {"input": lambda x, y: gn_backward(y, x),
                                   "grad_out": lambda x, y: gn_backward(x, y)},
    "embedding_dense_backward": {
        "plain": lambda x, y: torch.ops.aten.embedding_dense_backward(x.reshape(1, 2, 4, 2, 2), ROW_INDEX, 4, -1, False),
        "padding_scaled": lambda x, y: torch.ops.aten.embedding_dense_backward(x.reshape(1, 2, 4, 2, 2),
                                                                               REPEATED_INDEX, 4, 1, True)},
    "max_pool2d_with_indices": {"k2": lambda x, y: F.max_pool2d(x, 2, return_indices=True),
                                "k3s2p1": lambda x, y: F.max_pool2d(x, 3, 2, 1, return_indices=True),
                                "dilation2": lambda x, y: F.max_pool2d(x, 2, 1, 0, 2, return_indices=True),
                                "ceil": lambda x, y: F.max_pool2d(x, 3, 2, 0, ceil_mode=True, return_indices=True)},
    "max_pool2d_with_indices_backward": {"grad_output": lambda x, y: max_pool_backward(x[:, :, :2, :2], y),
                                         "self": lambda x, y: max_pool_backward(y[:, :, :2, :2], x)},
    "avg_pool2d_backward": {
        "k2": lambda x, y: torch.ops.aten.avg_pool2d_backward(x[:, :, :2, :2], y, [2, 2], [2, 2], [0, 0], False, True, None),
        "k3s2p1": lambda x, y: torch.ops.aten.avg_pool2d_backward(x[:, :, :2, :2], y, [3, 3], [2, 2], [1, 1], False, True,
                                                                  None),
        "ceil_exclude_pad": lambda x, y: torch.ops.aten.avg_pool2d_backward(x[:, :, :3, :3], y, [3, 3], [2, 2], [1, 1],
                                                                            True, False, None),
        "divisor_override": lambda x, y: torch.ops.aten.avg_pool2d_backward(x[:, :, :2, :2], y, [2, 2], [2, 2], [0, 0],
                                                                            False, True, 3),
    },
    "_adaptive_avg_pool2d_backward": {"2x2": lambda x, y: torch.ops.aten._adaptive_avg_pool2d_backward(x[:, :, :2, :2], y),
                                      "3x3": lambda x, y: torch.ops.aten._adaptive_avg_pool2d_backward(x[:, :, :3, :3], y)},
    "adaptive_max_pool2d": {"2x2": lambda x, y: F.adaptive_max_pool2d(x, 2, return_indices=True),
                            "3x3": lambda x, y: F.adaptive_max_pool2d(x, 3, return_indices=True)},
    "adaptive_max_pool2d_backward": {"grad_output": lambda x, y: adaptive_max_backward(x[:, :, :2, :2], y),
                                     "self": lambda x, y: adaptive_max_backward(y[:, :, :2, :2], x)},
    "constant_pad_nd": {"pad2d": lambda x, y: torch.constant_pad_nd(x, [1, 2, 0, 1], 0.5),
                        "crop": lambda x, y: torch.constant_pad_nd(x, [-1, 1, 1, -2]),
                        "pad3d": lambda x, y: torch.constant_pad_nd(x, [1, 0, 0, 1, 1, 0])},
    "reflection_pad1d": {"plain": lambda x, y: aten.reflection_pad1d(x.flatten(0, 1), [2, 3]),
                         "crop": lambda x, y: aten.reflection_pad1d(x.flatten(0, 1), [-1, 2])},
    "reflection_pad2d": {"plain": lambda x, y: aten.reflection_pad2d(x, [1, 2, 3, 0]),
                         "unbatched": lambda x, y: aten.reflection_pad2d(x[0], [2, 1, 1, 3])},
    "replication_pad1d": {"plain": lambda x, y: aten.replication_pad1d(x.flatten(0, 1), [3, 5]),
                          "crop": lambda x, y: aten.replication_pad1d(x.flatten(0, 1), [-2, 1])},
    "replication_pad2d": {"plain": lambda x, y: aten.replication_pad2d(x, [5, 1, 2, 6]),
                          "unbatched": lambda x, y: aten.replication_pad2d(x[0], [1, -1, 0, 2])},
    "reflection_pad1d_backward": {
        "grad_output": lambda x, y: aten.reflection_pad1d_backward(x.flatten(0, 1), y.flatten(0, 1)[:, :, :2], [1, 1])},
    "reflection_pad2d_backward": {
        "grad_output": lambda x, y: aten.reflection_pad2d_backward(x, y[:, :, :2, :2], [1, 1, 1, 1]),
        "self": lambda x, y: aten.reflection_pad2d_backward(y[:, :, :2, :2], x, [-1, -1, -1, -1])},
    "replication_pad1d_backward": {
        "grad_output": lambda x, y: aten.replication_pad1d_backward(x.flatten(0, 1), y.flatten(0, 1)[:, :, :2], [2, 0])},
    "replication_pad2d_backward": {
        "grad_output": lambda x, y: aten.replication_pad2d_backward(x, y[:, :, :2, :2], [0, 2, 1, 1])},
    "upsample_nearest2d": {"size": lambda x, y: aten.upsample_nearest2d(x, [6, 8]),
                           "scale": lambda x, y: aten.upsample_nearest2d(x, [6, 6], 1.5, 1.5),
                           "down": lambda x, y: aten.upsample_nearest2d(x, [3, 2])},
    "upsample_bilinear2d": {"align_corners": lambda x, y: aten.upsample_bilinear2d(x, [6, 7], True),
                            "half_pixel": lambda x, y: aten.upsample_bilinear2d(x, [6, 7], False),
                            "down": lambda x, y: aten.upsample_bilinear2d(x, [3, 3], False),
                            "scale": lambda x, y: aten.upsample_bilinear2d(x, [8, 8], False, 2.0, 2.0)},
    "upsample_nearest2d_backward": {"plain": lambda x, y: aten.upsample_nearest2d_backward(x, [4, 4], [1, 2, 2, 3])},
    "upsample_bilinear2d_backward": {
        "align_corners": lambda x, y: aten.upsample_bilinear2d_backward(x, [4, 4], [1, 2, 3, 3], True),
        "half_pixel": lambda x, y: aten.upsample_bilinear2d_backward(x, [4, 4], [1, 2, 2, 3], False)},
    "im2col": {"k2": lambda x, y: aten.im2col(x, [2, 2], [1, 1], [0, 0], [1, 1]),
               "k3d2p2s2": lambda x, y: aten.im2col(x, [3, 3], [2, 2], [2, 2], [2, 2])},
    "col2im": {"overlap": lambda x, y: aten.col2im(x.reshape(1, 8, 4), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1]),
               "stride2": lambda x, y: aten.col2im(x.reshape(1, 8, 4), [4, 4], [2, 2], [1, 1], [0, 0], [2, 2])},
    # inference ops: the eager computation each stands for
    "to_mkldnn": {"float32": lambda x, y: x, "bfloat16": lambda x, y: x.to(torch.bfloat16)},
    "to_dense": {"float32": lambda x, y: x},
    "mkldnn_convolution": {
        "direct_relu": lambda x, y: F.relu(F.conv2d(x, W, B, padding=1)),
        "winograd_relu": lambda x, y: F.relu(F.conv2d(x, W, B, padding=1)),
        "sum_relu": lambda x, y: F.relu(F.conv2d(y, W, B, padding=1) + residual(x)),
        "winograd_sum_relu": lambda x, y: F.relu(F.conv2d(y, W, B, padding=1) + residual(x)),
        "bfloat16_relu": lambda x, y: F.relu(F.conv2d(bf(x), bf(W), B, padding=1)).to(torch.bfloat16),
        "bfloat16_sum_relu": lambda x, y: F.relu(F.conv2d(bf(y), bf(W), B, padding=1) + bf(residual(x))).to(torch.bfloat16),
        # no padding: with a non-finite weight PyTorch's small-input backend (im2col) multiplies the
        # padding zeros (0 * inf is NaN) where its mkldnn backend, like oneDNN here, skips them
        "winograd_weight": lambda x, y: F.conv2d(y, x.flatten()[:18].view(1, 2, 3, 3)),
    },
    "mkldnn_reorder_conv2d_weight": {"direct": lambda x, y: F.conv2d(y, x.view(2, 2, 2, 4))},
    "mkldnn_linear": {"bias": lambda x, y: F.linear(x, LW, LB), "no_bias": lambda x, y: F.linear(x, LW),
                      "gelu": lambda x, y: F.gelu(F.linear(x, LW, LB)),
                      "weight_gelu": lambda x, y: F.gelu(F.linear(y, x.flatten()[:12].view(3, 4), LB))},
    "mkldnn_reorder_linear_weight": {"plain": lambda x, y: F.linear(y, x.flatten()[:12].view(3, 4))},
    "mkldnn_max_pool2d": {"k2": lambda x, y: F.max_pool2d(x, 2), "k3s2p1": lambda x, y: F.max_pool2d(x, 3, 2, 1),
                          "bfloat16": lambda x, y: F.max_pool2d(x.to(torch.bfloat16), 2)},
    "mkldnn_adaptive_avg_pool2d": {"1x1": lambda x, y: F.adaptive_avg_pool2d(x, 1),
                                   "3x3": lambda x, y: F.adaptive_avg_pool2d(x, 3),
                                   "bfloat16": lambda x, y: F.adaptive_avg_pool2d(bf(x), 1).to(torch.bfloat16)},
}


def unique_sorted(x):
    """torch._unique2(x, True, True, True), with every NaN a value of its own (NaN != NaN), last and
    counted once: PyTorch 1.13's CPU kernel, a hash set, gives NaN a count of 0 and an inverse of 0 (torch 2's
    sort-based kernel gives this). Built from torch.sort, so it is PyTorch's own order; without NaN it
    must equal torch._unique2, which is checked."""
    flat = x.flatten()
    values, order = torch.sort(flat, stable=True)
    starts = torch.ones_like(values, dtype=torch.bool)
    starts[1:] = values[1:] != values[:-1]
    run = torch.cumsum(starts.long(), 0) - 1
    inverse = torch.empty_like(run).scatter_(0, order, run).view(x.shape)
    counts = torch.bincount(run, minlength=int(starts.sum()))
    out = (flat[order[starts]], inverse, counts)
    if not torch.isnan(x).any():
        for a, b in zip(out, torch._unique2(x, True, True, True)):
            assert torch.equal(a, b), (a, b)
    return out


def unique_dim_sorted(x, dim):
    """torch.unique(x, True, True, True, dim) with rows ordered element by element, NaN above +inf and
    never equal (PyTorch 1.13 compares rows with < and >, so a NaN row's place depends on its neighbours).
    A stable sort in Python; without NaN it must equal torch.unique, which is checked."""
    moved = x.movedim(dim, 0)
    rows = moved.reshape(moved.shape[0], -1).tolist()
    order = sorted(range(len(rows)), key=lambda r: [(v != v, 0.0 if v != v else v) for v in rows[r]])
    firsts, inverse, counts = [], [0] * len(rows), []
    for k, r in enumerate(order):
        if k == 0 or rows[order[k - 1]] != rows[r] or any(v != v for v in rows[r]):
            firsts.append(r)
            counts.append(0)
        inverse[r] = len(firsts) - 1
        counts[-1] += 1
    out = (moved[firsts].movedim(0, dim), torch.tensor(inverse), torch.tensor(counts))
    if not torch.isnan(x).any():
        for a, b in zip(out, torch.unique(x, True, True, True, dim)):
            assert torch.equal(a, b), (a, b)
    return out


SAMPLES.update({
    "_unique2": {"sorted": lambda x, y: unique_sorted(x),
                 "values": lambda x, y: (unique_sorted(x)[0], torch.empty(0, dtype=torch.long),
                                         torch.empty(0, dtype=torch.long))},
    "unique_dim": {"dim": lambda x, y: unique_dim_sorted(x, 2),
                   "bool": lambda x, y: torch.unique(x > 0, True, True, True, 3)},
    "unique_consecutive": {"plain": lambda x, y: torch.unique_consecutive(x > 0, True, True),
                           "dim": lambda x, y: torch.unique_consecutive(x > 0, True, True, 3)},
})
# softmax and losses (tests/ops/op_db_loss.cpp): x as logits or log-probabilities
T8 = torch.tensor([0, 3, -100, 1, 2, 3, 0, 1])
T_ND = torch.tensor([0, 1, 1, 0, -100, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0]).view(1, 4, 4)
aten = torch.ops.aten


def rows(x):
    return x.reshape(8, 4)


def cweight(y):
    return y.flatten()[:4].contiguous()


def probabilities(y):
    """y (0.5 ... 2.0) mapped into [0, 1]: BCE targets."""
    return (y - 0.5) / 1.5


SIGNS = torch.tensor([1.0, -1, -1, 1, 1, -1, 1, -1])


def pointwise_loss(f, option):
    return {"mean": lambda x, y: f(x, y, 1, 1.0), "none": lambda x, y: f(y, x, 0, option),
            "sum_float64": lambda x, y: f(x.double(), y.double(), 2, option)}


def pointwise_loss_backward(f, option):
    return {"mean": lambda x, y: f(torch.tensor(0.5), x, y, 1, 1.0), "none": lambda x, y: f(y, x, y, 0, option)}


def softmax_primitive(f):
    return {"dim1": lambda x, y: f(x, 1, False), "last": lambda x, y: f(x, -1, False),
            "float64": lambda x, y: f(x.double(), 3, False)}


def softmax_backward(f, fwd):
    return {"grad": lambda x, y: f(x, fwd(y, 1, False), 1, torch.float32),
            "output": lambda x, y: f(y, fwd(x, 3, False), 3, torch.float32)}


SAMPLES.update({
    "_softmax": softmax_primitive(torch._softmax),
    "_log_softmax": softmax_primitive(torch._log_softmax),
    "_softmax_backward_data": softmax_backward(torch._softmax_backward_data, torch._softmax),
    "_log_softmax_backward_data": softmax_backward(torch._log_softmax_backward_data, torch._log_softmax),
    "softmax": {"dim1": lambda x, y: torch.softmax(x, 1), "float64": lambda x, y: torch.softmax(x, 2, dtype=torch.float64),
                "method": lambda x, y: x.softmax(3)},
    "log_softmax": {"dim1": lambda x, y: torch.log_softmax(x, 1),
                    "float64": lambda x, y: torch.log_softmax(x, 2, dtype=torch.float64),
                    "method": lambda x, y: x.log_softmax(3)},
    "nll_loss_forward": {"mean": lambda x, y: aten.nll_loss_forward(rows(x), T8, None, 1, -100),
                         "weight_none": lambda x, y: aten.nll_loss_forward(rows(x), T8, cweight(y), 0, -100),
                         "weight_sum": lambda x, y: aten.nll_loss_forward(rows(x), T8, cweight(y), 2, -100)},
    "nll_loss_backward": {
        "mean": lambda x, y: aten.nll_loss_backward(torch.tensor(0.5), rows(x), T8, cweight(y), 1, -100, torch.tensor(2.5)),
        "none": lambda x, y: aten.nll_loss_backward(x.flatten()[:8], rows(x), T8, None, 0, -100, torch.tensor(0.0))},
    "nll_loss": {"mean": lambda x, y: F.nll_loss(rows(x), T8),
                 "nd_none": lambda x, y: F.nll_loss(x, T_ND, reduction="none"),
                 "nd_weight_mean": lambda x, y: F.nll_loss(x, T_ND, y.flatten()[:2].contiguous())},
    "cross_entropy_loss": {
        "mean": lambda x, y: F.cross_entropy(rows(x), T8),
        "smoothing_weight": lambda x, y: F.cross_entropy(rows(x), T8, cweight(y), label_smoothing=0.2),
        "nd_smoothing_none": lambda x, y: F.cross_entropy(x, T_ND, reduction="none", label_smoothing=0.1),
        "probabilities": lambda x, y: F.cross_entropy(rows(x), torch.softmax(rows(y), 1))},
    "mse_loss": {"mean": lambda x, y: F.mse_loss(x, y), "none": lambda x, y: F.mse_loss(y, x, reduction="none"),
                 "sum_float64": lambda x, y: F.mse_loss(x.double(), y.double(), reduction="sum")},
    "mse_loss_backward": {"mean": lambda x, y: aten.mse_loss_backward(torch.tensor(0.5), x, y, 1),
                          "none": lambda x, y: aten.mse_loss_backward(y, x, y, 0)},
    "l1_loss": {"mean": lambda x, y: F.l1_loss(x, y), "none": lambda x, y: F.l1_loss(y, x, reduction="none"),
                "sum_float64": lambda x, y: F.l1_loss(x.double(), y.double(), reduction="sum")},
    "smooth_l1_loss": pointwise_loss(lambda x, y, r, o: torch.ops.aten.smooth_l1_loss(x, y, r, o), 0.5),
    "smooth_l1_loss_backward": pointwise_loss_backward(aten.smooth_l1_loss_backward, 0.5),
    "huber_loss": pointwise_loss(lambda x, y, r, o: torch.ops.aten.huber_loss(x, y, r, o), 0.75),
    "huber_loss_backward": pointwise_loss_backward(aten.huber_loss_backward, 0.75),
    "binary_cross_entropy": {
        "mean": lambda x, y: F.binary_cross_entropy(torch.sigmoid(x), probabilities(y)),
        "weight_none": lambda x, y: aten.binary_cross_entropy(torch.sigmoid(x), probabilities(y), cweight(y), 0),
        "sum_float64": lambda x, y: F.binary_cross_entropy(torch.sigmoid(x.double()), probabilities(y.double()),
                                                           reduction="sum")},
    "binary_cross_entropy_backward": {
        "mean": lambda x, y: aten.binary_cross_entropy_backward(torch.tensor(0.5), torch.sigmoid(x), probabilities(y),
                                                                None, 1),
        "weight_none": lambda x, y: aten.binary_cross_entropy_backward(y, torch.sigmoid(x), probabilities(y), cweight(y),
                                                                       0)},
    "binary_cross_entropy_with_logits": {
        "mean": lambda x, y: F.binary_cross_entropy_with_logits(x, probabilities(y)),
        "pos_weight_none": lambda x, y: F.binary_cross_entropy_with_logits(x, probabilities(y), reduction="none",
                                                                           pos_weight=cweight(y)),
        "weight_sum_float64": lambda x, y: F.binary_cross_entropy_with_logits(
            x.double(), probabilities(y.double()), cweight(y).double(), reduction="sum",
            pos_weight=cweight(y).double() * 2)},
    "xlogy": {"self": lambda x, y: torch.xlogy(x, y), "other": lambda x, y: y.xlogy(x),
              "number": lambda x, y: torch.xlogy(x, 2.5)},
    "kl_div": {"mean": lambda x, y: torch.kl_div(x, y, 1), "log_target_none": lambda x, y: torch.kl_div(y, x, 0, log_target=True),
               "sum_float64": lambda x, y: torch.kl_div(x.double(), y.double(), 2)},
    "cosine_embedding_loss": {
        "mean": lambda x, y: F.cosine_embedding_loss(rows(x), rows(y), SIGNS),
        "margin_none": lambda x, y: F.cosine_embedding_loss(rows(y), rows(x), SIGNS, 0.25, reduction="none"),
        "sum_float64": lambda x, y: F.cosine_embedding_loss(rows(x.double()), rows(y.double()), SIGNS.double(), -0.5,
                                                            reduction="sum")},
    "margin_ranking_loss": {
        "mean": lambda x, y: F.margin_ranking_loss(rows(x)[:, 0], rows(y)[:, 1], SIGNS),
        "margin_none": lambda x, y: F.margin_ranking_loss(rows(y)[:, 2], rows(x)[:, 3], SIGNS, 0.5, reduction="none"),
        "sum_float64": lambda x, y: F.margin_ranking_loss(rows(x.double())[:, 1], rows(y.double())[:, 0], SIGNS.double(),
                                                          0.25, reduction="sum")},
    "triplet_margin_loss": {
        "mean": lambda x, y: F.triplet_margin_loss(rows(x), rows(y), rows(y).flip(0)),
        "swap_p1_none": lambda x, y: F.triplet_margin_loss(rows(y), rows(x), rows(y).flip(1), 0.5, 1.0, 1e-6, True,
                                                           reduction="none"),
        "sum_float64": lambda x, y: F.triplet_margin_loss(rows(x.double()), rows(y.double()).flip(0), rows(y.double()),
                                                          2.0, 3.0, 1e-3, True, reduction="sum")},
    "pairwise_distance": {"plain": lambda x, y: F.pairwise_distance(x, y),
                          "p1_keepdim": lambda x, y: F.pairwise_distance(y, x, 1.0, 0.0, True),
                          "float64": lambda x, y: F.pairwise_distance(x.double(), y.double(), 3.0, 1e-3)},
    "cosine_similarity": {"dim1": lambda x, y: F.cosine_similarity(x, y),
                          "last": lambda x, y: F.cosine_similarity(y, x, -1, 0.5),
                          "float64": lambda x, y: F.cosine_similarity(x.double(), y.double(), 2)},
    "one_hot": {"infer": lambda x, y: F.one_hot((x.abs() * 2).to(torch.int64)),
                "num_classes": lambda x, y: F.one_hot((x.abs() * 2).to(torch.int64), 20)},
})
for name in ["neg", "abs", "exp", "log", "sqrt", "rsqrt", "relu", "sigmoid", "tanh"]:
    SAMPLES[name] = {"plain": (lambda n: lambda x, y: getattr(torch, n)(x))(name)}
    SAMPLES[name + "_"] = {"plain": inplace(name + "_")}
for name in ["add", "sub", "mul", "div", "pow"]:
    SAMPLES[name] = {"self": (lambda n: lambda x, y: getattr(torch, n)(x, y))(name),
                     "other": (lambda n: lambda x, y: getattr(torch, n)(y, x))(name)}
    SAMPLES[name + "_"] = {"self": inplace2(name + "_")}
for name, alpha in [("add", 2.5), ("sub", 0.5)]:
    SAMPLES[name]["alpha"] = (lambda n, a: lambda x, y: getattr(torch, n)(x, y, alpha=a))(name, alpha)
    SAMPLES[name + "_"]["alpha"] = (lambda n, a: lambda x, y: getattr(x.clone(), n)(y, alpha=a))(name + "_", alpha)
for name in ["floor", "ceil", "round", "trunc", "sign", "erf", "sin", "cos"]:
    SAMPLES[name] = {"plain": (lambda n: lambda x, y: getattr(torch, n)(x))(name),
                     "int64": (lambda n: lambda x, y: getattr(torch, n)((x * 4.0).to(torch.int64)))(name),
                     "bfloat16": (lambda n: lambda x, y: getattr(torch, n)(x.to(torch.bfloat16)))(name)}
    SAMPLES[name + "_"] = {"plain": inplace(name + "_")}
SAMPLES["sign"]["bool"] = lambda x, y: torch.sign(x > 0)
for name in ["isnan", "isinf", "isfinite", "logical_not"]:
    SAMPLES[name] = {"plain": (lambda n: lambda x, y: getattr(torch, n)(x))(name),
                     "int64": (lambda n: lambda x, y: getattr(torch, n)(x.to(torch.int64)))(name),
                     "bool": (lambda n: lambda x, y: getattr(torch, n)(x > 0))(name)}


def one_by_one(f):
    """f(a, b) element by element, on PyTorch's scalar loop (C's fmod). Its vectorised loop (Sleef's fmodf)
    returns NaN for a float32 denormal divisor, where C's fmod, and torchless, give the exact remainder."""
    return lambda a, b: torch.stack([f(p, q) for p, q in zip(a.flatten(), b.flatten())]).view(a.shape)


for name in ["fmod", "remainder"]:
    SAMPLES[name] = {"self": (lambda n: lambda x, y: getattr(torch, n)(x, y))(name),
                     "other": (lambda n: lambda x, y: one_by_one(getattr(torch, n))(y, x))(name),
                     "number": (lambda n: lambda x, y: getattr(torch, n)(x, 1.5))(name),
                     "negative_number": (lambda n: lambda x, y: getattr(x, n)(-0.75))(name),
                     "int64": (lambda n: lambda x, y: getattr(torch, n)((x * 4.0).to(torch.int64),
                                                                        (y * -4.0).to(torch.int64)))(name),
                     "int64_zero": (lambda n: lambda x, y: getattr(torch, n)(x.to(torch.int64), y.to(torch.int64)))(name)}
    SAMPLES[name + "_"] = {"self": inplace2(name + "_")}
SAMPLES["div.Tensor_mode"] = {
    "trunc": lambda x, y: torch.div(x, y, rounding_mode="trunc"),
    "floor": lambda x, y: x.div(y, rounding_mode="floor"),
    "none": lambda x, y: torch.div(x, y, rounding_mode=None),
    "number": lambda x, y: torch.div(x, -1.5, rounding_mode="floor"),
    "int64": lambda x, y: torch.div((x * 4.0).to(torch.int64), (y * -4.0).to(torch.int64), rounding_mode="floor")}
SAMPLES["floor_divide"] = {
    "self": lambda x, y: torch.floor_divide(x, y),
    "number": lambda x, y: x.floor_divide(-1.5),
    "int64": lambda x, y: torch.floor_divide((x * 4.0).to(torch.int64), (y * -4.0).to(torch.int64))}
for name in ["maximum", "minimum"]:
    SAMPLES[name] = {"self": (lambda n: lambda x, y: getattr(torch, n)(x, y))(name),
                     "other": (lambda n: lambda x, y: getattr(torch, n)(y, x))(name),
                     "int64": (lambda n: lambda x, y: getattr(torch, n)((x * 4.0).to(torch.int64),
                                                                        (y * -4.0).to(torch.int64)))(name)}
for name in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    SAMPLES[name] = {"int64": (lambda n: lambda x, y: getattr(torch, n)((x * 4.0).to(torch.int64),
                                                                        (y * 4.0).to(torch.int64)))(name),
                     "bool": (lambda n: lambda x, y: getattr(torch, n)(x > 0, y > 1))(name),
                     "number": (lambda n: lambda x, y: getattr((x * 4.0).to(torch.int64), n)(6))(name)}
for name in ["gt", "lt", "ge", "le", "eq", "ne", "logical_and", "logical_or", "logical_xor"]:
    SAMPLES[name] = {"xy": (lambda n: lambda x, y: getattr(torch, n)(x, y))(name),
                     "xx": (lambda n: lambda x, y: getattr(torch, n)(x, x))(name)}

# EmbeddingBag's bags over ROW_INDEX's 16 entries (op_db.cpp's bag_indices / bag_offsets): one is empty.
BAG_INDICES = ROW_INDEX.reshape(-1)
BAG_OFFSETS = torch.tensor([0, 3, 3, 9])


def embedding_bag(weight, mode, per_sample_weights=None, padding_idx=-1, offsets=BAG_OFFSETS, include_last_offset=False):
    return torch.ops.aten._embedding_bag(weight, BAG_INDICES, offsets, False, mode, False, per_sample_weights,
                                         include_last_offset, padding_idx)[0]


def bags_of(y, mode, per_sample_weights=None):
    # requires_grad: ATen's forward-only path skips the bookkeeping the backward reads
    return torch.ops.aten._embedding_bag(y.reshape(8, 4).clone().requires_grad_(), BAG_INDICES, BAG_OFFSETS, False, mode,
                                         False, per_sample_weights, False, -1)


def embedding_bag_backward(x, y, mode, scale_grad_by_freq, weighted):
    psw = y.reshape(-1)[16:] if weighted else None
    _, offset2bag, bag_size, max_indices = bags_of(y, mode, psw)
    return torch.ops.aten._embedding_bag_backward(x.reshape(-1)[:16].reshape(4, 4), BAG_INDICES, BAG_OFFSETS,
                                                  offset2bag, bag_size, max_indices, 8, scale_grad_by_freq, mode,
                                                  False, psw, -1)


# the quantization rows (op_db_quantized.cpp): x quantized per tensor or per channel along dim 1
CHANNEL_SCALES, CHANNEL_ZERO_POINTS = torch.tensor([0.1, 0.25], dtype=torch.float64), torch.tensor([-3, 5])
SAMPLES.update({
    "quantize_per_tensor": {
        "quint8": lambda x, y: torch.quantize_per_tensor(x, 0.1, 10, torch.quint8).int_repr(),
        "qint8": lambda x, y: torch.quantize_per_tensor(x, 0.3, -4, torch.qint8).int_repr(),
        "qint32": lambda x, y: torch.quantize_per_tensor(x, 1e-3, 7, torch.qint32).int_repr()},
    "quantize_per_tensor.tensor_qparams": {
        "quint8": lambda x, y: torch.quantize_per_tensor(x, torch.tensor(0.1), torch.tensor(10), torch.quint8).int_repr()},
    "quantize_per_channel": {
        "qint8": lambda x, y: torch.quantize_per_channel(x, CHANNEL_SCALES, CHANNEL_ZERO_POINTS, 1, torch.qint8).int_repr()},
    "dequantize": {
        "per_tensor": lambda x, y: torch.quantize_per_tensor(x, 0.1, 10, torch.quint8).dequantize(),
        "per_channel": lambda x, y: torch.quantize_per_channel(x, CHANNEL_SCALES, CHANNEL_ZERO_POINTS, 1,
                                                               torch.qint8).dequantize(),
        "float": lambda x, y: torch.dequantize(x)},
    "int_repr": {"qint8": lambda x, y: torch.int_repr(torch.quantize_per_tensor(x, 0.25, 0, torch.qint8))},
    "_make_per_tensor_quantized_tensor": {
        "quint8": lambda x, y: torch._make_per_tensor_quantized_tensor(x.to(torch.uint8), 0.5, 3).dequantize()},
    "_make_per_channel_quantized_tensor": {
        "qint8": lambda x, y: torch._make_per_channel_quantized_tensor(x.to(torch.int8), CHANNEL_SCALES,
                                                                       CHANNEL_ZERO_POINTS, 1).dequantize()},
})


# the int8 kernels (op_db_quantized.cpp), on the onednn engine
torch.backends.quantized.engine = "onednn"
Q = torch.ops.quantized
WEIGHT_SCALES = torch.tensor([0.005, 0.0075, 0.01], dtype=torch.float64)


def qx(x):
    return torch.quantize_per_tensor(x, 0.1, 128, torch.quint8)


def qy(y):
    return torch.quantize_per_tensor(y, 0.05, 60, torch.quint8)


def qweight(w):
    return torch.quantize_per_channel(w, WEIGHT_SCALES, torch.zeros(3, dtype=torch.long), 0, torch.qint8)


def packed_conv():
    return Q.conv2d_prepack(qweight(W), B, [1, 1], [1, 1], [1, 1], 1)


def packed_linear():
    return Q.linear_prepack(qweight(W.flatten()[:12].reshape(3, 4)), B)


def conv_add(x, relu):
    q, w = qx(x), packed_conv()
    add = Q.add_relu if relu else Q.add
    return add(Q.conv2d(q, w, 0.2, 100), Q.conv2d(q, w, 0.3, 50), 0.25, 90).int_repr()


SAMPLES.update({
    "quantized_conv2d_prepack": {"conv": lambda x, y: Q.conv2d(qx(x), packed_conv(), 0.2, 100).int_repr()},
    "quantized_conv2d_unpack": {"weight": lambda x, y: Q.conv2d_unpack(Q.conv2d_prepack(
        torch.quantize_per_tensor(x.reshape(2, 2, 2, 4), 0.1, 0, torch.qint8), None, [1, 1], [0, 0], [1, 1], 1))[0].int_repr()},
    "quantized_conv2d": {"padding": lambda x, y: Q.conv2d(qx(x), packed_conv(), 0.2, 100).int_repr()},
    "quantized_conv2d_relu": {"padding": lambda x, y: Q.conv2d_relu(qx(x), packed_conv(), 0.2, 100).int_repr()},
    "quantized_conv2d_add": {"residual": lambda x, y: conv_add(x, False)},
    "quantized_conv2d_add_relu": {"residual": lambda x, y: conv_add(x, True)},
    "quantized_linear_prepack": {"linear": lambda x, y: Q.linear(qx(x), packed_linear(), 0.2, 100).int_repr()},
    "quantized_linear_unpack": {"weight": lambda x, y: Q.linear_unpack(Q.linear_prepack(
        torch.quantize_per_tensor(x.reshape(4, 8), 0.1, 0, torch.qint8)))[0].int_repr()},
    "quantized_linear": {"last_dim": lambda x, y: Q.linear(qx(x), packed_linear(), 0.2, 100).int_repr()},
    "quantized_linear_relu": {"last_dim": lambda x, y: Q.linear_relu(qx(x), packed_linear(), 0.2, 100).int_repr()},
    "quantized_add": {"quint8": lambda x, y: Q.add(qx(x), qy(y), 0.08, 64).int_repr()},
    "quantized_add_relu": {"quint8": lambda x, y: Q.add_relu(qx(x), qy(y), 0.08, 64).int_repr()},
    "quantized_add.tensor_qparams": {
        "quint8": lambda x, y: Q.add(qx(x), qy(y), torch.tensor(0.08), torch.tensor(64)).int_repr()},
    "quantized_add_relu.tensor_qparams": {
        "quint8": lambda x, y: Q.add_relu(qx(x), qy(y), torch.tensor(0.08), torch.tensor(64)).int_repr()},
    "quantized_add.Scalar": {"shift": lambda x, y: Q.add(qx(x), 1.0).int_repr()},
    "quantized_add_relu.Scalar": {"shift": lambda x, y: Q.add_relu(qx(x), 1.0).int_repr()},
    "quantized_mul": {"quint8": lambda x, y: Q.mul(qx(x), qy(y), 0.08, 64).int_repr()},
    "quantized_mul_relu": {"quint8": lambda x, y: Q.mul_relu(qx(x), qy(y), 0.08, 64).int_repr()},
    "quantized_mul.tensor_qparams": {
        "quint8": lambda x, y: Q.mul(qx(x), qy(y), torch.tensor(0.08), torch.tensor(64)).int_repr()},
    "quantized_mul_relu.tensor_qparams": {
        "quint8": lambda x, y: Q.mul_relu(qx(x), qy(y), torch.tensor(0.08), torch.tensor(64)).int_repr()},
    "quantized_mul.Scalar": {"negative": lambda x, y: Q.mul(qx(x), -1.5).int_repr()},
    "quantized_mul_relu.Scalar": {"negative": lambda x, y: Q.mul_relu(qx(x), -1.5).int_repr()},
    "quantized_hardswish": {"quint8": lambda x, y: Q.hardswish(qx(x), 0.05, 30).int_repr()},
    "quantized_batch_norm2d": {"eval": lambda x, y: Q.batch_norm2d(qx(x), *BN, 1e-5, 0.2, 100).int_repr()},
    "quantized_batch_norm2d_relu": {"eval": lambda x, y: Q.batch_norm2d_relu(qx(x), *BN, 1e-5, 0.2, 100).int_repr()},
    "quantized_max_pool2d": {"stride": lambda x, y: torch.max_pool2d(qx(x), [2, 2], [2, 2]).int_repr()},
    "quantized_adaptive_avg_pool2d": {"2x3": lambda x, y: F.adaptive_avg_pool2d(qx(x), [2, 3]).int_repr()},
    "quantized_cat": {"requantized": lambda x, y: Q.cat([qx(x), qy(y)], 1, 0.07, 100).int_repr()},
})


DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64", torch.bfloat16: "bfloat16",
               torch.bool: "bool", torch.int64: "int64", torch.int32: "int32", torch.uint8: "uint8", torch.int8: "int8"}


def encode(t, shape_only):
    if isinstance(t, bool):
        return {"dtype": "bool", "shape": [], "values": [repr(t)]}
    out = {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape)}
    if not shape_only:
        out["values"] = [repr(v) for v in t.flatten().double().tolist()] if t.is_floating_point() else \
            [repr(v) for v in t.flatten().tolist()]
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    inputs = {name: [repr(v) for v in make_x(s).flatten().double().tolist()] for name, s in SPECIALS.items()}
    results = {}
    for op, samples in sorted(SAMPLES.items()):
        for sample, fn in samples.items():
            for special, s in SPECIALS.items():
                x = make_x(s)
                try:
                    r = fn(x, Y.clone())
                except RuntimeError as e:
                    results.setdefault(op, {}).setdefault(sample, {})[special] = {"error": str(e).splitlines()[0]}
                    continue
                outs = list(r) if isinstance(r, tuple) else [r]
                shape_only = sample == "shape"
                results.setdefault(op, {}).setdefault(sample, {})[special] = {"outputs": [encode(o, shape_only) for o in outs]}
    data = {"generator": "tests/ops/gen_special_values.py", "torch": torch.__version__, "special_at": SPECIAL_AT,
            "x": inputs, "y": [repr(v) for v in Y.flatten().double().tolist()], "results": results}
    os.makedirs(os.path.join(here, "data"), exist_ok=True)
    with open(os.path.join(here, "data", "special_values.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
