#!/usr/bin/env python3
"""Regenerates tests/ao/data/convert_cases.json, PyTorch 1.13's convert_fx output for tests/ao/test_convert.cpp, on
the onednn engine with get_default_qconfig_mapping("onednn"), for torchvision's resnet18 (torch.manual_seed(33),
then the model, two calibration batches (2, 3, 64, 64) and the input (1, 3, 32, 32), all drawn from that seed), the
small model of gen_prepare_cases.py (torch.manual_seed(34); its weights, calibration batches and input stored) and
the digits CNN of examples/digits_mlp_cnn_pt.py (torch.manual_seed(35), then the model, two calibration batches and
the input). For each: every observer's buffers after calibration (our float kernels round differently, so the test
loads these to get PyTorch's qparams to the bit), print(converted), converted.code, print(converted.graph), the
integers, scale and zero point of every quantized value the converted model computes for the input (by node name),
and its logits. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/ao/gen_convert_cases.py"""
import collections
import json

import torch
import torchvision
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

from gen_ao_cases import HERE, flat
from gen_prepare_cases import Small


def digits_cnn():
    """examples/digits_mlp_cnn_pt.py's digits_mlp_cnn: (N, 1, 8, 8) -> (N, 10)."""
    nn = torch.nn
    return nn.Sequential(collections.OrderedDict([
        ("conv1", nn.Conv2d(1, 16, 3, padding=1)), ("relu1", nn.ReLU()), ("pool", nn.MaxPool2d(2)),
        ("conv2", nn.Conv2d(16, 32, 3, padding=1)), ("relu2", nn.ReLU()), ("flatten", nn.Flatten()),
        ("fc1", nn.Linear(32 * 4 * 4, 64)), ("relu3", nn.ReLU()), ("dropout", nn.Dropout(0.25)),
        ("fc2", nn.Linear(64, 10))]))


def tensor(t):
    """A float32 tensor: its values with the 9 significant digits that give each float32 back."""
    return {"shape": list(t.shape), "values": [v if isinstance(v, str) else float(f"{v:.9g}") for v in flat(t)]}


class Recorder(torch.fx.Interpreter):
    """Runs the converted model, keeping every quantized value by node name (read when its node has run: an in-place
    op after it would change it): shape, qparams and every step-th of its integers, at most `limit` of them."""

    def __init__(self, gm, step=lambda numel: 1, limit=None):
        super().__init__(gm)
        self.step, self.limit = step, limit
        self.ints = {}

    def run_node(self, n):
        out = super().run_node(n)
        if isinstance(out, torch.Tensor) and out.is_quantized:
            ints = out.int_repr().reshape(-1)
            step = self.step(ints.numel())
            entry = {"shape": list(out.shape), "scale": out.q_scale(), "zero_point": out.q_zero_point(),
                     "values": ints[::step][:self.limit].tolist()}
            if self.limit is not None:
                entry["step"] = step
            self.ints[n.name] = entry
        return out


def calibrated(model, batches):
    """`model` in eval mode through prepare_fx (onednn's default qconfig mapping), with `batches` run through it."""
    model.eval()
    prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), (batches[0],))
    with torch.no_grad():
        for b in batches:
            prepared(b)
    return prepared


def resnet18_model():
    """torchvision's resnet18 and two calibration batches, from seed 33."""
    torch.manual_seed(33)
    return torchvision.models.resnet18(), [torch.randn(2, 3, 64, 64) for _ in range(2)]


def small_model():
    """Small with non-trivial batch norm statistics (so folding matters), two calibration batches and an input,
    from seed 34."""
    torch.manual_seed(34)
    small = Small()
    with torch.no_grad():
        small.bn1.running_mean.uniform_(-0.5, 0.5)
        small.bn1.running_var.uniform_(0.5, 2.0)
    return small, [torch.randn(2, 3, 8, 8) * s for s in (1.0, 1.5)], torch.randn(1, 3, 8, 8)


def convert_case(model, batches, x, store_model):
    prepared = calibrated(model, batches)
    observers = {}
    for name, m in prepared.named_modules():
        if name.startswith("activation_post_process_"):
            observers[name] = {k: tensor(v) for k, v in m.state_dict().items()}
    converted = convert_fx(prepared)
    recorder = Recorder(converted)
    with torch.no_grad():
        logits = recorder.run(x)
    case = {"observers": observers, "str": str(converted), "code": converted.code, "graph": str(converted.graph),
            "ints": recorder.ints,
            "logits": flat(logits)}
    if store_model:
        case["weights"] = {k: tensor(v) for k, v in model.state_dict().items() if v.dtype == torch.float32}
        case["batches"] = [tensor(b) for b in batches]
        case["input"] = tensor(x)
    return case


def main():
    torch.backends.quantized.engine = "onednn"
    out = {}
    resnet, batches = resnet18_model()
    out["resnet18"] = convert_case(resnet, batches, torch.randn(1, 3, 32, 32), store_model=False)
    out["small"] = convert_case(*small_model(), store_model=True)

    torch.manual_seed(35)
    digits = digits_cnn()
    out["digits"] = convert_case(digits, [torch.randn(4, 1, 8, 8).abs() * 4 for _ in range(2)],
                                 torch.randn(2, 1, 8, 8).abs() * 4,
                                 store_model=False)
    (HERE / "data").mkdir(exist_ok=True)
    (HERE / "data" / "convert_cases.json").write_text(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
