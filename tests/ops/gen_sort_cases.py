#!/usr/bin/python3
"""tests/ops/gen_sort_cases.py — PyTorch 1.13's values for sorting, scans, moments, norms, any / all, baddbmm,
outer, unique and einsum.

Writes tests/ops/data/sort_cases.json (the layout of loss_cases.json), read by tests/ops/test_sort.cpp: each
case names an op, its inputs (dtype, shape, values as Python float reprs), its non-tensor arguments and
what PyTorch returns. An op "grad:<op>" gives instead the gradient of sum(<op>(self)[0] * weight) with
respect to self, by torch.autograd. Ties are built in where PyTorch's indices are defined (stable sort)
and, for topk / kthvalue, marked ("ties": the test then checks our indices point at the values).
Inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/ops/gen_sort_cases.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from torch_cases import DTYPES, enc, write_cases  # noqa: E402

aten = torch.ops.aten
CASES = []
NAN, INF = float("nan"), float("inf")


def case(name, op, self, args, outputs, ties=False, **extra):
    outs = list(outputs) if isinstance(outputs, tuple) else [outputs]
    inputs = {"self": enc(self)}
    inputs.update({k: enc(v) for k, v in extra.items()})
    CASES.append({"name": name, "op": op, "inputs": inputs, "args": {k: (repr(v) if isinstance(v, float) else v)
                                                                      for k, v in args.items()},
                  "outputs": [enc(o) for o in outs], "ties": ties})


def grad_case(name, op, self, args, fn):
    """The gradient of sum(fn(x) * w) at self, w fixed by the seed."""
    x = self.clone().requires_grad_(True)
    out = fn(x)
    w = torch.randn(out.shape, dtype=out.dtype)
    (out * w).sum().backward()
    case(name, "grad:" + op, self, args, x.grad, weight=w)


def with_specials(t):
    flat = t.flatten()
    for i, v in zip([1, 4, 7], [NAN, INF, -INF]):
        if i < flat.numel():
            flat[i] = v
    return flat.view(t.shape)


def sort_cases():
    for dtype in [torch.float32, torch.float64]:
        d = DTYPES[dtype]
        ties = torch.randint(0, 4, (3, 5, 6)).to(dtype)  # many equal values: stable indices
        for dim in [0, 1, -1]:
            for desc in [False, True]:
                case(f"sort {d} ties dim {dim} desc {desc}", "sort", ties, {"dim": dim, "descending": desc},
                     tuple(torch.sort(ties, stable=True, dim=dim, descending=desc)))
        special = with_specials(torch.randn(4, 9, dtype=dtype))
        for desc in [False, True]:
            case(f"sort {d} nan inf desc {desc}", "sort", special, {"dim": 1, "descending": desc},
                 tuple(torch.sort(special, stable=True, dim=1, descending=desc)))
            case(f"argsort {d} nan inf desc {desc}", "argsort", special, {"dim": 1, "descending": desc},
                 torch.argsort(special, 1, desc))
        long_lane = torch.randn(2, 700, dtype=dtype).t()  # strided lanes
        case(f"sort {d} strided long", "sort", long_lane, {"dim": 0, "descending": False},
             tuple(torch.sort(long_lane, 0)))
        for k, largest in [(1, True), (3, True), (9, True), (2, False), (0, True)]:
            case(f"topk {d} nan inf k {k} largest {largest}", "topk", special, {"k": k, "dim": 1, "largest": largest},
                 tuple(torch.topk(special, k, 1, largest)))
        case(f"topk {d} ties", "topk", ties, {"k": 3, "dim": 2, "largest": True}, tuple(torch.topk(ties, 3, 2)),
             ties=True)
        for k in [1, 3, 9]:
            case(f"kthvalue {d} nan inf k {k}", "kthvalue", special, {"k": k, "dim": 1, "keepdim": False},
                 tuple(torch.kthvalue(special, k, 1)))
        case(f"kthvalue {d} ties keepdim", "kthvalue", ties, {"k": 2, "dim": 0, "keepdim": True},
             tuple(torch.kthvalue(ties, 2, 0, True)), ties=True)
    ints = torch.randint(-5, 5, (4, 7), dtype=torch.int64)
    case("sort int64", "sort", ints, {"dim": 1, "descending": True}, tuple(torch.sort(ints, stable=True, dim=1, descending=True)))
    case("topk int32", "topk", ints.int(), {"k": 2, "dim": 0, "largest": False}, tuple(torch.topk(ints.int(), 2, 0, False)),
         ties=True)
    flags = torch.tensor([True, False, True, False])
    case("sort bool", "sort", flags, {"dim": 0, "descending": False}, tuple(torch.sort(flags, stable=True, dim=0)))
    scalar = torch.tensor(2.5)
    case("sort 0-d", "sort", scalar, {"dim": 0, "descending": False}, tuple(torch.sort(scalar, 0)))
    case("topk 0-d", "topk", scalar, {"k": 1, "dim": -1, "largest": True}, tuple(torch.topk(scalar, 1)))
    case("kthvalue 0-d", "kthvalue", scalar, {"k": 1, "dim": 0, "keepdim": False}, tuple(torch.kthvalue(scalar, 1)))


def scan_cases():
    for dtype in [torch.float32, torch.float64]:
        d = DTYPES[dtype]
        x = torch.randn(3, 4, 5, dtype=dtype)
        for dim in [0, 2, -2]:
            case(f"cumsum {d} dim {dim}", "cumsum", x, {"dim": dim}, torch.cumsum(x, dim))
            case(f"cumprod {d} dim {dim}", "cumprod", x, {"dim": dim}, torch.cumprod(x, dim))
        long_lane = torch.rand(2, 700, dtype=dtype).add(0.5).t()
        case(f"cumsum {d} strided long", "cumsum", long_lane, {"dim": 0}, torch.cumsum(long_lane, 0))
        special = with_specials(torch.randn(2, 9, dtype=dtype))
        case(f"cumsum {d} nan inf", "cumsum", special, {"dim": 1}, torch.cumsum(special, 1))
        case(f"cumprod {d} nan inf", "cumprod", special, {"dim": 1}, torch.cumprod(special, 1))
    ints = torch.randint(-3, 4, (3, 4), dtype=torch.int32)
    case("cumsum int32", "cumsum", ints, {"dim": 1}, torch.cumsum(ints, 1))
    case("cumprod int32", "cumprod", ints, {"dim": 0}, torch.cumprod(ints, 0))
    flags = torch.tensor([True, False, True, True])
    case("cumsum bool", "cumsum", flags, {"dim": 0}, torch.cumsum(flags, 0))
    x = torch.randn(3, 4)
    case("cumsum dtype float64", "cumsum", x, {"dim": 1, "dtype": "float64"}, torch.cumsum(x, 1, dtype=torch.float64))
    case("cumsum 0-d", "cumsum", torch.tensor(1.5), {"dim": 0}, torch.cumsum(torch.tensor(1.5), 0))


def moment_cases():
    for dtype in [torch.float32, torch.float64]:
        d = DTYPES[dtype]
        x = torch.randn(4, 5, 6, dtype=dtype).mul(3).add(100)  # a large mean: the two-pass trap
        for dims, unbiased, keepdim, correction in [(None, True, False, None), ([1], True, False, None),
                                                    ([0, 2], False, True, None), ([2], True, False, 0),
                                                    ([2], True, True, 3), ([-1, 0], True, False, 6)]:
            args = {"dim": dims, "unbiased": unbiased, "keepdim": keepdim, "correction": correction}
            where = f"{d} dims {dims} unbiased {unbiased} keepdim {keepdim} correction {correction}"
            if correction is None:
                v = torch.var(x, dims, unbiased, keepdim) if dims else torch.var(x, unbiased)
                s = torch.std(x, dims, unbiased, keepdim) if dims else torch.std(x, unbiased)
            else:
                v = torch.var(x, dims, correction=correction, keepdim=keepdim)
                s = torch.std(x, dims, correction=correction, keepdim=keepdim)
            case("var " + where, "var", x, args, v)
            case("std " + where, "std", x, args, s)
        big = torch.randn(20000, dtype=dtype).add(5)  # two blocks: partials merged (Chan's formula)
        case(f"var {d} many blocks", "var", big, {"dim": None, "unbiased": True, "keepdim": False, "correction": None},
             torch.var(big))
        columns = torch.randn(6000, 3, dtype=dtype)  # a vertical reduction, two blocks
        case(f"std {d} columns", "std", columns, {"dim": [0], "unbiased": True, "keepdim": False, "correction": None},
             torch.std(columns, 0))
        special = with_specials(torch.randn(3, 9, dtype=dtype))
        case(f"var {d} nan inf", "var", special, {"dim": [1], "unbiased": True, "keepdim": False, "correction": None},
             torch.var(special, 1))
    one = torch.randn(1, 3)
    case("var n = correction", "var", one, {"dim": [0], "unbiased": True, "keepdim": False, "correction": None},
         torch.var(one, 0))
    case("var empty", "var", torch.zeros(3, 0), {"dim": [1], "unbiased": True, "keepdim": False, "correction": None},
         torch.var(torch.zeros(3, 0), 1))
    x = torch.randn(3, 4)
    case("var_mean", "var_mean", x, {"dim": [1], "unbiased": False, "keepdim": True, "correction": None},
         torch.var_mean(x, 1, False, True))
    case("std_mean", "std_mean", x, {"dim": None, "unbiased": True, "keepdim": False, "correction": None},
         torch.std_mean(x))


def norm_cases():
    for dtype in [torch.float32, torch.float64]:
        d = DTYPES[dtype]
        x = torch.randn(4, 5, 6, dtype=dtype)
        for ord in [2, 1, INF, -INF, 0, 3, 0.5, -1]:
            for dims, keepdim in [(None, False), ([1], False), ([0, 2], True)]:
                args = {"ord": float(ord), "dim": dims, "keepdim": keepdim}
                case(f"vector_norm {d} ord {ord} dims {dims}", "linalg_vector_norm", x, args,
                     torch.linalg.vector_norm(x, ord, dims, keepdim))
        special = with_specials(torch.randn(3, 9, dtype=dtype))
        for ord in [2, INF]:
            case(f"vector_norm {d} nan inf ord {ord}", "linalg_vector_norm", special,
                 {"ord": float(ord), "dim": [1], "keepdim": False}, torch.linalg.vector_norm(special, ord, 1))
    x = torch.randn(3, 4)
    case("norm fro", "norm", x, {"ord": 2.0, "dim": [0, 1], "keepdim": False}, torch.norm(x, "fro", [0, 1]))
    case("norm 1 dim", "norm", x, {"ord": 1.0, "dim": [1], "keepdim": True}, torch.norm(x, 1, 1, True))
    case("norm dtype float64", "linalg_vector_norm", x, {"ord": 2.0, "dim": None, "keepdim": False, "dtype": "float64"},
         torch.linalg.vector_norm(x, dtype=torch.float64))


def unique_cases():
    """unique's (values, inverse, counts). NaN-free: PyTorch 1.13's CPU unique, a hash set, gives NaN a count of
    0 (tests/ops/gen_special_values.py builds that reference from torch.sort)."""
    flags = {"sorted": True, "return_inverse": True, "return_counts": True}
    plain = {"sorted": True, "return_inverse": False, "return_counts": False}
    for name, t in [("int64", torch.randint(0, 5, (4, 6))),
                    ("float32 inf zeros", torch.tensor([2.5, -1.0, 2.5, 0.0, -0.0, 7.0, -1.0, INF, -INF, INF])),
                    ("bool", torch.tensor([[True, False, True], [False, False, True]])),
                    ("float64 0-dim", torch.tensor(3.0, dtype=torch.float64)), ("empty", torch.zeros(0, 3)),
                    ("strided", torch.randint(0, 3, (5, 4)).double().t())]:
        case(f"_unique2 {name}", "_unique2", t, flags, torch._unique2(t, True, True, True))
        case(f"_unique2 {name} values only", "_unique2", t, plain, torch._unique2(t))
        case(f"unique_consecutive {name}", "unique_consecutive", t, {"return_inverse": True, "return_counts": True},
             torch.unique_consecutive(t, True, True))
    rows = torch.tensor([[1, 2], [3, 4], [1, 2], [0, 9], [3, 4]])
    cube = torch.randint(0, 2, (3, 4, 2)).float()
    for name, t in [("rows", rows), ("cube", cube), ("0-size dim", torch.zeros(0, 3))]:
        for dim in range(-1, t.dim()):
            if t.numel() == 0 and t.shape[dim] != 0:
                continue
            case(f"unique_dim {name} dim {dim}", "unique_dim", t, {"dim": dim, **flags}, torch._VF.unique_dim(t, dim, True, True, True))
            case(f"unique_consecutive {name} dim {dim}", "unique_consecutive", t,
                 {"dim": dim, "return_inverse": True, "return_counts": True}, torch.unique_consecutive(t, True, True, dim))
    case("unique_dim inverse, counts not asked for", "unique_dim", rows, {"dim": 0, **plain}, torch._VF.unique_dim(rows, 0))
    runs = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    case("unique_consecutive runs", "unique_consecutive", runs, {"return_inverse": True, "return_counts": True},
         torch.unique_consecutive(runs, True, True))
    case("unique_consecutive runs plain", "unique_consecutive", runs, {"return_inverse": False, "return_counts": False},
         torch._VF.unique_consecutive(runs))


def einsum_cases():
    """einsum's common forms, in float64, and the gradients of sum(einsum(...) * weight) for every operand
    (a contraction is a bmm, whose dtypes are the floating ones)."""
    r = lambda *shape: torch.randn(*shape, dtype=torch.float64)
    a, b, sq, u, v = r(3, 4), r(4, 5), r(4, 4), r(4), r(3)
    forms = [("ij,jk->ik", [a, b]), ("bij,bjk->bik", [r(2, 3, 4), r(2, 4, 5)]), ("ii->i", [sq]), ("ii", [sq]),
             ("ij->ji", [a]), ("i,i->", [u, r(4)]), ("i,j->ij", [u, v]), ("bhqd,bhkd->bhqk", [r(2, 3, 4, 5), r(2, 3, 6, 5)]),
             ("...ij->...ji", [r(2, 3, 4, 5)]), ("ij->", [a]), ("ij->j", [a]), ("ij,jk", [a, b]),
             (" b i j , b j k -> b i k ", [r(2, 3, 4), r(2, 4, 5)]), ("ij,jk,kl->il", [a, b, r(5, 2)]),
             ("ij,j->i", [a, u]), ("...i,...i->...", [r(2, 1, 4), r(3, 4)]), ("iij->ij", [r(3, 3, 2)]),
             ("Ab,bC->AC", [a, b]), ("ij,ij->ij", [a, r(3, 4)]), ("bij,jk->bik", [r(2, 3, 4), r(1, 4)[:, :1].expand(4, 5)]),
             ("i,i", [u, r(1)]), ("ji", [a]), ("...", [r(2, 3)]), ("ij,kl->ijkl", [r(2, 3), r(1, 2)]),
             ("ij,jk->ik", [r(0, 4), b])]
    for eq, ops in forms:
        inputs = [o.clone().requires_grad_(True) for o in ops]
        out = torch.einsum(eq, *inputs)
        w = torch.randn(out.shape, dtype=out.dtype)
        (out * w).sum().backward()
        extra = {f"t{i}": o for i, o in enumerate(ops[1:], 1)}
        case(f"einsum {eq!r}", "einsum", ops[0], {"equation": {"str": eq}}, out.detach(), weight=w, **extra)
        names = ["self"] + list(extra)
        CASES[-1]["grads"] = {n: enc(i.grad if i.grad is not None else torch.zeros_like(i)) for n, i in zip(names, inputs)}


def var_bool_cases():
    """x.var(false) is LibTorch's var(bool unbiased): over every element, not dim 0."""
    x = torch.randn(3, 4)
    for op in ["var", "std"]:
        for unbiased in [True, False]:
            case(f"{op} unbiased {unbiased} as a bool", f"{op}:bool", x, {"unbiased": unbiased}, getattr(x, op)(unbiased))
    case("var_mean unbiased False as a bool", "var_mean:bool", x, {"unbiased": False}, torch.var_mean(x, False))
    case("std_mean unbiased False as a bool", "std_mean:bool", x, {"unbiased": False}, torch.std_mean(x, False))


