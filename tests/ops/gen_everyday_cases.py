#!/usr/bin/python3
"""tests/ops/gen_everyday_cases.py — PyTorch 1.13's values, gradients and error messages for the everyday ops of
issue #32: argmin, amax / amin, prod, logsumexp, sin / cos, maximum / minimum, div with a rounding mode,
floor_divide and the bitwise ops.

Writes tests/ops/data/everyday_cases.json (the layout of sort_cases.json), read by tests/ops/test_everyday.cpp:
each case names an op, its inputs (self, other), its non-tensor arguments (a number second operand is "int" or
"float", kept apart so its dtype promotes as Python's does) and what PyTorch returns. An op "grad:<op>" gives
instead torch.autograd's gradients of sum(<op>(...) * weight) for self (and other); an op "error:<op>" gives
the message PyTorch raises (its first line, as the string argument "message").
Inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/ops/gen_everyday_cases.py
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from torch_cases import enc, write_cases  # noqa: E402

CASES = []
NAN, INF = float("nan"), float("inf")


def args_of(args):
    out = {}
    for k, v in args.items():
        if isinstance(v, str) and k != "dtype":
            v = {"str": v}
        out[k] = repr(v) if isinstance(v, float) else v
    return out


def call(op, self, other, args):
    """PyTorch's call for a case: the op's torch function with the case's arguments."""
    number = args.get("int", args.get("float"))
    second = other if other is not None else number
    kw = {k: v for k, v in args.items() if k not in ("int", "float")}
    if op in ("maximum", "minimum", "floor_divide", "bitwise_and", "bitwise_or", "bitwise_xor"):
        return getattr(torch, op)(self, second)
    if op == "div":
        return torch.div(self, second, rounding_mode=kw["rounding_mode"])
    if op in ("amax", "amin", "logsumexp"):
        return getattr(torch, op)(self, kw["dim"], kw.get("keepdim", False))
    if op in ("argmin", "prod"):
        dtype = {"float64": torch.float64}.get(kw.get("dtype"))
        extra = {"dtype": dtype} if op == "prod" and dtype else {}
        if "dim" in kw:
            return getattr(torch, op)(self, kw["dim"], kw.get("keepdim", False), **extra)
        return getattr(torch, op)(self, **extra)
    return getattr(torch, op)(self)


def case(name, op, self, other=None, **args):
    inputs = {"self": enc(self)}
    if other is not None:
        inputs["other"] = enc(other)
    CASES.append({"name": name, "op": op, "inputs": inputs, "args": args_of(args),
                  "outputs": [enc(call(op, self, other, args))]})


def grad_case(name, op, self, other=None, **args):
    """torch.autograd's gradients of sum(op(self, other) * w), w fixed by the seed."""
    x = self.clone().requires_grad_(True)
    y = other.clone().requires_grad_(True) if other is not None and other.is_floating_point() else other
    out = call(op, x, y, args)
    w = torch.randn(out.shape, dtype=out.dtype)
    (out * w).sum().backward()
    inputs = {"self": enc(self), "weight": enc(w)}
    grads = {"self": enc(x.grad)}
    if y is not None:
        inputs["other"] = enc(other)
        grads["other"] = enc(y.grad)
    CASES.append({"name": name, "op": "grad:" + op, "inputs": inputs, "args": args_of(args),
                  "outputs": [enc(out.detach())], "grads": grads})


def error_case(name, op, self, other=None, **args):
    """The first line of the message PyTorch raises for a misuse."""
    try:
        if op.endswith("_"):
            getattr(self, op)()
        else:
            call(op, self, other, args)
    except (RuntimeError, IndexError) as e:
        inputs = {"self": enc(self)}
        if other is not None:
            inputs["other"] = enc(other)
        CASES.append({"name": name, "op": "error:" + op, "inputs": inputs, "outputs": [],
                      "args": args_of(dict(args, message=str(e).splitlines()[0]))})
        return
    raise AssertionError(f"{name}: PyTorch accepted it")


def with_specials(t, at=(1, 4, 7)):
    flat = t.flatten().clone()
    for i, v in zip(at, [NAN, INF, -INF]):
        if i < flat.numel():
            flat[i] = v
    return flat.view(t.shape)


