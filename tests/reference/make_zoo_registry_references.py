#!/usr/bin/env python3
"""Regenerates tests/reference/zoo_registry.json, torchvision 0.14's model registry as
tests/models/test_registry.cpp checks it: list_models(module=torchvision.models), the parameter count of a few
get_model(name, num_classes=10) models, and get_model's message for an unknown name. Run with Debian's
PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_zoo_registry_references.py"""
import json
import pathlib

import torchvision

HERE = pathlib.Path(__file__).resolve().parent
# Cheap builders from several families, one name in upper case (get_model matches in lower case).
BUILT = ["ResNet18", "mobilenet_v3_small", "squeezenet1_1", "regnet_x_400mf", "shufflenet_v2_x0_5"]


def main():
    out = {"list_models": torchvision.models.list_models(module=torchvision.models), "parameters": {}}
    for name in BUILT:
        model = torchvision.models.get_model(name, num_classes=10)
        out["parameters"][name] = sum(p.numel() for p in model.parameters())
    try:
        torchvision.models.get_model("ResNet-18")
    except ValueError as e:
        out["unknown_message"] = str(e)
    (HERE / "zoo_registry.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
