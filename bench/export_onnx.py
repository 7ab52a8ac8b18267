#!/usr/bin/python3
"""bench/export_onnx.py — writes a torchvision classification model (torchvision.models.get_model(NAME), eval mode,
random weights: the timing does not depend on them) as <NAME>_b<N>.onnx for each batch size, at the model's input
size (pt_partner.input_size), the models bench/ort_partner.js times. Run with /usr/bin/python3 (PyTorch 1.13).

usage: export_onnx.py DIR [--model NAME] [BATCH...]      (defaults: resnet18, batches 1 5 10)"""
import argparse
import os
import sys

import torch

import pt_partner


def main():
    ap = argparse.ArgumentParser(usage=__doc__.rsplit("usage: ", 1)[1])
    ap.add_argument("dir")
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("batches", type=int, nargs="*", default=[1, 5, 10])
    a = ap.parse_intermixed_args()
    if not os.path.isdir(a.dir):
        sys.exit(f"export_onnx: {a.dir} is not a directory")
    try:
        model = pt_partner.build(a.model)
    except ValueError as e:  # torchvision's "Unknown model NAME"
        sys.exit(f"export_onnx: {e}")
    size = pt_partner.input_size(a.model)
    for batch in a.batches:
        path = os.path.join(a.dir, f"{a.model}_b{batch}.onnx")
        torch.onnx.export(model, torch.randn(batch, 3, size, size), path, input_names=["x"], output_names=["y"],
                          opset_version=13)
        print(f"export_onnx: wrote {path} ({batch} x 3 x {size} x {size})")


if __name__ == "__main__":
    main()
