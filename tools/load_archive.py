#!/usr/bin/env python3
"""tools/load_archive.py — reads what torchless's tl::serialize::OutputArchive saves (nn/archive.h): a
safetensors file whose __metadata__ entry "torchless.archive" lists every key in order with its type.

    from load_archive import load, under
    ckpt = load("checkpoint.safetensors")      # {"epoch": 3, "model.fc.weight": tensor, ...}
    model.load_state_dict(under(ckpt, "model"))
    optimizer.load_state_dict(optimizer_state_dict(ckpt, "optimizer"))
    epoch = ckpt["epoch"]

Tensors come back as torch tensors (numpy arrays when torch is not installed, or with numpy=True),
ints as int, floats as float, bools as bool, strings as str, bytes (tl::get_rng_state()'s) as a uint8
tensor (array), which torch.set_rng_state takes, in the order they were written. Needs only
numpy (and torch for torch tensors and bfloat16); a path ending in .gz is gunzipped first, as torchless
gzips it. As a command, prints each key, its type and value.
usage: load_archive.py FILE"""
import gzip
import json
import struct
import sys

import numpy as np

ENTRY = "torchless.archive"
DTYPES = {"F64": np.float64, "F32": np.float32, "I64": np.int64, "I32": np.int32, "BOOL": np.bool_,
          "BF16": np.uint16}  # bfloat16's bits, widened to float32 below


def _tensor(raw, info, as_numpy):
    array = np.frombuffer(raw, dtype=np.dtype(DTYPES[info["dtype"]]).newbyteorder("<")).reshape(info["shape"])
    if info["dtype"] == "BF16":
        widened = (array.astype(np.uint32) << 16).view(np.float32)
        if as_numpy:
            return widened
        import torch
        return torch.from_numpy(widened.copy()).to(torch.bfloat16)
    array = array.astype(array.dtype.newbyteorder("="))
    if as_numpy:
        return array
    import torch
    return torch.from_numpy(array.copy())


def _value(kind, text, as_numpy):
    if kind == "bytes":
        array = np.frombuffer(bytes.fromhex(text), dtype=np.uint8)
        if as_numpy:
            return array
        import torch
        return torch.from_numpy(array.copy())
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "bool":
        if text not in ("True", "False"):
            raise ValueError(f"bool entry holds {text!r}")
        return text == "True"
    if kind == "str":
        return text
    raise ValueError(f"unknown entry type {kind!r}")


def load(path, numpy=False):
    """The archive at `path` as a dict in the order its keys were written. Raises ValueError for a file
    that is not a torchless archive (no header, no "torchless.archive" entry, a tensor outside the file)."""
    try:
        import torch  # noqa: F401
        as_numpy = numpy
    except ImportError:
        as_numpy = True
    with open(path, "rb") as f:
        data = f.read()
    if str(path).endswith(".gz"):  # as torchless writes a path ending in .gz
        data = gzip.decompress(data)
    if len(data) < 8:
        raise ValueError(f"{path}: shorter than a safetensors header")
    (length,) = struct.unpack("<Q", data[:8])
    if 8 + length > len(data):
        raise ValueError(f"{path}: the header runs past the end of the file")
    header = json.loads(data[8:8 + length])
    metadata = header.pop("__metadata__", {}) or {}
    if ENTRY not in metadata:
        raise ValueError(f"{path}: not a torchless archive (no {ENTRY!r} entry in __metadata__)")
    archive = json.loads(metadata[ENTRY])
    if archive.get("version") != 1:
        raise ValueError(f"{path}: expected archive version 1, got {archive.get('version')!r}")
    body = data[8 + length:]
    out = {}
    for entry in archive["entries"]:
        key, kind = entry[0], entry[1]
        if kind == "tensor":
            info = header.pop(key)
            begin, end = info["data_offsets"]
            if end > len(body):
                raise ValueError(f"{path}: tensor {key!r} runs past the end of the file")
            out[key] = _tensor(body[begin:end], info, as_numpy)
        else:
            out[key] = _value(kind, entry[2], as_numpy)
    if header:
        raise ValueError(f"{path}: tensor {next(iter(header))!r} has no entry in the archive")
    return out


def under(archive, prefix):
    """The entries under "<prefix>." with the prefix taken off (a model's state dict), in order."""
    start = prefix + "."
    return {key[len(start):]: value for key, value in archive.items() if key.startswith(start)}


# Hyper-parameters torchless keeps as numbers that PyTorch's param groups hold as bools.
FLAGS = ("amsgrad", "maximize", "nesterov", "centered", "foreach", "capturable", "differentiable", "fused")


def optimizer_state_dict(archive, prefix):
    """The optimizer state dict torchless's optim::write(archive, prefix, dict) added, in PyTorch's layout
    ({"state": {index: {name: tensor}}, "param_groups": [{"params": [...], "lr": ..., ...}]}) for
    torch.optim.<kind>.load_state_dict: beta1 / beta2 become betas, 0/1 flags become bools."""
    groups = json.loads(archive[prefix + ".param_groups"])["param_groups"]
    param_groups = []
    for group in groups:
        out = {}
        for key, value in group.items():
            if key in ("beta1", "beta2"):
                out["betas"] = (group["beta1"], group["beta2"])
            elif key in FLAGS:
                out[key] = bool(value)
            else:
                out[key] = value
        param_groups.append(out)
    state = {}
    for key, value in under(archive, prefix + ".state").items():
        index, name = key.split(".", 1)
        state.setdefault(int(index), {})[name] = value
    return {"state": state, "param_groups": param_groups}


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    for key, value in load(argv[1]).items():
        if hasattr(value, "shape"):
            print(f"{key}: tensor {value.dtype} {tuple(value.shape)}")
        else:
            print(f"{key}: {type(value).__name__} {value!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
