#!/usr/bin/env python3
"""tests/distributed/gen_ddp_cases.py — PyTorch 1.13's DistributedDataParallel facts that tests/distributed/
test_ddp.cpp checks: print(ddp) of a small CNN, and, from DDP's own logging data, its buckets at construction
(one without find_unused_parameters; from the parameters' order with it) and as rebuilt after the first backward
in the order the gradients arrived (an MLP at three caps, and a model whose gradients do not arrive in reverse
parameter order).
Run with /usr/bin/python3 (PyTorch 1.13.1): writes tests/distributed/data/ddp_cases.json."""
import json
import os
import pathlib
import tempfile

import torch
import torch.distributed as dist
from torch import nn


def cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 10))


def mlp():
    return nn.Sequential(nn.Linear(64, 300), nn.ReLU(), nn.Linear(300, 500), nn.ReLU(), nn.Linear(500, 600))


def mlp_without_bias():
    return nn.Sequential(nn.Linear(64, 300, bias=False), nn.ReLU(), nn.Linear(300, 500, bias=False), nn.ReLU(),
                         nn.Linear(500, 600, bias=False))


class OutOfOrder(nn.Module):
    """Registered c, a, b; used a -> b -> c: gradients arrive c, b, a, not in reverse parameter order. No biases: a
    layer's weight and bias become ready in the order an autograd engine runs their AccumulateGrads (PyTorch's: the
    bias first), which data dependencies do not fix."""

    def __init__(self):
        super().__init__()
        self.c = nn.Linear(500, 600, bias=False)
        self.a = nn.Linear(64, 300, bias=False)
        self.b = nn.Linear(300, 500, bias=False)

    def forward(self, x):
        return self.c(torch.relu(self.b(torch.relu(self.a(x)))))


def bucket_facts(model, find_unused, cap_mb=0.5):
    """DDP's buckets (parameter indices, reduction order) before the first backward and, without
    find_unused_parameters, as rebuilt from the order the first backward produced the gradients in."""
    torch.manual_seed(0)
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap_mb, find_unused_parameters=find_unused)
    sizes = [p.numel() * p.element_size() for p in model.parameters()]
    initial = [int(b) for b in ddp._get_ddp_logging_data()["bucket_sizes"].split(", ")]
    # DDP's logger samples its runtime statistics (the rebuilt buckets among them) in the first ten iterations.
    for _ in range(10):
        ddp(torch.randn(3, 64)).sum().backward()
    data = ddp._get_ddp_logging_data()
    facts = {"initial_bucket_bytes": initial, "parameter_bytes": sizes}
    if not find_unused:
        facts["rebuilt"] = [[int(i) for i in b.split()] for b in data["rebuilt_per_bucket_param_indices"].split(", ")]
    return facts


def main():
    out = pathlib.Path(__file__).parent / "data" / "ddp_cases.json"
    with tempfile.TemporaryDirectory() as tmp:
        dist.init_process_group("gloo", init_method="file://" + os.path.join(tmp, "store"), world_size=1, rank=0)
        ddp = nn.parallel.DistributedDataParallel(cnn())
        cases = {"cnn_repr": repr(ddp), "cnn_state_dict_keys": list(ddp.state_dict().keys())}
        dist.destroy_process_group()
    with tempfile.TemporaryDirectory() as tmp:
        dist.init_process_group("gloo", init_method="file://" + os.path.join(tmp, "store"), world_size=1, rank=0)
        cases["rebuild_out_of_order"] = bucket_facts(OutOfOrder(), False)
        cases["rebuild_mlp"] = {str(cap): bucket_facts(mlp_without_bias(), False, cap) for cap in [25, 0.5, 0.01]}
        cases["find_unused_mlp"] = bucket_facts(mlp(), True)
        dist.destroy_process_group()
    out.write_text(json.dumps(cases, indent=1) + "\n")


if __name__ == "__main__":
    main()
