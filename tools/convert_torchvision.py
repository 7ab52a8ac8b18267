#!/usr/bin/env python3
"""Converts a PyTorch checkpoint (a torchvision .pth state dict) to .safetensors for torchless.

    python3 tools/convert_torchvision.py resnet18-f37072fd.pth resnet18.safetensors
    python3 tools/convert_torchvision.py checkpoint.pth model.safetensors --key model

then in C++: `auto m = tl::models::resnet18(); tl::nn::load(*m, "resnet18.safetensors");`.
The file holds a state dict ({name: tensor}), a whole module (torch.save(model)), or a training
checkpoint dict ({"model": ..., "optimizer": ..., "epoch": ...}) whose part to convert --key names (a
dict with a "state_dict" entry converts that entry). Anything else is refused with what the file holds.
Needs only torch: the file is written by save_safetensors below, following the safetensors format.
"""
import argparse
import json
import os
import struct
import sys

import torch

# In descending alignment: the reference writer orders entries this way, then by name.
_DTYPE_CODES = {torch.int64: "I64", torch.float64: "F64", torch.float32: "F32",
                torch.int32: "I32", torch.bfloat16: "BF16", torch.bool: "BOOL"}


def save_safetensors(tensors, path, metadata=None):
    """Writes {name: tensor} to `path`: 8-byte little-endian header length, the JSON header padded
    with spaces to a multiple of 8, then each tensor's C-contiguous little-endian bytes."""
    order = list(_DTYPE_CODES)
    for name, t in tensors.items():
        if t.dtype not in _DTYPE_CODES:
            raise ValueError(f"{name}: dtype {t.dtype} is not supported by torchless")
    items = sorted(tensors.items(), key=lambda item: (order.index(item[1].dtype), item[0]))
    header = {"__metadata__": dict(metadata)} if metadata else {}
    blobs, offset = [], 0
    for name, t in items:
        blob = t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": _DTYPE_CODES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def describe(obj):
    """What a loaded object is, for an error message: a dict shows its keys and their kinds."""
    if isinstance(obj, dict):
        kinds = {k: type(v).__name__ for k, v in obj.items()}
        return f"a dict with keys {kinds}"
    return f"a value of type {type(obj).__name__}"


def state_dict_of(obj, key, source):
    """The {name: tensor} part of a loaded checkpoint; exits with a message naming what it holds when
    there is none or when --key is needed."""
    if isinstance(obj, torch.nn.Module):
        obj = obj.state_dict()
    if key is not None:
        if not isinstance(obj, dict) or key not in obj:
            sys.exit(f"{source}: --key {key!r} names nothing: the file holds {describe(obj)}")
        obj = obj[key]
        if isinstance(obj, torch.nn.Module):
            obj = obj.state_dict()
    elif isinstance(obj, dict) and isinstance(obj.get("state_dict"), dict):
        obj = obj["state_dict"]  # training scripts often wrap the weights so
    if not isinstance(obj, dict):
        sys.exit(f"{source}: expected a state dict ({{name: tensor}}), got {describe(obj)}")
    others = [k for k, v in obj.items() if not isinstance(v, torch.Tensor)]
    if others:
        parts = [k for k, v in obj.items() if isinstance(v, (dict, torch.nn.Module))]
        hint = f"; name the part to convert with --key (one of {parts})" if parts else ""
        sys.exit(f"{source}: not a state dict: {others} are not tensors (the file holds {describe(obj)}){hint}")
    if not obj:
        sys.exit(f"{source}: holds no tensors")
    return obj


def main():
    parser = argparse.ArgumentParser(description="Converts a PyTorch checkpoint to .safetensors for torchless.")
    parser.add_argument("checkpoint", help="a .pth file: a state dict, a module, or a checkpoint dict")
    parser.add_argument("output", help="the .safetensors file to write")
    parser.add_argument("--key", help="the entry of a checkpoint dict that holds the state dict (e.g. model)")
    args = parser.parse_args()
    tensors = state_dict_of(torch.load(args.checkpoint, map_location="cpu"), args.key, args.checkpoint)
    save_safetensors(tensors, args.output, {"format": "pt", "source": os.path.basename(args.checkpoint)})
    print(f"wrote {len(tensors)} tensors to {args.output}")


if __name__ == "__main__":
    main()
