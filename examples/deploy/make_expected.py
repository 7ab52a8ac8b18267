#!/usr/bin/env python3
"""examples/deploy/make_expected.py — run with /usr/bin/python3 (PyTorch 1.13.1): writes sample.png (a small
synthetic RGB picture) and expected.txt, PyTorch's top 5 classes ("index logit") for it from the resnet18
weights tests/parity/export_torchvision.py exports (torchvision's init from seed 0, batch norms randomized),
preprocessed as deploy.cpp does: bilinear resize to 224 x 224 (align_corners=False), ImageNet normalization."""
import os
import sys

import numpy as np
import torch
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "parity"))
from export_torchvision import make_resnet  # noqa: E402


def sample_image():
    """A 96 x 128 picture: colour gradients and a bright disc, the same on every run."""
    y, x = np.mgrid[0:96, 0:128].astype(np.float32)
    r = 255 * x / 127
    g = 255 * y / 95
    b = np.where((x - 80) ** 2 + (y - 40) ** 2 < 20 ** 2, 255.0, 60.0)
    return Image.fromarray(np.stack([r, g, b], axis=-1).round().astype(np.uint8), "RGB")


def main():
    png = os.path.join(HERE, "sample.png")
    sample_image().save(png, optimize=True)
    rgb = torch.from_numpy(np.asarray(Image.open(png).convert("RGB")).copy())
    x = rgb.permute(2, 0, 1).float().div(255).unsqueeze(0)
    x = torch.nn.functional.interpolate(x, size=(224, 224), mode="bilinear", align_corners=False)
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    model, _ = make_resnet("resnet18")
    with torch.no_grad():
        logits = model((x - mean) / std)
    values, indices = logits.topk(6, 1)
    gaps = (values[0, :5] - values[0, 1:6]).tolist()
    print(f"top 5 {indices[0, :5].tolist()}, smallest logit gap to the next class {min(gaps):.2e}")
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        for i in range(5):
            f.write(f"{indices[0, i].item()} {values[0, i].item():.6f}\n")


if __name__ == "__main__":
    main()
