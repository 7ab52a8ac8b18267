#!/usr/bin/env python3
"""Regenerates tests/ao/data/zoo_convert_cases.json, PyTorch 1.13's convert_fx of torchvision's conv nets (MODELS)
for tests/ao/test_zoo_convert.cpp, on the onednn engine with get_default_qconfig_mapping("onednn"): per model
(torch.manual_seed(0), then the builder; every BatchNorm2d set by make_zoo_mobile_references.py's bn_rule, so folding
matters) one calibration batch (the zoo's input_rule(2, size)) and the input (input_rule(3, size)'s last sample).
Stored: the size, every observer's calculate_qparams() under each of its names (a shared one, a cat's inputs', under
all; the test puts them in as fixed observers: our float kernels round differently, so calibration alone gives
qparams equal only to rounding), print(converted) and converted.code,
and for every quantized value the converted model computes (by node name) its shape, qparams and 128 of its integers
evenly spaced (gen_convert_cases.py's Recorder with a step; the whole tensors would make the file megabytes), then
the logits.
Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/ao/gen_zoo_convert_cases.py"""
import json
import sys

import torch
import torchvision
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

from gen_ao_cases import HERE, flat
from gen_convert_cases import Recorder

sys.path.insert(0, str(HERE.parent / "reference"))
from make_zoo_mobile_references import bn_rule, input_rule  # noqa: E402

# builder: input size (32 for wide_resnet50_2, the smallest its five stride-2 stages take down to 1 x 1; 79 for
# inception_v3, which needs at least 75)
MODELS = {"mobilenet_v2": 64, "mobilenet_v3_small": 64, "efficientnet_b0": 64, "regnet_y_400mf": 64,
          "mobilenet_v3_large": 64, "resnext50_32x4d": 64, "wide_resnet50_2": 32, "squeezenet1_0": 64,
          "googlenet": 64, "alexnet": 64, "mnasnet0_5": 64, "densenet121": 64, "inception_v3": 79}
SAMPLES = 128


def case(name, size):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)().eval()
    bn_rule(model)
    batch, x = input_rule(2, size), input_rule(3, size)[2:]
    prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), (batch,))
    with torch.no_grad():
        prepared(batch)
    qparams = {}
    for module_name, m in prepared.named_modules(remove_duplicate=False):
        if module_name.startswith("activation_post_process_"):
            scale, zero_point = m.calculate_qparams()
            qparams[module_name] = [repr(float(scale.reshape(-1)[0])), int(zero_point.reshape(-1)[0])]
    converted = convert_fx(prepared)
    recorder = Recorder(converted, step=lambda numel: max(1, numel // SAMPLES), limit=SAMPLES)
    with torch.no_grad():
        logits = recorder.run(x)
    return {"size": size, "qparams": qparams, "str": str(converted), "code": converted.code, "ints": recorder.ints,
            "logits": flat(logits)}


def main():
    torch.backends.quantized.engine = "onednn"
    torch.set_num_threads(1)
    out = {name: case(name, size) for name, size in MODELS.items()}
    (HERE / "data" / "zoo_convert_cases.json").write_text(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
