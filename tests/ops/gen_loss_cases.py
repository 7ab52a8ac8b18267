#!/usr/bin/python3
"""tests/ops/gen_loss_cases.py — PyTorch 1.13's values for the softmax, loss and distance ops.

Writes tests/ops/data/loss_cases.json, read by tests/ops/test_loss.cpp and test_softmax.cpp: each case
names an op (its aten name), its inputs (dtype, shape, values as Python float reprs), its non-tensor
arguments and what PyTorch returns; a grad_case also torch.autograd's gradients of (result * grad_weight).sum()
for its floating inputs (not a loss's weights, which PyTorch does not differentiate either). Inputs are
seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/ops/gen_loss_cases.py
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from torch_cases import DTYPES, enc, write_cases  # noqa: E402

aten = torch.ops.aten
CASES = []


def case(name, op, inputs, args, outputs):
    outs = list(outputs) if isinstance(outputs, tuple) else [outputs]
    CASES.append({"name": name, "op": op, "inputs": {k: enc(v) for k, v in inputs.items()}, "args": args,
                  "outputs": [enc(o) for o in outs]})


def grad_case(name, op, inputs, args, fn):
    """fn(**inputs) gives the result; the floating inputs but the weights get their gradients."""
    leaves = {k: (v.clone().requires_grad_() if v is not None and v.is_floating_point() and "weight" not in k else v)
              for k, v in inputs.items()}
    out = fn(**leaves)
    entry = {"name": name, "op": op, "inputs": {k: enc(v) for k, v in inputs.items()}, "args": args,
             "outputs": [enc(out.detach())]}
    if out.is_floating_point():
        weight = torch.linspace(-1.0, 2.0, out.numel(), dtype=torch.float64).to(out.dtype).view(out.shape)
        (out * weight).sum().backward()
        entry["inputs"]["grad_weight"] = enc(weight)
        entry["grads"] = {k: enc(v.grad) for k, v in leaves.items()
                          if v is not None and v.requires_grad and v.grad is not None}
    CASES.append(entry)


def randn(*shape, dtype, scale=1.0):
    return torch.randn(shape, dtype=torch.float64).mul(scale).to(dtype)


def softmax_cases(dtype):
    d = DTYPES[dtype]
    for shape, dim in [((3, 5), 1), ((3, 5), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((7,), 0), ((), 0)]:
        for scale in [1.0, 300.0]:  # 300: exp overflows unless the max is subtracted
            x = randn(*shape, dtype=dtype, scale=scale)
            g = randn(*shape, dtype=dtype)
            tag = f"{d} {list(shape)} dim={dim} scale={scale:g}"
            for name, fwd, bwd in [("_softmax", torch._softmax, torch._softmax_backward_data),
                                   ("_log_softmax", torch._log_softmax, torch._log_softmax_backward_data)]:
                y = fwd(x, dim, False)
                case(f"{name} {tag}", name, {"self": x}, {"dim": dim}, y)
                case(f"{name}_backward_data {tag}", f"{name}_backward_data", {"grad_output": g, "output": y},
                     {"dim": dim}, bwd(g, y, dim, dtype))
    x = randn(4, 6, dtype=torch.float32)
    case("softmax to float64", "softmax", {"self": x}, {"dim": 1, "dtype": "float64"},
         torch.softmax(x, 1, dtype=torch.float64))
    case("log_softmax to float64", "log_softmax", {"self": x}, {"dim": 0, "dtype": "float64"},
         torch.log_softmax(x, 0, dtype=torch.float64))
    case(f"softmax {d}", "softmax", {"self": x.to(dtype)}, {"dim": -1}, torch.softmax(x.to(dtype), -1))


def nll_cases(dtype):
    d = DTYPES[dtype]
    lp = torch.log_softmax(randn(6, 5, dtype=dtype), 1)
    target = torch.tensor([4, 0, -100, 2, 2, 1])
    weight = torch.rand(5, dtype=torch.float64).add(0.1).to(dtype)
    for red in [0, 1, 2]:
        for w in [None, weight]:
            for ignore, t in [(-100, target), (2, target.clamp(min=0))]:
                tag = f"{d} reduction={red} weight={w is not None} ignore_index={ignore}"
                out, total = aten.nll_loss_forward(lp, t, w, red, ignore)
                case(f"nll_loss_forward {tag}", "nll_loss_forward",
                     {"self": lp, "target": t, "weight": w}, {"reduction": red, "ignore_index": ignore}, (out, total))
                g = randn(6, dtype=dtype) if red == 0 else randn(dtype=dtype)
                case(f"nll_loss_backward {tag}", "nll_loss_backward",
                     {"grad_output": g, "self": lp, "target": t, "weight": w, "total_weight": total},
                     {"reduction": red, "ignore_index": ignore},
                     aten.nll_loss_backward(g, lp, t, w, red, ignore, total))
    lp1 = torch.log_softmax(randn(5, dtype=dtype), 0)
    for red in [0, 1, 2]:
        out = aten.nll_loss_forward(lp1, torch.tensor(3), weight, red, -100)
        case(f"nll_loss_forward (C) {d} reduction={red}", "nll_loss_forward",
             {"self": lp1, "target": torch.tensor(3), "weight": weight}, {"reduction": red, "ignore_index": -100}, out)
    all_ignored = torch.full((6,), -100)
    case(f"nll_loss_forward all ignored {d}", "nll_loss_forward", {"self": lp, "target": all_ignored, "weight": None},
         {"reduction": 1, "ignore_index": -100}, aten.nll_loss_forward(lp, all_ignored, None, 1, -100))
    # the composite over (N, C, d1, ...)
    for shape in [(3, 4, 5), (2, 3, 4, 2)]:
        x = torch.log_softmax(randn(*shape, dtype=dtype), 1)
        t = torch.randint(0, shape[1], (shape[0],) + shape[2:])
        t.view(-1)[1] = -100
        w = torch.rand(shape[1], dtype=torch.float64).add(0.1).to(dtype)
        for red in [0, 1, 2]:
            case(f"nll_loss {d} {list(shape)} reduction={red}", "nll_loss", {"self": x, "target": t, "weight": w},
                 {"reduction": red, "ignore_index": -100}, F.nll_loss(x, t, w, reduction=["none", "mean", "sum"][red]))


def cross_entropy_cases(dtype):
    d = DTYPES[dtype]
    x = randn(6, 5, dtype=dtype, scale=2.0)
    target = torch.tensor([4, 0, -100, 2, 2, 1])
    weight = torch.rand(5, dtype=torch.float64).add(0.1).to(dtype)
    for red in [0, 1, 2]:
        for w in [None, weight]:
            for ls in [0.0, 0.1, 1.0]:
                for ignore, t in [(-100, target), (2, target.clamp(min=0))]:
                    tag = f"{d} reduction={red} weight={w is not None} label_smoothing={ls} ignore_index={ignore}"
                    out = F.cross_entropy(x, t, w, ignore_index=ignore, reduction=["none", "mean", "sum"][red],
                                          label_smoothing=ls)
                    case(f"cross_entropy_loss {tag}", "cross_entropy_loss", {"self": x, "target": t, "weight": w},
                         {"reduction": red, "ignore_index": ignore, "label_smoothing": ls}, out)
    xnd = randn(2, 4, 3, 2, dtype=dtype)
    tnd = torch.randint(0, 4, (2, 3, 2))
    tnd[0, 1, 1] = -100
    wnd = torch.rand(4, dtype=torch.float64).add(0.1).to(dtype)
    for red in [0, 1, 2]:
        for ls in [0.0, 0.25]:
            out = F.cross_entropy(xnd, tnd, wnd, reduction=["none", "mean", "sum"][red], label_smoothing=ls)
            case(f"cross_entropy_loss (N, C, d1, d2) {d} reduction={red} label_smoothing={ls}", "cross_entropy_loss",
                 {"self": xnd, "target": tnd, "weight": wnd},
                 {"reduction": red, "ignore_index": -100, "label_smoothing": ls}, out)
    x1 = randn(5, dtype=dtype)
    case(f"cross_entropy_loss (C) {d}", "cross_entropy_loss", {"self": x1, "target": torch.tensor(1), "weight": None},
         {"reduction": 1, "ignore_index": -100, "label_smoothing": 0.3}, F.cross_entropy(x1, torch.tensor(1),
                                                                                     label_smoothing=0.3))
    probs = torch.softmax(randn(6, 5, dtype=dtype), 1)
    for red in [0, 1, 2]:
        for w in [None, weight]:
            for ls in [0.0, 0.2]:
                out = F.cross_entropy(x, probs, w, reduction=["none", "mean", "sum"][red], label_smoothing=ls)
                case(f"cross_entropy_loss probabilities {d} reduction={red} weight={w is not None} label_smoothing={ls}",
                     "cross_entropy_loss", {"self": x, "target": probs, "weight": w},
                     {"reduction": red, "ignore_index": -100, "label_smoothing": ls}, out)
    for shape in [(2, 0), (0, 5)]:  # no class or no row: the mean is NaN (it divided an integer by 0 classes)
        empty = torch.zeros(shape, dtype=dtype)
        for red in [0, 1, 2]:
            for ls in [0.0, 0.2]:
                out = F.cross_entropy(empty, empty, reduction=["none", "mean", "sum"][red], label_smoothing=ls)
                case(f"cross_entropy_loss probabilities {d} {list(shape)} reduction={red} label_smoothing={ls}",
                     "cross_entropy_loss", {"self": empty, "target": empty, "weight": None},
                     {"reduction": red, "ignore_index": -100, "label_smoothing": ls}, out)


def mse_cases(dtype):
    d = DTYPES[dtype]
    for shape in [(4, 3), (2, 3, 5), ()]:
        x, t = randn(*shape, dtype=dtype), randn(*shape, dtype=dtype)
        for red in [0, 1, 2]:
            tag = f"{d} {list(shape)} reduction={red}"
            case(f"mse_loss {tag}", "mse_loss", {"self": x, "target": t}, {"reduction": red},
                 F.mse_loss(x, t, reduction=["none", "mean", "sum"][red]))
            g = randn(*shape, dtype=dtype) if red == 0 else randn(dtype=dtype)
            case(f"mse_loss_backward {tag}", "mse_loss_backward", {"grad_output": g, "self": x, "target": t},
                 {"reduction": red}, aten.mse_loss_backward(g, x, t, red))


REDUCTIONS = ["none", "mean", "sum"]


def cross_entropy_grad_cases(dtype):
    """label_smoothing, class weights and ignore_index together: values and gradients."""
    d = DTYPES[dtype]
    x = randn(6, 5, dtype=dtype, scale=2.0)
    target = torch.tensor([4, 0, -100, 2, 2, 1])
    weight = torch.rand(5, dtype=torch.float64).add(0.1).to(dtype)
    xnd = randn(2, 4, 3, dtype=dtype)
    tnd = torch.tensor([[0, 3, 1], [-100, 2, 2]])
    wnd = torch.rand(4, dtype=torch.float64).add(0.1).to(dtype)
    for red in [0, 1, 2]:
        for ls in [0.0, 0.15]:
            args = {"reduction": red, "ignore_index": -100, "label_smoothing": ls}
            grad_case(f"cross_entropy_loss grad {d} reduction={red} label_smoothing={ls} weight ignore_index",
                      "cross_entropy_loss", {"self": x, "target": target, "weight": weight}, args,
                      lambda self, target, weight: F.cross_entropy(self, target, weight, ignore_index=-100,
                                                                   reduction=REDUCTIONS[red], label_smoothing=ls))
            grad_case(f"cross_entropy_loss grad (N, C, d) {d} reduction={red} label_smoothing={ls}",
                      "cross_entropy_loss", {"self": xnd, "target": tnd, "weight": wnd}, args,
                      lambda self, target, weight: F.cross_entropy(self, target, weight, reduction=REDUCTIONS[red],
                                                                   label_smoothing=ls))
        grad_case(f"nll_loss grad {d} reduction={red} weight ignore_index=2", "nll_loss",
                  {"self": x, "target": target.clamp(min=0), "weight": weight}, {"reduction": red, "ignore_index": 2},
                  lambda self, target, weight: F.nll_loss(self, target, weight, ignore_index=2,
                                                          reduction=REDUCTIONS[red]))


def pointwise_loss_cases(dtype):
    d = DTYPES[dtype]
    for shape in [(4, 3), (2, 3, 5), ()]:
        x, t = randn(*shape, dtype=dtype), randn(*shape, dtype=dtype)
        for red in [0, 1, 2]:
            tag = f"{d} {list(shape)} reduction={red}"
            grad_case(f"l1_loss {tag}", "l1_loss", {"self": x, "target": t}, {"reduction": red},
                      lambda self, target: F.l1_loss(self, target, reduction=REDUCTIONS[red]))
            g = randn(*shape, dtype=dtype) if red == 0 else randn(dtype=dtype)
            for beta in [1.0, 0.5, 0.0]:
                grad_case(f"smooth_l1_loss {tag} beta={beta}", "smooth_l1_loss", {"self": x, "target": t},
                          {"reduction": red, "beta": beta},
                          lambda self, target: F.smooth_l1_loss(self, target, reduction=REDUCTIONS[red], beta=beta))
                case(f"smooth_l1_loss_backward {tag} beta={beta}", "smooth_l1_loss_backward",
                     {"grad_output": g, "self": x, "target": t}, {"reduction": red, "beta": beta},
                     aten.smooth_l1_loss_backward(g, x, t, red, beta))
            for delta in [1.0, 0.3, 2.5]:
                grad_case(f"huber_loss {tag} delta={delta}", "huber_loss", {"self": x, "target": t},
                          {"reduction": red, "delta": delta},
                          lambda self, target: F.huber_loss(self, target, reduction=REDUCTIONS[red], delta=delta))
                case(f"huber_loss_backward {tag} delta={delta}", "huber_loss_backward",
                     {"grad_output": g, "self": x, "target": t}, {"reduction": red, "delta": delta},
                     aten.huber_loss_backward(g, x, t, red, delta))


def bce_cases(dtype):
    d = DTYPES[dtype]
    p = torch.sigmoid(randn(4, 3, dtype=dtype, scale=2.0))
    y = torch.rand(4, 3, dtype=torch.float64).to(dtype)
    w = torch.rand(3, dtype=torch.float64).add(0.2).to(dtype)
    logits = randn(4, 3, dtype=dtype, scale=3.0)
    pos = torch.rand(3, dtype=torch.float64).mul(3).to(dtype)
    for red in [0, 1, 2]:
        for weight in [None, w]:
            tag = f"{d} reduction={red} weight={weight is not None}"
            grad_case(f"binary_cross_entropy {tag}", "binary_cross_entropy", {"self": p, "target": y, "weight": weight},
                      {"reduction": red}, lambda self, target, weight: aten.binary_cross_entropy(self, target, weight, red))
            g = randn(4, 3, dtype=dtype) if red == 0 else randn(dtype=dtype)
            case(f"binary_cross_entropy_backward {tag}", "binary_cross_entropy_backward",
                 {"grad_output": g, "self": p, "target": y, "weight": weight}, {"reduction": red},
                 aten.binary_cross_entropy_backward(g, p, y, weight, red))
            for pos_weight in [None, pos]:
                grad_case(f"binary_cross_entropy_with_logits {tag} pos_weight={pos_weight is not None}",
                          "binary_cross_entropy_with_logits",
                          {"self": logits, "target": y, "weight": weight, "pos_weight": pos_weight}, {"reduction": red},
                          lambda self, target, weight, pos_weight: F.binary_cross_entropy_with_logits(
                              self, target, weight, reduction=REDUCTIONS[red], pos_weight=pos_weight))
    # probabilities of exactly 0 and 1: the logs are clamped at -100
    edge = torch.tensor([0.0, 1.0, 0.0, 1.0, 0.5], dtype=dtype)
    edge_y = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.25], dtype=dtype)
    case(f"binary_cross_entropy {d} at 0 and 1", "binary_cross_entropy", {"self": edge, "target": edge_y, "weight": None},
         {"reduction": 0}, F.binary_cross_entropy(edge, edge_y, reduction="none"))
    big = torch.tensor([-120.0, -30.0, 0.0, 30.0, 120.0], dtype=dtype)
    case(f"binary_cross_entropy_with_logits {d} large logits", "binary_cross_entropy_with_logits",
         {"self": big, "target": edge_y, "weight": None, "pos_weight": None}, {"reduction": 0},
         F.binary_cross_entropy_with_logits(big, edge_y, reduction="none"))


def kl_div_cases(dtype):
    d = DTYPES[dtype]
    lp = torch.log_softmax(randn(3, 4, dtype=dtype), 1)
    q = torch.softmax(randn(3, 4, dtype=dtype), 1)
    q[0, 1] = 0.0  # 0 log 0 = 0
    lq = torch.log_softmax(randn(3, 4, dtype=dtype), 1)
    for red in [0, 1, 2]:
        grad_case(f"kl_div {d} reduction={red}", "kl_div", {"self": lp, "target": q}, {"reduction": red, "log_target": False},
                  lambda self, target: torch.kl_div(self, target, red))
        grad_case(f"kl_div {d} reduction={red} log_target", "kl_div", {"self": lp, "target": lq},
                  {"reduction": red, "log_target": True}, lambda self, target: torch.kl_div(self, target, red, log_target=True))
    a, b = randn(3, 4, dtype=dtype), torch.rand(3, 4, dtype=torch.float64).to(dtype)
    b[1, 2] = 0.0
    b[2, 0] = float("nan")
    grad_case(f"xlogy {d}", "xlogy", {"self": b, "other": a.abs()}, {}, lambda self, other: torch.xlogy(self, other))
    grad_case(f"xlogy {d} number", "xlogy", {"self": b}, {"other": 2.5}, lambda self: torch.xlogy(self, 2.5))


def margin_cases(dtype):
    d = DTYPES[dtype]
    x1, x2 = randn(5, 4, dtype=dtype), randn(5, 4, dtype=dtype)
    y = torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0], dtype=dtype)
    for red in [0, 1, 2]:
        for margin in [0.0, 0.3]:
            tag = f"{d} reduction={red} margin={margin}"
            grad_case(f"cosine_embedding_loss {tag}", "cosine_embedding_loss", {"input1": x1, "input2": x2, "target": y},
                      {"margin": margin, "reduction": red},
                      lambda input1, input2, target: F.cosine_embedding_loss(input1, input2, target, margin,
                                                                             reduction=REDUCTIONS[red]))
            grad_case(f"margin_ranking_loss {tag}", "margin_ranking_loss",
                      {"input1": x1[:, 0].contiguous(), "input2": x2[:, 0].contiguous(), "target": y},
                      {"margin": margin, "reduction": red},
                      lambda input1, input2, target: F.margin_ranking_loss(input1, input2, target, margin,
                                                                           reduction=REDUCTIONS[red]))
    grad_case(f"cosine_embedding_loss {d} (D) with a 0-d target", "cosine_embedding_loss",
              {"input1": x1[0].contiguous(), "input2": x2[0].contiguous(), "target": torch.tensor(-1.0, dtype=dtype)},
              {"margin": -0.5, "reduction": 1},
              lambda input1, input2, target: F.cosine_embedding_loss(input1, input2, target, -0.5))
    anchor, pos, neg = randn(5, 4, dtype=dtype), randn(5, 4, dtype=dtype), randn(5, 4, dtype=dtype)
    for red in [0, 1, 2]:
        for p, swap, margin in [(2.0, False, 1.0), (1.0, True, 0.5), (3.0, True, 2.0)]:
            grad_case(f"triplet_margin_loss {d} reduction={red} p={p} swap={swap} margin={margin}", "triplet_margin_loss",
                      {"anchor": anchor, "positive": pos, "negative": neg},
                      {"margin": margin, "p": p, "eps": 1e-6, "swap": swap, "reduction": red},
                      lambda anchor, positive, negative: F.triplet_margin_loss(
                          anchor, positive, negative, margin, p, 1e-6, swap, reduction=REDUCTIONS[red]))


def distance_cases(dtype):
    d = DTYPES[dtype]
    x1, x2 = randn(5, 4, dtype=dtype), randn(5, 4, dtype=dtype)
    for p, eps, keepdim in [(2.0, 1e-6, False), (1.0, 0.0, True), (3.0, 1e-3, False)]:
        grad_case(f"pairwise_distance {d} p={p} eps={eps} keepdim={keepdim}", "pairwise_distance", {"x1": x1, "x2": x2},
                  {"p": p, "eps": eps, "keepdim": keepdim},
                  lambda x1, x2: F.pairwise_distance(x1, x2, p, eps, keepdim))
    grad_case(f"pairwise_distance {d} broadcast (D)", "pairwise_distance", {"x1": x1, "x2": x2[0].contiguous()},
              {"p": 2.0, "eps": 1e-6, "keepdim": False}, lambda x1, x2: F.pairwise_distance(x1, x2))
    zero = x2.clone()
    zero[2] = 0.0
    for dim in [1, 0, -1]:
        grad_case(f"cosine_similarity {d} dim={dim}", "cosine_similarity", {"x1": x1, "x2": zero}, {"dim": dim, "eps": 1e-8},
                  lambda x1, x2: F.cosine_similarity(x1, x2, dim, 1e-8))
    x3 = randn(2, 3, 4, dtype=dtype)
    grad_case(f"cosine_similarity {d} broadcast, eps=0.5", "cosine_similarity", {"x1": x3, "x2": x2[0, :4].contiguous()},
              {"dim": -1, "eps": 0.5}, lambda x1, x2: F.cosine_similarity(x1, x2, -1, 0.5))


def one_hot_cases():
    for t, n in [(torch.tensor([0, 2, 1, 2]), -1), (torch.tensor([[3, 0], [1, 1]]), 5), (torch.tensor(2), -1),
                 (torch.zeros(0, dtype=torch.int64), 3)]:
        case(f"one_hot {list(t.shape)} num_classes={n}", "one_hot", {"self": t}, {"num_classes": n}, F.one_hot(t, n))


def main():
    torch.manual_seed(0)
    for dtype in [torch.float32, torch.float64]:
        softmax_cases(dtype)
        nll_cases(dtype)
        cross_entropy_cases(dtype)
        mse_cases(dtype)
    torch.manual_seed(1)
    for dtype in [torch.float32, torch.float64]:
        cross_entropy_grad_cases(dtype)
        pointwise_loss_cases(dtype)
        bce_cases(dtype)
        kl_div_cases(dtype)
        margin_cases(dtype)
        distance_cases(dtype)
    one_hot_cases()
    here = os.path.dirname(os.path.abspath(__file__))
    os.makedirs(os.path.join(here, "data"), exist_ok=True)
    write_cases(os.path.join(here, "data", "loss_cases.json"), "tests/ops/gen_loss_cases.py", CASES)


if __name__ == "__main__":
    main()
