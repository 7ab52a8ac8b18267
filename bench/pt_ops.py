#!/usr/bin/python3
"""PyTorch 1.13 side of `bench_ops --numel N`: times each case of bench/ops_cases.txt at one size and prints one
`RESULT bench=ops impl=pytorch op=... numel=...` line per case, per-call times in microseconds, with the load
average after the case and the BLAS and allocator the process ran with (bench/pt_env.py, which bench/ops_compare runs it through). Each call is a Python
call of the op's public function (what a PyTorch user pays, Python's dispatch included), looped: a sample is as
many calls as take at least --sample-ms, the first calls untimed. Run with /usr/bin/python3.

usage: pt_ops.py --numel 10000 [--threads 2] [--runs 11] [--sample-ms 2] [--cases bench/ops_cases.txt] [--ops a,b]"""
import argparse, math, os, statistics, sys, time, types

import torch
import torch.nn.functional as F

import pt_env

HERE = os.path.dirname(os.path.abspath(__file__))


def read_cases(path):
    """({family: [shape per size]}, [(name, family)]) of a cases file (format in its header)."""
    shapes, cases = {}, []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if words and words[0] == "shape" and len(words) >= 3:
                shapes[words[1]] = [tuple(int(d) for d in s.split("x")) for s in words[2:]]
                if len(shapes[words[1]]) != len(next(iter(shapes.values()))):
                    sys.exit(f"pt_ops.py: {path}:{number}: every family gives as many sizes as the first, got: "
                             f"{line.strip()}")
            elif words and words[0] == "case" and len(words) == 3 and words[2] in shapes:
                cases.append((words[1], words[2]))
            elif words:
                sys.exit(f"pt_ops.py: {path}:{number}: expected 'shape FAMILY S1 ... Sn' or 'case NAME FAMILY' "
                         f"(a family given above), got: {line.strip()}")
    return shapes, cases


def operands(family, shape):
    """The tensors a family's cases read, as bench/ops_cases.cpp makes them (same seed, same generator)."""
    torch.manual_seed(0)
    t = types.SimpleNamespace(shape=shape)
    if family == "flat":
        n = shape[0]
        t.a, t.b, t.acc = torch.rand(n), torch.rand(n), torch.rand(n)
        t.probs = torch.sigmoid(t.a)
        t.index = (t.b * (n - 1)).to(torch.long)
        t.mask, t.mask_a, t.mask_b, t.flags = t.b > 0.5, t.a > 0.5, t.b > 0.5, t.a > 2.0
        t.prelu_weight = torch.full([1], 0.25)
        t.a16, t.b16 = t.a.to(torch.bfloat16), t.b.to(torch.bfloat16)
        t.ia = (t.a * 2000.0 - 1000.0).to(torch.long)  # both signs
        t.ib = (t.b * 20.0 + 1.0).to(torch.long)  # never zero
    elif family == "rows":
        r, c = shape
        t.x, t.matrix, t.source = torch.rand(r, c), torch.rand(r, c), torch.rand(r, c)
        t.weight, t.bias = torch.rand(c), torch.rand(c)
        _, t.mean, t.rstd = torch.native_layer_norm(t.x, [c], t.weight, t.bias, 1e-5)
        t.row_index = (torch.rand(r) * (r - 1)).to(torch.long)
        t.x16 = t.x.to(torch.bfloat16)
    elif family in ("square", "cube"):
        t.x = torch.rand(shape)
    elif family == "image":
        t.x, t.q, t.k = torch.rand(shape), torch.rand(shape), torch.rand(shape)
        t.plane_weight = torch.rand(shape[1])
    else:
        sys.exit(f"pt_ops.py: no operands for shape family '{family}'")
    return t


