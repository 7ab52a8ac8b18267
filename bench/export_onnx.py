#!/usr/bin/python3
"""bench/export_onnx.py — writes torchvision's ResNet18 (eval mode, random weights: the timing does not
depend on them) as rn18_b<N>.onnx for each batch size, the models bench/ort_partner.js times. Run with
/usr/bin/python3 (PyTorch 1.13).

usage: export_onnx.py DIR [BATCH...]      (default batches 1 5 10)"""
import os
import sys

import torch
import torchvision


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    batches = [int(b) for b in sys.argv[2:]] or [1, 5, 10]
    model = torchvision.models.resnet18().eval()
    for batch in batches:
        path = os.path.join(out_dir, f"rn18_b{batch}.onnx")
        torch.onnx.export(model, torch.randn(batch, 3, 224, 224), path, input_names=["x"], output_names=["y"],
                          opset_version=13)
        print(f"export_onnx: wrote {path}")


if __name__ == "__main__":
    main()
