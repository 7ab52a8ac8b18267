#!/usr/bin/env python3
"""Converts a PyTorch checkpoint (a torchvision .pth state dict) to .safetensors for torchless.

    python3 tools/convert_torchvision.py resnet18-f37072fd.pth resnet18.safetensors

then in C++: `auto m = tl::models::resnet18(); tl::nn::load(*m, "resnet18.safetensors");`.
Needs only torch: the file is written by save_safetensors below, following the safetensors format.
"""
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


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} CHECKPOINT.pth OUTPUT.safetensors")
    state = torch.load(sys.argv[1], map_location="cpu")
    state = state.get("state_dict", state)  # training scripts often wrap the weights
    tensors = {name: t for name, t in state.items() if isinstance(t, torch.Tensor)}
    save_safetensors(tensors, sys.argv[2], {"format": "pt", "source": os.path.basename(sys.argv[1])})
    print(f"wrote {len(tensors)} tensors to {sys.argv[2]}")


if __name__ == "__main__":
    main()