def logical_cases():
    for t in [torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]), torch.tensor([[NAN, 0.0], [-0.0, 2.0]]),
              torch.tensor([[1, 2, 0], [3, 4, 5]]), torch.tensor([[True, False], [True, True]]),
              torch.tensor([[1, 1], [1, 1]], dtype=torch.int32), torch.zeros(2, 0)]:
        name = f"{DTYPES[t.dtype]} {list(t.shape)}"
        for op in ["any", "all"]:
            case(f"{op} {name}", op, t, {"dim": None, "keepdim": False}, getattr(torch, op)(t))
            for dim in [0, 1]:
                case(f"{op} {name} dim {dim}", op, t, {"dim": dim, "keepdim": dim == 0}, getattr(torch, op)(t, dim, dim == 0))


def product_cases():
    for dtype in [torch.float32, torch.float64]:
        d = DTYPES[dtype]
        b1, b2 = torch.randn(3, 4, 5, dtype=dtype), torch.randn(3, 5, 2, dtype=dtype)
        for self, beta, alpha in [(torch.randn(3, 4, 2, dtype=dtype), 1.0, 1.0), (torch.randn(4, 1, dtype=dtype), 0.5, 2.0),
                                  (torch.full((2,), NAN, dtype=dtype), 0.0, 1.5)]:
            out = torch.baddbmm(self, b1, b2, beta=beta, alpha=alpha)
            # beta = 0 ignores self, as documented; a run of PyTorch 1.13 once returned NaN there (float32).
            assert beta != 0 or not out.isnan().any(), "PyTorch's baddbmm propagated NaN from an ignored self"
            case(f"baddbmm {d} self {list(self.shape)} beta {beta} alpha {alpha}", "baddbmm", self,
                 {"beta": beta, "alpha": alpha}, out, batch1=b1, batch2=b2)
        u, v = torch.randn(4, dtype=dtype), torch.randn(3, dtype=dtype)
        case(f"outer {d}", "outer", u, {}, torch.outer(u, v), vec2=v)


