#!/usr/bin/python3
"""tests/ops/gen_loss_cases.py — PyTorch 1.13's values for the softmax and loss ops.

Writes tests/ops/data/loss_cases.json, read by tests/ops/test_loss.cpp and test_softmax.cpp: each case
names an op (its aten name), its inputs (dtype, shape, values as Python float reprs), its non-tensor
arguments and what PyTorch returns. Inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/ops/gen_loss_cases.py
"""
import json
import os

import torch
import torch.nn.functional as F

aten = torch.ops.aten
DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64"}
CASES = []


def enc(t):
    if t is None:
        return None
    values = t.flatten().double().tolist() if t.is_floating_point() else t.flatten().tolist()
    return {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "values": [repr(v) for v in values]}


def case(name, op, inputs, args, outputs):
    outs = list(outputs) if isinstance(outputs, tuple) else [outputs]
    CASES.append({"name": name, "op": op, "inputs": {k: enc(v) for k, v in inputs.items()}, "args": args,
                  "outputs": [enc(o) for o in outs]})


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


def main():
    torch.manual_seed(0)
    for dtype in [torch.float32, torch.float64]:
        softmax_cases(dtype)
        nll_cases(dtype)
        cross_entropy_cases(dtype)
        mse_cases(dtype)
    here = os.path.dirname(os.path.abspath(__file__))
    os.makedirs(os.path.join(here, "data"), exist_ok=True)
    with open(os.path.join(here, "data", "loss_cases.json"), "w") as f:
        json.dump({"generator": "tests/ops/gen_loss_cases.py", "torch": torch.__version__, "cases": CASES}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
