#!/usr/bin/env python3
"""Regenerates tests/reference/autocast.json, PyTorch 1.13's CPU autocast (bfloat16) for tests/ops/test_autocast.cpp:
- "dtypes": the result dtype of each op call under torch.autocast("cpu", dtype=torch.bfloat16), inputs of
  the dtypes given (the C++ test makes the same calls by name);
- "step": a small CNN (two convs, batch norm, ReLU, max pool, linear, cross entropy) with fixed weights and batch,
  its forward and loss under autocast: the loss, every parameter's gradient and the running statistics.
Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_autocast_references.py"""
import json
import pathlib

import torch
import torch.nn.functional as F
from torch import nn

HERE = pathlib.Path(__file__).resolve().parent
BF, F32, F64 = torch.bfloat16, torch.float32, torch.float64
NAMES = {BF: "bfloat16", F32: "float32", F64: "float64"}


def t(*shape, dtype=F32):
    return torch.randn(*shape).to(dtype)


def labels():
    return torch.tensor([0, 1, 2, 3])


# name -> (input dtypes, call); the C++ test has the same names and calls.
CALLS = {
    "conv2d": ([F32, F32, F32], lambda a, b, c: F.conv2d(a, b, c, padding=1), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    "conv2d_float64": ([F64, F64], lambda a, b: F.conv2d(a, b), [(1, 3, 5, 5), (2, 3, 3, 3)]),
    "conv2d_mixed": ([F32, BF], lambda a, b: F.conv2d(a, b), [(1, 3, 5, 5), (2, 3, 3, 3)]),
    "linear": ([F32, F32, F32], F.linear, [(3, 4), (5, 4), (5,)]),
    "linear_no_bias": ([F32, F32], F.linear, [(3, 4), (5, 4)]),
    "mm": ([F32, F32], torch.mm, [(3, 4), (4, 5)]),
    "bmm": ([F32, F32], torch.bmm, [(2, 3, 4), (2, 4, 5)]),
    "addmm": ([F32, F32, F32], torch.addmm, [(5,), (3, 4), (4, 5)]),
    "matmul": ([F32, F32], torch.matmul, [(3, 4), (4,)]),
    "cross_entropy": ([BF], lambda a: F.cross_entropy(a, labels()), [(4, 5)]),
    "nll_loss": ([BF], lambda a: F.nll_loss(a, labels()), [(4, 5)]),
    "mse_loss": ([BF, BF], F.mse_loss, [(4, 5), (4, 5)]),
    "l1_loss": ([BF, BF], F.l1_loss, [(4, 5), (4, 5)]),
    "smooth_l1_loss": ([BF, BF], F.smooth_l1_loss, [(4, 5), (4, 5)]),
    "huber_loss": ([BF, BF], F.huber_loss, [(4, 5), (4, 5)]),
    "binary_cross_entropy": ([BF, BF], lambda a, b: F.binary_cross_entropy(a.sigmoid(), b.sigmoid()), [(4, 5), (4, 5)]),
    "binary_cross_entropy_with_logits": ([BF, BF], lambda a, b: F.binary_cross_entropy_with_logits(a, b.sigmoid()),
                                         [(4, 5), (4, 5)]),
    "kl_div": ([BF, BF], lambda a, b: F.kl_div(a, b, reduction="sum"), [(4, 5), (4, 5)]),
    "cosine_embedding_loss": ([BF, BF, BF], F.cosine_embedding_loss, [(4, 5), (4, 5), (4,)]),
    "margin_ranking_loss": ([BF, BF, BF], F.margin_ranking_loss, [(4,), (4,), (4,)]),
    "triplet_margin_loss": ([BF, BF, BF], F.triplet_margin_loss, [(4, 5), (4, 5), (4, 5)]),
    "pairwise_distance": ([BF, BF], F.pairwise_distance, [(4, 5), (4, 5)]),
    "cosine_similarity": ([BF, BF], F.cosine_similarity, [(4, 5), (4, 5)]),
    "xlogy": ([BF, BF], torch.xlogy, [(4, 5), (4, 5)]),
    "relu": ([BF], F.relu, [(4, 5)]),
    "add_mixed": ([BF, F32], torch.add, [(4, 5), (4, 5)]),
    "log_softmax": ([BF], lambda a: F.log_softmax(a, 1), [(4, 5)]),
    "sum": ([BF], torch.sum, [(4, 5)]),
    "batch_norm_float32": ([F32], lambda a: F.batch_norm(a, torch.zeros(3), torch.ones(3), training=True),
                           [(2, 3, 4, 4)]),
}
# Calls added after the step's numbers were fixed: their inputs are drawn under fork_rng, so the stream the
# step reads stays as it was.
LATER_CALLS = {
    "layer_norm_bfloat16": ([BF], lambda a: F.layer_norm(a, (5,)), [(4, 5)]),
    "layer_norm_float32": ([F32, F32, F32], lambda a, b, c: F.layer_norm(a, (5,), b, c), [(4, 5), (5,), (5,)]),
}


class Net(nn.Module):
    """conv1 has no bias: batch norm right after it would make the bias's gradient zero, and what two
    implementations return for it is rounding noise; conv2's bias has a real gradient."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 4)

    def forward(self, x):
        h = F.relu(self.conv2(F.relu(self.bn(self.conv1(x)))))
        return self.fc(F.max_pool2d(h, 2).flatten(1))


def flat(x):
    return [float(v) for v in x.detach().float().reshape(-1)]


def main():
    torch.manual_seed(0)
    dtypes = {}
    for name, (in_dtypes, fn, shapes) in CALLS.items():
        args = [t(*s, dtype=d) for s, d in zip(shapes, in_dtypes)]
        with torch.autocast("cpu", dtype=BF):
            dtypes[name] = NAMES[fn(*args).dtype]
    with torch.autocast("cpu", dtype=BF):
        with torch.autocast("cpu", enabled=False):
            dtypes["conv2d_in_disabled_scope"] = NAMES[F.conv2d(t(1, 3, 5, 5), t(2, 3, 3, 3)).dtype]
    with torch.random.fork_rng():
        for name, (in_dtypes, fn, shapes) in LATER_CALLS.items():
            args = [t(*s, dtype=d) for s, d in zip(shapes, in_dtypes)]
            with torch.autocast("cpu", dtype=BF):
                dtypes[name] = NAMES[fn(*args).dtype]

    torch.manual_seed(0)  # the step's draws do not depend on how many calls the table above has
    net = Net()
    with torch.no_grad():
        net.bn.weight.uniform_(0.5, 1.5)
        net.bn.bias.uniform_(-0.5, 0.5)
    x = t(4, 1, 8, 8)
    y = torch.tensor([0, 3, 1, 2])
    init = {k: flat(v) for k, v in net.state_dict().items() if v.dtype.is_floating_point}
    with torch.autocast("cpu", dtype=BF):
        logits = net(x)
        loss = F.cross_entropy(logits, y)
    loss.backward()
    step = {
        "input": flat(x), "target": y.tolist(), "init": init,
        "logits_dtype": NAMES[logits.dtype], "loss_dtype": NAMES[loss.dtype], "loss": float(loss),
        "grads": {k: flat(p.grad) for k, p in net.named_parameters()},
        "grad_dtypes": {k: NAMES[p.grad.dtype] for k, p in net.named_parameters()},
        "running_mean": flat(net.bn.running_mean), "running_var": flat(net.bn.running_var),
    }
    (HERE / "autocast.json").write_text(json.dumps({"dtypes": dtypes, "step": step}, indent=1) + "\n")


if __name__ == "__main__":
    main()