CASES = {
    "add": lambda t: t.a + t.b,
    "add_": lambda t: t.acc.add_(t.b),
    "sum": lambda t: t.a.sum(),
    "gather": lambda t: t.a.gather(0, t.index),
    "scatter_add_": lambda t: t.acc.scatter_add_(0, t.index, t.b),
    "masked_fill_": lambda t: t.acc.masked_fill_(t.mask, 0.5),
    "linspace": lambda t: torch.linspace(0, 1, t.shape[0]),
    "var": lambda t: t.a.var(),
    "norm": lambda t: t.a.norm(),
    "any": lambda t: t.flags.any(),
    "floor": lambda t: t.a.floor(),
    "round": lambda t: t.a.round(),
    "sign": lambda t: t.a.sign(),
    "erf": lambda t: t.a.erf(),
    "floor_": lambda t: t.acc.floor_(),
    "isnan": lambda t: t.a.isnan(),
    "nan_to_num": lambda t: t.a.nan_to_num(),
    "logical_and": lambda t: t.mask_a.logical_and(t.mask_b),
    "clamp_min": lambda t: t.a.clamp_min(0.5),
    "clamp_min_": lambda t: t.acc.clamp_min_(0.5),
    "fmod": lambda t: t.a.fmod(t.b),
    "remainder": lambda t: t.a.remainder(0.3),
    "leaky_relu": lambda t: F.leaky_relu(t.a, 0.2),
    "elu": lambda t: F.elu(t.a),
    "softplus": lambda t: F.softplus(t.a),
    "mish": lambda t: F.mish(t.a),
    "hardsigmoid": lambda t: F.hardsigmoid(t.a),
    "hardtanh": lambda t: F.hardtanh(t.a),
    "prelu": lambda t: F.prelu(t.a, t.prelu_weight),
    "lerp": lambda t: torch.lerp(t.a, t.b, 0.3),
    "addcmul": lambda t: torch.addcmul(t.acc, t.a, t.b, value=0.5),
    "addcdiv": lambda t: torch.addcdiv(t.acc, t.a, t.b, value=0.5),
    "xlogy": lambda t: t.a.xlogy(t.b),
    "smooth_l1_loss": lambda t: F.smooth_l1_loss(t.a, t.b, reduction="none"),
    "smooth_l1_loss_backward": lambda t: torch.ops.aten.smooth_l1_loss_backward(t.b, t.a, t.b, 0, 1.0),
    "huber_loss": lambda t: F.huber_loss(t.a, t.b),
    "binary_cross_entropy": lambda t: F.binary_cross_entropy(t.probs, t.probs),
    "bce_with_logits": lambda t: F.binary_cross_entropy_with_logits(t.a, t.probs),
    "sin": lambda t: t.a.sin(),
    "cos": lambda t: torch.cos(t.a),
    "maximum": lambda t: torch.maximum(t.a, t.b),
    "div_floor": lambda t: torch.div(t.a, t.b, rounding_mode="floor"),
    "floor_divide": lambda t: torch.floor_divide(t.a, t.b),
    "bitwise_and": lambda t: t.mask_a & t.mask_b,
    "sin_bf16": lambda t: t.a16.sin(),
    "div_floor_bf16": lambda t: torch.div(t.a16, t.b16, rounding_mode="floor"),
    "maximum_bf16": lambda t: torch.maximum(t.a16, t.b16),
    "div_trunc": lambda t: torch.div(t.a, t.b, rounding_mode="trunc"),
    "floor_divide_int64": lambda t: torch.floor_divide(t.ia, t.ib),
    "bitwise_xor_int64": lambda t: t.ia ^ t.ib,
    "index_add_": lambda t: t.matrix.index_add_(0, t.row_index, t.source),
    "std": lambda t: t.x.std(1),
    "vector_norm_inf": lambda t: torch.linalg.vector_norm(t.x, math.inf, 1),
    "layer_norm": lambda t: F.layer_norm(t.x, [t.shape[1]], t.weight, t.bias),
    "layer_norm_backward": lambda t: torch.ops.aten.native_layer_norm_backward(
        t.x, t.x, [t.shape[1]], t.mean, t.rstd, t.weight, t.bias, [True, True, True]),
    "embedding": lambda t: F.embedding(t.row_index, t.matrix),
    "embedding_backward": lambda t: torch.ops.aten.embedding_dense_backward(t.source, t.row_index, t.shape[0], -1,
                                                                            False),
    "cumsum": lambda t: t.x.cumsum(1),
    "cumprod": lambda t: t.x.cumprod(1),
    "sort": lambda t: t.x.sort(1),
    "topk": lambda t: t.x.topk(8),
    "kthvalue": lambda t: t.x.kthvalue(t.shape[1] // 2),
    "unique": lambda t: torch.unique(t.x, sorted=True, return_inverse=True, return_counts=True),
    "argmin": lambda t: t.x.argmin(1),
    "amax": lambda t: t.x.amax(1),
    "prod": lambda t: t.x.prod(1),
    "logsumexp": lambda t: t.x.logsumexp(1),
    "softmax": lambda t: t.x.softmax(1),
    "log_softmax": lambda t: t.x.log_softmax(1),
    "amin": lambda t: t.x.amin(1),
    "amax_bf16": lambda t: t.x16.amax(1),
    "logsumexp_bf16": lambda t: t.x16.logsumexp(1),
    "maximum_broadcast": lambda t: torch.maximum(t.x, t.weight),
    "div_floor_broadcast": lambda t: torch.div(t.x, t.weight, rounding_mode="floor"),
    "sin_strided": lambda t: t.x.t().sin(),
    "sum_mid": lambda t: t.x.sum(1),
    "argmin_mid": lambda t: t.x.argmin(1),
    "amax_mid": lambda t: t.x.amax(1),
    "prod_mid": lambda t: t.x.prod(1),
    "logsumexp_mid": lambda t: t.x.logsumexp(1),
    "flip": lambda t: t.x.flip(0, 1),
    "roll": lambda t: t.x.roll((3, 5), (0, 1)),
    "repeat": lambda t: t.x.repeat(2, 1),
    "tile": lambda t: t.x.tile((2, 1)),
    "triu": lambda t: t.x.triu(),
    "split": lambda t: t.x.split(1),
    "unbind": lambda t: t.x.unbind(),
    "constant_pad_nd": lambda t: torch.constant_pad_nd(t.x, [1, 1, 1, 1]),
    "reflection_pad2d": lambda t: F.pad(t.x, [1, 1, 1, 1], mode="reflect"),
    "upsample_nearest2d": lambda t: F.interpolate(t.x, scale_factor=2.0, mode="nearest"),
    "upsample_bilinear2d": lambda t: F.interpolate(t.x, scale_factor=2.0, mode="bilinear", align_corners=False),
    "im2col": lambda t: F.unfold(t.x, 3, padding=1),
    "adaptive_max_pool2d": lambda t: F.adaptive_max_pool2d(t.x, 7, return_indices=True),
    "group_norm": lambda t: F.group_norm(t.x, 4, t.plane_weight, t.plane_weight),
    "einsum": lambda t: torch.einsum("bhqd,bhkd->bhqk", t.q, t.k),
}


def time_case(f, runs, sample_s):
    """Per-call seconds of `runs` samples, each of as many calls as take at least `sample_s` (doubling from 1
    after 3 untimed calls): bench/ops_cases.cpp's rule."""
    for _ in range(3):
        f()
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            f()
        if time.perf_counter() - start >= sample_s:
            break
        calls *= 2
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(calls):
            f()
        samples.append((time.perf_counter() - start) / calls)
    return samples, calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--numel", type=int, required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--sample-ms", type=float, default=2.0)
    ap.add_argument("--cases", default=os.path.join(HERE, "ops_cases.txt"))
    ap.add_argument("--ops", help="comma-separated case names: time only these")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    shapes, cases = read_cases(a.cases)
    unknown = [name for name, _ in cases if name not in CASES]
    if unknown:
        sys.exit(f"pt_ops.py: {a.cases} names cases this script does not know: {', '.join(unknown)}")
    if a.ops:
        only = a.ops.split(",")
        missing = [name for name in only if name not in dict(cases)]
        if missing:
            sys.exit(f"pt_ops.py: --ops names cases {a.cases} does not have: {', '.join(missing)}")
        cases = [(name, family) for name, family in cases if name in only]
    sizes = {math.prod(s) for family in shapes.values() for s in family}
    column = next((i for i, s in enumerate(next(iter(shapes.values()))) if math.prod(s) == a.numel), None)
    if column is None:
        sys.exit(f"pt_ops.py: --numel {a.numel} is not a size of {a.cases} ({', '.join(map(str, sorted(sizes)))})")
    ran_with = pt_env.runtime()
    print(f"PyTorch {torch.__version__} ops at {a.numel} elements, {torch.get_num_threads()} threads, BLAS "
          f"{ran_with['blas']}, allocator {ran_with['allocator']}", file=sys.stderr)
    made = {}
    for name, family in cases:
        shape = shapes[family][column]
        if math.prod(shape) != a.numel:
            sys.exit(f"pt_ops.py: {a.cases}: family {family} has {math.prod(shape)} elements at the size of {a.numel}")
        if family not in made:
            made[family] = operands(family, shape)
        t = made[family]
        with torch.no_grad():
            samples, calls = time_case(lambda: CASES[name](t), a.runs, a.sample_ms / 1e3)
        us = [s * 1e6 for s in samples]
        print(f"RESULT bench=ops impl=pytorch op={name} numel={a.numel} shape={'x'.join(map(str, shape))} "
              f"threads={torch.get_num_threads()} calls={calls} median_us={statistics.median(us):.3f} "
              f"min_us={min(us):.3f} max_us={max(us):.3f} load1={os.getloadavg()[0]:.2f} blas={ran_with['blas']} allocator={ran_with['allocator']}",
              flush=True)


if __name__ == "__main__":
    sys.exit(main())