def reduction_cases():
    for dtype in [torch.float32, torch.float64]:
        d = "f32" if dtype == torch.float32 else "f64"
        ties = torch.randint(0, 3, (4, 5, 6)).to(dtype)
        special = with_specials(torch.randn(3, 4, 5, dtype=dtype))
        for dim in [0, 1, -1]:
            for keep in [False, True]:
                case(f"argmin {d} ties dim {dim} keepdim {keep}", "argmin", ties, dim=dim, keepdim=keep)
                case(f"argmin {d} specials dim {dim} keepdim {keep}", "argmin", special, dim=dim, keepdim=keep)
        case(f"argmin {d} all", "argmin", ties)
        case(f"argmin {d} nan all", "argmin", special)
        for op in ["amax", "amin"]:
            for dims in [[0], [-1], [1, 2], [0, 2], []]:
                for keep in [False, True]:
                    case(f"{op} {d} dims {dims} keepdim {keep}", op, special, dim=dims, keepdim=keep)
            case(f"{op} {d} transposed", op, special.transpose(0, 2), dim=[1])
            for dims in [[1], [0, 2], []]:
                grad_case(f"{op} {d} ties dims {dims}", op, ties, dim=dims, keepdim=False)
            grad_case(f"{op} {d} ties dims [2] kept", op, ties, dim=[2], keepdim=True)
        small = torch.rand(3, 4, 5, dtype=dtype) + 0.5
        zeros = small.clone()
        zeros[0, 1, 2] = 0
        zeros[1, :, 3] = 0
        case(f"prod {d} all", "prod", small)
        case(f"prod {d} specials", "prod", special)
        for dim in [0, 2, -2]:
            for keep in [False, True]:
                case(f"prod {d} dim {dim} keepdim {keep}", "prod", special, dim=dim, keepdim=keep)
                grad_case(f"prod {d} zeros dim {dim} keepdim {keep}", "prod", zeros, dim=dim, keepdim=keep)
        grad_case(f"prod {d} all", "prod", small)
        one_zero = small.clone()
        one_zero[2, 3, 1] = 0
        grad_case(f"prod {d} one zero", "prod", one_zero)
        grad_case(f"prod {d} two zeros", "prod", zeros)
        rows = torch.randn(4, 6, dtype=dtype) * 10
        rows[0] = -INF
        rows[1, 2] = INF
        rows[2, 3] = NAN
        rows[3, 1] = -INF
        for dims in [[1], [0], [0, 1], [-1]]:
            for keep in [False, True]:
                case(f"logsumexp {d} inf rows dims {dims} keepdim {keep}", "logsumexp", rows, dim=dims, keepdim=keep)
        big = torch.randn(3, 5, 7, dtype=dtype) * 30
        case(f"logsumexp {d} large dims [2]", "logsumexp", big, dim=[2])
        for dims in [[2], [0, 1]]:
            grad_case(f"logsumexp {d} dims {dims}", "logsumexp", big / 30, dim=dims, keepdim=False)
        grad_case(f"logsumexp {d} kept", "logsumexp", big / 30, dim=[1], keepdim=True)
    ints = torch.randint(-5, 6, (4, 5))
    case("argmin int64 dim 1", "argmin", ints, dim=1)
    case("amax int64 dims [0]", "amax", ints, dim=[0])
    case("amin int32 dims [1]", "amin", ints.int(), dim=[1], keepdim=True)
    case("amax bool dims [1]", "amax", ints > 0, dim=[1])
    case("prod int64 all", "prod", ints)
    case("prod int64 dim 0", "prod", ints, dim=0)
    case("prod int32 dim 1", "prod", ints.int(), dim=1)
    case("prod bool all", "prod", ints > -4)
    case("prod float32 as float64", "prod", torch.rand(6, 7) + 0.5, dtype="float64")
    case("prod int64 as float64 dim 1", "prod", ints, dim=1, dtype="float64")
    case("logsumexp int64 dims [1]", "logsumexp", ints, dim=[1])
    case("logsumexp empty dim", "logsumexp", torch.zeros(0, 3), dim=[0])
    case("prod empty dim", "prod", torch.zeros(0, 3), dim=0)


