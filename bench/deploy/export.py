#!/usr/bin/env python3
"""bench/deploy/export.py OUT_DIR — run with /usr/bin/python3 (PyTorch 1.13.1): the comparison partners'
models for bench/deploy/compare, from the same resnet18 weights examples/deploy's test loads
(tests/parity/export_torchvision.py: torchvision's init from seed 0, batch norms randomized), with
examples/deploy's preprocessing (bilinear resize to 224 x 224, align_corners=False; ImageNet normalization)
inside the model: OUT_DIR/resnet18.safetensors (torchless), resnet18_deploy.pt (a frozen TorchScript module,
LibTorch), resnet18_deploy.onnx (ONNX Runtime), and sample.ppm (examples/deploy/sample.png as a binary PPM)."""
import os
import sys

import numpy as np
import torch
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "parity"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from convert_torchvision import save_safetensors  # noqa: E402
from export_torchvision import make_resnet  # noqa: E402


class Deployed(torch.nn.Module):
    """examples/deploy's preprocessing, then the classifier."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, image):
        x = torch.nn.functional.interpolate(image, size=(224, 224), mode="bilinear", align_corners=False)
        return self.model((x - self.mean) / self.std)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    model, _ = make_resnet("resnet18")
    save_safetensors(model.state_dict(), os.path.join(out, "resnet18.safetensors"), {"arch": "resnet18"})
    deployed = Deployed(model).eval()
    png = os.path.join(ROOT, "examples", "deploy", "sample.png")
    Image.open(png).convert("RGB").save(os.path.join(out, "sample.ppm"))
    rgb = torch.from_numpy(np.asarray(Image.open(png).convert("RGB")).copy())
    example = rgb.permute(2, 0, 1).float().div(255).unsqueeze(0)
    frozen = torch.jit.freeze(torch.jit.script(deployed))
    frozen.save(os.path.join(out, "resnet18_deploy.pt"))
    torch.onnx.export(deployed, example, os.path.join(out, "resnet18_deploy.onnx"), input_names=["image"],
                      output_names=["logits"], dynamic_axes={"image": {2: "height", 3: "width"}}, opset_version=13)


if __name__ == "__main__":
    main()
