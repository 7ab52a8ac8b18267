#!/usr/bin/env python3
"""tests/distributed/gen_ddp_cases.py — PyTorch 1.13's DistributedDataParallel facts that tests/distributed/
test_ddp.cpp checks: print(ddp) of a small CNN, and the bucket assignment DDP's reducer uses once it has seen the
gradients arrive in reverse parameter order (c10d's _compute_bucket_assignment_by_size over the reversed
parameters, limits [_DEFAULT_FIRST_BUCKET_BYTES, bucket_cap_mb]), for an MLP at three caps.
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


def main():
    out = pathlib.Path(__file__).parent / "data" / "ddp_cases.json"
    with tempfile.TemporaryDirectory() as tmp:
        dist.init_process_group("gloo", init_method="file://" + os.path.join(tmp, "store"), world_size=1, rank=0)
        ddp = nn.parallel.DistributedDataParallel(cnn())
        cases = {"cnn_repr": repr(ddp), "cnn_state_dict_keys": list(ddp.state_dict().keys())}
        dist.destroy_process_group()
    params = list(mlp().parameters())
    reversed_params = params[::-1]
    buckets = {}
    for cap_mb in [25, 0.5, 0.01]:
        indices, _ = dist._compute_bucket_assignment_by_size(
            reversed_params, [dist._DEFAULT_FIRST_BUCKET_BYTES, int(cap_mb * 1024 * 1024)])
        buckets[str(cap_mb)] = [[len(params) - 1 - i for i in bucket] for bucket in indices]
    cases["mlp_buckets"] = buckets
    out.write_text(json.dumps(cases, indent=1) + "\n")


if __name__ == "__main__":
    main()