def pointwise_cases():
    for dtype in [torch.float32, torch.float64]:
        d = "f32" if dtype == torch.float32 else "f64"
        x = with_specials(torch.randn(5, 6, dtype=dtype) * 4)
        for op in ["sin", "cos"]:
            case(f"{op} {d}", op, x)
            case(f"{op} {d} large", op, torch.linspace(-1e4, 1e4, 101, dtype=dtype))
            grad_case(f"{op} {d}", op, torch.randn(4, 5, dtype=dtype))
        a = with_specials(torch.randint(-3, 4, (4, 6)).to(dtype), at=(2, 9, 13))
        b = with_specials(torch.randint(-3, 4, (6,)).to(dtype), at=(5,))
        for op in ["maximum", "minimum"]:
            case(f"{op} {d} broadcast", op, a, b)
            case(f"{op} {d} broadcast swapped", op, b, a)
            ties_a = torch.randint(-2, 3, (3, 4)).to(dtype)
            ties_b = torch.randint(-2, 3, (3, 1)).to(dtype)
            grad_case(f"{op} {d} ties", op, ties_a, torch.randint(-2, 3, (3, 4)).to(dtype))
            grad_case(f"{op} {d} ties broadcast", op, ties_a, ties_b)
        num = torch.randn(5, 7, dtype=dtype) * 5
        num.view(-1)[:6] = torch.tensor([7.0, -7.0, 7.0, -7.0, 0.0, -0.0], dtype=dtype)
        den = torch.randn(5, 7, dtype=dtype)
        den.view(-1)[:6] = torch.tensor([2.0, 2.0, -2.0, -2.0, -3.0, 3.0], dtype=dtype)
        den[4, 2:5] = torch.tensor([0.0, -0.0, 0.0], dtype=dtype)
        num[4, 4] = 0.0
        for mode in ["trunc", "floor"]:
            case(f"div {d} {mode}", "div", num, den, rounding_mode=mode)
            case(f"div {d} {mode} by number", "div", num, None, rounding_mode=mode, float=-1.5)
            grad_case(f"div {d} {mode}", "div", num, den.abs() + 0.5, rounding_mode=mode)
        case(f"floor_divide {d}", "floor_divide", num, den)
        case(f"floor_divide {d} by int", "floor_divide", num, None, int=2)
        grad_case(f"div {d} none", "div", num, den.abs() + 0.5, rounding_mode=None)
    p = torch.randint(-20, 21, (4, 5))
    q = torch.randint(1, 6, (5,)) * torch.tensor([1, -1, 1, -1, 1])
    for mode in ["trunc", "floor"]:
        case(f"div int64 {mode}", "div", p, q, rounding_mode=mode)
        case(f"div int32 {mode} by int", "div", p.int(), None, rounding_mode=mode, int=-3)
        case(f"div int64 {mode} by float", "div", p, None, rounding_mode=mode, float=2.5)
    case("div int64 none", "div", p, q, rounding_mode=None)
    case("floor_divide int64", "floor_divide", p, q)
    case("floor_divide int64 by float", "floor_divide", p, None, float=-2.5)
    case("floor_divide int32 int64", "floor_divide", p.int(), q)
    case("floor_divide int64 float32", "floor_divide", p, torch.tensor([2.5, -1.5, 4.0, -0.5, 3.0]))
    case("maximum int64 float32", "maximum", p, torch.randn(5))
    case("minimum int32 int64", "minimum", p.int(), q)
    case("maximum bool", "maximum", p > 0, q > 0)
    case("minimum bool int64", "minimum", p > 0, q)
    for op in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
        case(f"{op} int64 broadcast", op, p, q)
        case(f"{op} int32", op, p.int(), (p * 3).int())
        case(f"{op} int32 int64", op, p.int(), q)
        case(f"{op} bool", op, p > 0, (p % 3) == 0)
        case(f"{op} int64 number", op, p, None, int=6)
        case(f"{op} bool number", op, p > 0, None, int=1)


