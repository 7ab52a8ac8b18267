#!/usr/bin/python3
"""tests/nn/gen_conv_pool_cases.py — PyTorch 1.13's values and gradients for the 1-d and transposed convolutions
(F.conv1d, F.conv_transpose1d, F.conv_transpose2d, nn.Conv1d's padding modes, ConvTranspose2d's output_size), F.conv2d's
padding strings and nn.Conv2d's padding modes, and the
1-d pools (F.max_pool1d, F.avg_pool1d, F.adaptive_avg_pool1d, F.adaptive_max_pool1d), and the layers' default
initialisation for a seed.

Writes tests/ops/data/conv_pool_cases.json, read by tests/nn/test_conv_pool.cpp: each case names the call ("conv1d",
"conv_transpose2d", "max_pool1d", "init_Conv1d", ...), its inputs (input, conv_weight, bias; out_weight weights the
output in the gradient), its arguments, PyTorch's outputs and torch.autograd's gradients of (output * out_weight).sum()
for each input. Inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/nn/gen_conv_pool_cases.py
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from torch_cases import enc, write_cases  # noqa: E402

CASES = []


def leaf(shape, dtype):
    return torch.randn(shape, dtype=torch.float64).to(dtype).requires_grad_()


def case(name, op, tensors, args, fn, dtype):
    """tensors: name -> shape (None: the argument is None); fn(**tensors) -> output or tuple of outputs."""
    inputs = {k: (leaf(s, dtype) if s is not None else None) for k, s in tensors.items()}
    out = fn(**inputs)
    outs = list(out) if isinstance(out, tuple) else [out]
    weight = torch.randn(outs[0].shape, dtype=torch.float64).to(dtype)
    (outs[0] * weight).sum().backward()
    CASES.append({"name": name, "op": op, "inputs": {k: enc(v.detach() if v is not None else None)
                                                     for k, v in inputs.items()} | {"out_weight": enc(weight)},
                  "args": args, "outputs": [enc(o.detach()) for o in outs],
                  "grads": {k: enc(v.grad) for k, v in inputs.items() if v is not None}})


def with_parameters(layer, weight, bias):
    """`layer` with its weight and bias replaced by the case's leaves (so their gradients are the case's)."""
    del layer.weight, layer.bias
    layer.weight, layer.bias = weight, bias
    return layer


def conv_cases():
    for shape, c_out, k, stride, padding, dilation, groups, bias, dtype in [
            ((2, 4, 11), 6, 3, 1, 0, 1, 1, True, torch.float64), ((2, 4, 11), 6, 3, 2, 1, 1, 1, True, torch.float64),
            ((1, 4, 13), 4, 4, 3, 2, 2, 2, False, torch.float64), ((4, 10), 3, 5, 1, "same", 1, 1, True, torch.float64),
            ((2, 4, 9), 6, 4, 1, "same", 1, 2, True, torch.float64), ((2, 4, 9), 2, 3, 1, "valid", 1, 2, True, torch.float64),
            ((2, 4, 11), 6, 3, 2, 1, 1, 1, True, torch.float32), ((3, 8, 17), 8, 3, 1, 1, 1, 8, True, torch.float32)]:
        c_in = shape[-2]
        pad = {"str": padding} if isinstance(padding, str) else padding
        args = {"stride": stride, "padding": pad, "dilation": dilation, "groups": groups}
        case(f"conv1d {list(shape)} k={k} s={stride} p={padding} d={dilation} g={groups} bias={bias} {dtype}", "conv1d",
             {"input": shape, "conv_weight": (c_out, c_in // groups, k), "bias": (c_out,) if bias else None}, args,
             lambda input, conv_weight, bias, a=args, p=padding: F.conv1d(input, conv_weight, bias, a["stride"], p,
                                                                           a["dilation"], a["groups"]), dtype)
    for mode, padding, k, dilation in [("reflect", 2, 3, 1), ("replicate", 1, 3, 2), ("circular", 3, 4, 1),
                                       ("circular", "same", 4, 1), ("reflect", "same", 3, 2), ("zeros", "same", 4, 1)]:
        pad = {"str": padding} if isinstance(padding, str) else padding
        args = {"padding": pad, "padding_mode": {"str": mode}, "kernel_size": k, "dilation": dilation}

        def module(input, conv_weight, bias, m=mode, p=padding, k=k, d=dilation):
            return with_parameters(torch.nn.Conv1d(4, 6, k, padding=p, dilation=d, padding_mode=m), conv_weight,
                                   bias)(input)
        case(f"Conv1d padding={padding} padding_mode={mode} k={k} d={dilation}", "Conv1d", {
            "input": (2, 4, 9), "conv_weight": (6, 4, k), "bias": (6,)}, args, module, torch.float64)


def transposed_cases():
    for shape, c_out, k, stride, padding, output_padding, groups, dilation, bias, dtype in [
            ((2, 4, 5, 6), 6, (3, 3), (2, 2), (1, 1), (1, 1), 1, (1, 1), True, torch.float64),
            ((1, 4, 5, 5), 4, (3, 2), (3, 1), (0, 1), (2, 0), 2, (1, 2), False, torch.float64),
            ((4, 3, 4), 2, (2, 2), (2, 2), (0, 0), (0, 0), 1, (1, 1), True, torch.float64),
            ((2, 4, 5, 6), 6, (3, 3), (2, 2), (1, 1), (1, 1), 1, (1, 1), True, torch.float32),
            ((2, 4, 5, 6), 4, (3, 3), (1, 1), (0, 0), (1, 1), 4, (2, 2), True, torch.float32)]:
        c_in = shape[-3]
        args = {"stride": list(stride), "padding": list(padding), "output_padding": list(output_padding),
                "groups": groups, "dilation": list(dilation)}
        case(f"conv_transpose2d {list(shape)} k={k} s={stride} p={padding} op={output_padding} g={groups} d={dilation} "
             f"bias={bias} {dtype}", "conv_transpose2d",
             {"input": shape, "conv_weight": (c_in, c_out // groups) + k, "bias": (c_out,) if bias else None}, args,
             lambda input, conv_weight, bias, a=args: F.conv_transpose2d(
                 input, conv_weight, bias, a["stride"], a["padding"], a["output_padding"], a["groups"], a["dilation"]),
             dtype)
    for shape, c_out, k, stride, padding, output_padding, groups, dilation, bias, dtype in [
            ((2, 4, 7), 6, 3, 2, 1, 1, 1, 1, True, torch.float64), ((1, 4, 6), 2, 4, 3, 2, 2, 2, 2, False, torch.float64),
            ((4, 5), 3, 2, 1, 0, 0, 1, 1, True, torch.float32)]:
        c_in = shape[-2]
        args = {"stride": stride, "padding": padding, "output_padding": output_padding, "groups": groups,
                "dilation": dilation}
        case(f"conv_transpose1d {list(shape)} k={k} s={stride} p={padding} op={output_padding} g={groups} d={dilation} "
             f"bias={bias} {dtype}", "conv_transpose1d",
             {"input": shape, "conv_weight": (c_in, c_out // groups, k), "bias": (c_out,) if bias else None}, args,
             lambda input, conv_weight, bias, a=args: F.conv_transpose1d(
                 input, conv_weight, bias, a["stride"], a["padding"], a["output_padding"], a["groups"], a["dilation"]),
             dtype)
    for output_size in [[9, 9], [10, 10], [1, 3, 10, 9]]:
        def module(input, conv_weight, bias, size=output_size):
            up = with_parameters(torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1), conv_weight, bias)
            return up(input, output_size=size)
        case(f"ConvTranspose2d output_size={output_size}", "ConvTranspose2d",
             {"input": (1, 2, 5, 5), "conv_weight": (2, 3, 3, 3), "bias": (3,)}, {"output_size": output_size}, module,
             torch.float64)


def conv2d_padding_cases():
    """F.conv2d's padding="same"/"valid" (odd totals pad the input first) and nn.Conv2d's padding modes."""
    for shape, c_out, k, dilation, padding, groups in [((2, 4, 7, 9), 6, (3, 3), (1, 1), "same", 1),
                                                       ((1, 4, 8, 7), 4, (4, 2), (1, 3), "same", 2),
                                                       ((4, 6, 5), 3, (2, 3), (2, 1), "same", 1),
                                                       ((2, 4, 7, 9), 6, (3, 2), (1, 1), "valid", 1)]:
        args = {"padding": {"str": padding}, "dilation": list(dilation), "groups": groups}
        case(f"conv2d {list(shape)} k={k} d={dilation} p={padding} g={groups}", "conv2d",
             {"input": shape, "conv_weight": (c_out, shape[-3] // groups) + k, "bias": (c_out,)}, args,
             lambda input, conv_weight, bias, a=args, p=padding: F.conv2d(input, conv_weight, bias, 1, p, a["dilation"],
                                                                           a["groups"]), torch.float64)
    for mode, padding, k, dilation in [("reflect", (2, 1), (3, 3), (1, 1)), ("replicate", (1, 1), (3, 2), (2, 1)),
                                       ("circular", (3, 0), (4, 1), (1, 1)), ("circular", "same", (4, 3), (1, 1)),
                                       ("reflect", "same", (3, 3), (2, 1)), ("zeros", "same", (2, 4), (1, 1))]:
        pad = {"str": padding} if isinstance(padding, str) else list(padding)
        args = {"padding": pad, "padding_mode": {"str": mode}, "kernel_size": list(k), "dilation": list(dilation)}

        def module(input, conv_weight, bias, m=mode, p=padding, k=k, d=dilation):
            return with_parameters(torch.nn.Conv2d(4, 6, k, padding=p, dilation=d, padding_mode=m), conv_weight,
                                   bias)(input)
        case(f"Conv2d padding={padding} padding_mode={mode} k={k} d={dilation}", "Conv2d", {
            "input": (2, 4, 8, 7), "conv_weight": (6, 4) + k, "bias": (6,)}, args, module, torch.float64)


def pool_cases():
    for shape, k, s, p, d, ceil, dtype in [((2, 3, 11), 2, None, 0, 1, False, torch.float64),
                                           ((2, 3, 11), 3, 2, 1, 1, True, torch.float64),
                                           ((3, 12), 3, 2, 0, 2, True, torch.float64),
                                           ((2, 3, 11), 4, 3, 2, 1, False, torch.float32)]:
        args = {"kernel_size": k, "stride": s, "padding": p, "dilation": d, "ceil_mode": ceil}
        case(f"max_pool1d {list(shape)} k={k} s={s} p={p} d={d} ceil={ceil} {dtype}", "max_pool1d", {"input": shape},
             args, lambda input, a=args: F.max_pool1d(input, a["kernel_size"], a["stride"], a["padding"], a["dilation"],
                                                      a["ceil_mode"], return_indices=True), dtype)
    for shape, k, s, p, ceil, include, dtype in [((2, 3, 11), 2, None, 0, False, True, torch.float64),
                                                 ((2, 3, 11), 3, 2, 1, True, True, torch.float64),
                                                 ((3, 12), 3, 2, 1, True, False, torch.float64),
                                                 ((2, 3, 11), 4, 3, 2, False, False, torch.float32)]:
        args = {"kernel_size": k, "stride": s, "padding": p, "ceil_mode": ceil, "count_include_pad": include}
        case(f"avg_pool1d {list(shape)} k={k} s={s} p={p} ceil={ceil} include_pad={include} {dtype}", "avg_pool1d",
             {"input": shape}, args,
             lambda input, a=args: F.avg_pool1d(input, a["kernel_size"], a["stride"], a["padding"], a["ceil_mode"],
                                                a["count_include_pad"]), dtype)
    for shape, size, dtype in [((2, 3, 11), 4, torch.float64), ((3, 7), 7, torch.float64), ((2, 3, 5), 8, torch.float64),
                               ((2, 3, 11), 3, torch.float32)]:
        case(f"adaptive_avg_pool1d {list(shape)} {size} {dtype}", "adaptive_avg_pool1d", {"input": shape},
             {"output_size": size}, lambda input, s=size: F.adaptive_avg_pool1d(input, s), dtype)
        case(f"adaptive_max_pool1d {list(shape)} {size} {dtype}", "adaptive_max_pool1d", {"input": shape},
             {"output_size": size}, lambda input, s=size: F.adaptive_max_pool1d(input, s, return_indices=True), dtype)


def init_cases():
    """The layers' parameters right after construction with torch.manual_seed(seed)."""
    for seed, layer, make in [(0, "Conv1d", lambda: torch.nn.Conv1d(4, 6, 3)),
                              (1, "Conv1d", lambda: torch.nn.Conv1d(4, 8, 5, groups=2)),
                              (0, "ConvTranspose1d", lambda: torch.nn.ConvTranspose1d(4, 6, 3, groups=2)),
                              (0, "ConvTranspose2d", lambda: torch.nn.ConvTranspose2d(4, 6, 3)),
                              (2 ** 31 - 1, "ConvTranspose2d", lambda: torch.nn.ConvTranspose2d(6, 4, (2, 3), groups=2))]:
        torch.manual_seed(seed)
        m = make()
        args = {"seed": seed, "in_channels": m.in_channels, "out_channels": m.out_channels,
                "kernel_size": list(m.kernel_size), "groups": m.groups}
        CASES.append({"name": f"init {m!r} seed={seed}", "op": f"init_{layer}", "inputs": {}, "args": args,
                      "outputs": [enc(m.weight.detach()), enc(m.bias.detach())]})


