#!/usr/bin/env python3
"""Regenerates tests/ao/data/prepare_cases.json, PyTorch 1.13's prepare_fx output for tests/ao/test_prepare.cpp:
print(prepared), prepared.code and the state_dict keys of torchvision's resnet18 and of a small model with
conv-bn-relu, add, cat, maxpool, flatten and linear-relu, each prepared with get_default_qconfig_mapping("onednn");
for the small model also its float weights, three calibration batches and, after running them, every observer's
min_val / max_val and calculate_qparams(). Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/ao/gen_prepare_cases.py"""
import json
import pathlib
import warnings

import torch
import torchvision
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import prepare_fx

from gen_ao_cases import HERE, flat, number


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.relu = torch.nn.ReLU()
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc1 = torch.nn.Linear(256, 32)
        self.fc_relu = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        a = self.relu(self.bn1(self.conv1(x)))
        b = self.conv2(a)
        c = a + b
        d = torch.cat([c, a], 1)
        e = self.pool(d)
        f = torch.flatten(e, 1)
        g = self.fc_relu(self.fc1(f))
        return self.fc2(g)


def prepared_texts(model, example):
    prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), (example,))
    return prepared, {"str": str(prepared), "code": prepared.code, "state_dict_keys": list(prepared.state_dict().keys())}


def main():
    torch.manual_seed(33)
    out = {}
    resnet = torchvision.models.resnet18().eval()
    _, out["resnet18"] = prepared_texts(resnet, torch.randn(1, 3, 224, 224))

    small = Small()
    with torch.no_grad():  # non-trivial batch norm statistics, so folding matters
        small.bn1.running_mean.uniform_(-0.5, 0.5)
        small.bn1.running_var.uniform_(0.5, 2.0)
        small.bn1.weight.uniform_(0.5, 1.5)
        small.bn1.bias.uniform_(-0.2, 0.2)
    small.eval()
    weights = {k: {"shape": list(v.shape), "values": flat(v)} for k, v in small.state_dict().items()
               if v.dtype == torch.float32}
    batches = [torch.randn(2, 3, 8, 8) * s for s in (1.0, 1.5, 0.7)]
    prepared, texts = prepared_texts(small, batches[0])
    with torch.no_grad():
        for x in batches:
            prepared(x)
    observers = {}
    for name, m in prepared.named_modules(remove_duplicate=False):
        if name.startswith("activation_post_process_"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scale, zero_point = m.calculate_qparams()
            observers[name] = {"min_val": number(m.min_val), "max_val": number(m.max_val),
                               "scale": flat(scale), "zero_point": [int(v) for v in zero_point.tolist()]}
    out["small"] = dict(texts, weights=weights, batches=[{"shape": list(x.shape), "values": flat(x)} for x in batches],
                        observers=observers)
    (HERE / "data").mkdir(exist_ok=True)
    (HERE / "data" / "prepare_cases.json").write_text(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