def block_cases():
    """Inputs of several 256-element blocks mixing the vectorised kernels' range with what they leave to <cmath>
    and the scalar formula (sin beyond 2^20, quotients from 2^23 up, zero and infinite divisors), and reductions
    long enough for their vector lanes (rows) and tiles (a middle dim)."""
    x = torch.randn(7, 100) * 1000
    x.view(-1)[:12] = torch.tensor([3e6, -1.5e7, 1e30, -3e38, 1048576.0, -1048577.0, 0.0, -0.0, 1e-40, NAN, INF,
                                    -INF])
    x.view(-1)[300:310] = torch.arange(10) * (math.pi / 4)
    x.view(-1)[500:505] = torch.tensor([1e5 * math.pi, 355.0, 103993.0, 1e-8, -3e-5])
    for op in ["sin", "cos"]:
        case(f"{op} f32 blocks", op, x)
        case(f"{op}_ f32 blocks", op + "_", x.clone())
    num = torch.randn(7, 100) * 100
    den = torch.randn(7, 100)
    num.view(-1)[:10] = torch.tensor([1e30, 5.0, 5.0, INF, NAN, 3.0, -0.0, 1e10, -7.0, 8388609.0])
    den.view(-1)[:10] = torch.tensor([3.0, 0.0, -0.0, 2.0, 1.0, INF, -2.0, 1e-3, -INF, 1.0])
    den.view(-1)[400:410] = 1e-30
    num.view(-1)[600:610] = torch.tensor([7.0, -7.0, 7.0, -7.0, 0.1, -0.1, 1.0, -1.0, 0.3, 0.7])
    den.view(-1)[600:610] = torch.tensor([2.0, 2.0, -2.0, -2.0, 0.1, 0.1, 0.1, 0.1, 0.1, -0.1])
    for mode in ["trunc", "floor"]:
        case(f"div f32 {mode} blocks", "div", num, den, rounding_mode=mode)
    case("div f32 floor blocks by number", "div", num, None, rounding_mode="floor", float=0.1)
    case("floor_divide f32 blocks", "floor_divide", num, den)
    a, b = torch.randn(7, 100), torch.randn(7, 100)
    a.view(-1)[::37] = NAN
    b.view(-1)[::41] = NAN
    a.view(-1)[5:8] = torch.tensor([-0.0, 0.0, 1.0])
    b.view(-1)[5:8] = torch.tensor([0.0, -0.0, 1.0])
    for op in ["maximum", "minimum"]:
        case(f"{op} f32 blocks", op, a, b)
    factors = torch.rand(6, 300) + 0.5
    factors[2, 17] = NAN
    factors[3, 250] = INF
    factors[4, 3] = 0.0
    case("prod f32 rows", "prod", factors, dim=1)
    case("prod f32 middle dim", "prod", factors.view(6, 30, 10), dim=1)
    case("prod f32 first dim", "prod", factors.t().contiguous(), dim=0)
    wide = torch.randn(40, 300) * 20
    wide[3] = -INF
    wide[5, 100] = INF
    wide[6, 7] = NAN
    wide[7, :150] = -INF
    for dims in [[1], [0]]:
        case(f"logsumexp f32 wide dims {dims}", "logsumexp", wide, dim=dims)
        case(f"amax f32 wide dims {dims}", "amax", wide, dim=dims)
        case(f"amin f32 wide dims {dims}", "amin", wide, dim=dims)
    case("logsumexp f32 middle dim", "logsumexp", wide.view(40, 30, 10), dim=[1])
    case("amax f32 middle dim", "amax", wide.view(40, 30, 10), dim=[1])
    wide16 = wide.to(torch.bfloat16)
    for dims in [[1], [0]]:
        case(f"logsumexp bf16 wide dims {dims}", "logsumexp", wide16, dim=dims)
    case("logsumexp bf16 middle dim", "logsumexp", wide16.view(40, 30, 10), dim=[1])


def error_cases():
    x = torch.randn(2, 3)
    error_case("amax dim out of range", "amax", x, dim=[2])
    error_case("amax repeated dim", "amax", x, dim=[1, -1])
    error_case("amin empty dim", "amin", torch.zeros(0, 3), dim=[0])
    error_case("amax empty all", "amax", torch.zeros(0, 3), dim=[])
    error_case("logsumexp dim out of range", "logsumexp", x, dim=[-3])
    error_case("argmin dim out of range", "argmin", x, dim=3)
    error_case("prod dim out of range", "prod", x, dim=-3)
    error_case("bitwise_and float", "bitwise_and", x, x)
    error_case("bitwise_or float number", "bitwise_or", torch.arange(4), None, float=1.5)
    error_case("bitwise_xor float int64", "bitwise_xor", x, torch.ones(2, 3, dtype=torch.long))
    error_case("div rounding mode", "div", x, x, rounding_mode="x")
    error_case("div int64 floor by zero", "div", torch.arange(4), torch.tensor([1, 0, 2, 3]), rounding_mode="floor")
    error_case("floor_divide int64 by zero", "floor_divide", torch.arange(4), None, int=0)
    error_case("maximum shapes", "maximum", x, torch.randn(4))
    error_case("sin_ int64", "sin_", torch.arange(4))
    error_case("cos_ bool", "cos_", torch.arange(4) > 1)


def main():
    torch.manual_seed(0)
    reduction_cases()
    pointwise_cases()
    error_cases()
    block_cases()
    here = os.path.dirname(os.path.abspath(__file__))
    write_cases(os.path.join(here, "data", "everyday_cases.json"), "tests/ops/gen_everyday_cases.py", CASES)


if __name__ == "__main__":
    main()
