"""tests/support/torch_cases.py — what the PyTorch case generators (tests/ops/gen_{sort,loss,index}_cases.py,
tests/nn/gen_{spatial,conv_pool}_cases.py) share: a tensor as the C++ loader (tests/ops/loss_cases.h) reads it,
and the writer of the cases file.
"""
import json

import torch

DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64", torch.int32: "int32",
          torch.bool: "bool", torch.bfloat16: "bfloat16"}


def enc(t):
    """A tensor as {dtype, shape, values as Python reprs}: floats through double, integers and bools as ints; None
    for None."""
    if t is None:
        return None
    values = t.flatten().double().tolist() if t.is_floating_point() else t.flatten().long().tolist()
    return {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "values": [repr(v) for v in values]}


def write_cases(path, generator, cases):
    """Writes {"generator", "torch", "cases"} to path as one line of JSON."""
    with open(path, "w") as f:
        json.dump({"generator": generator, "torch": torch.__version__, "cases": cases}, f)
        f.write("\n")