class Sequence(torch.nn.Module):
    """test_conv_pool.cpp's Sequence: every new layer reached as a leaf."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(4, 8, 3, padding=1)
        self.pool = torch.nn.MaxPool1d(2)
        self.avg = torch.nn.AvgPool1d(2)
        self.up = torch.nn.ConvTranspose1d(8, 4, 2, stride=2)
        self.adaptive = torch.nn.AdaptiveAvgPool1d(3)
        self.amax = torch.nn.AdaptiveMaxPool1d(3)
        self.deconv = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1)

    def forward(self, x):
        y = self.adaptive(self.up(self.avg(self.pool(self.conv(x))))) + self.amax(x)
        return self.deconv(y.unsqueeze(2))


def print_texts():
    """The texts test_conv_pool.cpp expects: reprs, state_dict keys, symbolic_trace's code, error messages."""
    nn = torch.nn
    for m in [nn.ConvTranspose2d(4, 8, 3, stride=2, output_padding=1), nn.Conv1d(4, 8, 3), nn.MaxPool1d(2),
              nn.Conv1d(4, 8, 3, 2, 1, 2, 2, False, "reflect"), nn.Conv1d(4, 8, 3, padding="same"),
              nn.ConvTranspose1d(4, 8, 3, 2, 1, 1, 2, False, 2), nn.ConvTranspose2d(2, 3, (2, 3)),
              nn.MaxPool1d(3, 2, 1, 2, ceil_mode=True), nn.AvgPool1d(3), nn.AvgPool1d(3, 2, 1, True),
              nn.AdaptiveAvgPool1d(5), nn.AdaptiveMaxPool1d(5), nn.Conv2d(4, 8, 3, padding="same"),
              nn.Conv2d(4, 8, (3, 2), padding=(1, 2), padding_mode="circular", bias=False), nn.Conv2d(4, 8, 3, padding="valid")]:
        print(repr(m))
    seq = nn.Sequential(nn.Conv1d(4, 8, 3), nn.MaxPool1d(2), nn.ConvTranspose1d(8, 4, 2, bias=False))
    print(list(seq.state_dict().keys()))
    print(torch.fx.symbolic_trace(Sequence()).code)
    x = torch.randn(2, 4, 9, requires_grad=True)
    for f in [lambda: F.conv1d(x, torch.randn(6, 4, 3)), lambda: F.conv_transpose1d(x, torch.randn(4, 6, 3)),
              lambda: F.max_pool1d(x, 2), lambda: F.avg_pool1d(x, 2), lambda: F.adaptive_max_pool1d(x, 2),
              lambda: F.adaptive_avg_pool1d(x, 2)]:
        print(f().grad_fn.name())
    up = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    for f in [lambda: up(torch.randn(1, 2, 5, 5), output_size=[11, 9]), lambda: up(torch.randn(1, 2, 5, 5), output_size=[9]),
              lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=2)(torch.randn(1, 2, 5, 5)),
              lambda: nn.Conv1d(4, 6, 3)(torch.randn(1, 4, 3, 5)), lambda: F.max_pool1d(torch.randn(1, 2, 8), 2, 2, 2),
              lambda: nn.Conv1d(4, 6, 3, stride=2, padding="same"), lambda: nn.Conv1d(4, 6, 3, padding="full"),
              lambda: nn.Conv1d(4, 6, 3, padding_mode="mirror"), lambda: nn.Conv2d(4, 6, 3, stride=2, padding="same"),
              lambda: nn.Conv2d(4, 6, 3, padding="full"), lambda: nn.Conv2d(4, 6, 3, padding_mode="mirror"),
              lambda: F.conv2d(torch.randn(1, 4, 5, 5), torch.randn(6, 4, 3, 3), None, 2, "same")]:
        try:
            f()
        except Exception as e:  # noqa: BLE001  the message is what is printed
            print(type(e).__name__, str(e).splitlines()[0])


def main():
    torch.manual_seed(0)
    conv_cases()
    transposed_cases()
    pool_cases()
    conv2d_padding_cases()
    init_cases()
    print_texts()
    here = os.path.dirname(os.path.abspath(__file__))
    write_cases(os.path.join(here, "..", "ops", "data", "conv_pool_cases.json"), "tests/nn/gen_conv_pool_cases.py", CASES)


if __name__ == "__main__":
    main()