def gradient_cases():
    x = torch.randn(3, 5, dtype=torch.float64)
    zeros = torch.tensor([[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 1.5, 2.0, -1.0, 0.5], [1.0, 2.0, 3.0, 4.0, 0.0]],
                         dtype=torch.float64)
    for name, t in [("plain", x), ("zeros", zeros)]:
        for dim in [0, 1]:
            grad_case(f"cumprod {name} dim {dim}", "cumprod", t, {"dim": dim}, lambda a: torch.cumprod(a, dim))
        grad_case(f"cumsum {name}", "cumsum", t, {"dim": 1}, lambda a: torch.cumsum(a, 1))
    # (PyTorch 1.13's own backward fails for all dims with n <= correction: it returns a 0-d gradient.)
    grad_case("var n = correction", "var", torch.randn(2, 4, dtype=torch.float64),
              {"dim": [1], "unbiased": True, "keepdim": False, "correction": 4},
              lambda a: torch.var(a, [1], correction=4))
    grad_case("var dims correction", "var", x, {"dim": [1], "unbiased": True, "keepdim": True, "correction": 2},
              lambda a: torch.var(a, [1], correction=2, keepdim=True))
    constant = torch.tensor([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]], dtype=torch.float64)
    grad_case("std zero", "std", constant, {"dim": [1], "unbiased": False, "keepdim": False, "correction": None},
              lambda a: torch.std(a, 1, False))
    ties = torch.tensor([[3.0, -3.0, 1.0], [0.0, 0.0, 0.0], [2.0, NAN, -2.0]], dtype=torch.float64)
    for ord in [INF, -INF, 2, 1, 3, 0.5]:
        grad_case(f"vector_norm ord {ord} ties zeros", "linalg_vector_norm", ties[:2], {"ord": float(ord), "dim": [1],
                  "keepdim": False}, lambda a: torch.linalg.vector_norm(a, ord, 1))
    grad_case("vector_norm inf nan", "linalg_vector_norm", ties, {"ord": INF, "dim": None, "keepdim": False},
              lambda a: torch.linalg.vector_norm(a, INF))
    grad_case("sort", "sort", x, {"dim": 1, "descending": True}, lambda a: torch.sort(a, 1, True).values)
    grad_case("topk", "topk", x, {"k": 2, "dim": 0, "largest": False}, lambda a: torch.topk(a, 2, 0, False).values)
    grad_case("kthvalue", "kthvalue", x, {"k": 3, "dim": 1, "keepdim": False}, lambda a: torch.kthvalue(a, 3, 1).values)


def main():
    torch.manual_seed(0)
    sort_cases()
    scan_cases()
    moment_cases()
    norm_cases()
    logical_cases()
    product_cases()
    gradient_cases()
    unique_cases()
    einsum_cases()
    var_bool_cases()
    here = os.path.dirname(os.path.abspath(__file__))
    write_cases(os.path.join(here, "data", "sort_cases.json"), "tests/ops/gen_sort_cases.py", CASES)


if __name__ == "__main__":
    main()
