#!/usr/bin/env python3
"""Regenerates tests/ao/data/state_dict_cases.json, PyTorch 1.13's state_dict of a converted model for
tests/ao/test_quantized_state.cpp (onednn engine, get_default_qconfig_mapping("onednn")):
 - "resnet18": every key of the converted resnet18 of gen_convert_cases.py with its dtype, shape and qscheme (per
   channel: its axis);
 - "small": the converted Small of gen_convert_cases.py (torch.manual_seed(34), the same weights, calibration and
   observers), every entry with its values: a quantized tensor's integers, scale(s), zero point(s) and axis.
A quantized Linear's `_packed_params.dtype` and `_packed_params._packed_params` (a dtype and a (weight, bias) tuple)
are written as `weight` and `bias`, the keys PyTorch 1.13's Linear loads from a dict without version metadata; this
script checks that PyTorch loads the dict so written (strict) and then computes the same integers. Run with Debian's
PyTorch 1.13:
    /usr/bin/python3 tests/ao/gen_state_dict_cases.py"""
import json

import torch
from torch.ao.quantization.quantize_fx import convert_fx

from gen_ao_cases import HERE, flat
from gen_convert_cases import calibrated, resnet18_model, small_model
from gen_prepare_cases import Small


def converted(model, batches):
    return convert_fx(calibrated(model, batches))


def tensor_state_dict(model):
    """model.state_dict() with each (dtype, (weight, bias)) packed-params pair as its weight and bias."""
    out = {}
    for key, value in model.state_dict().items():
        if key.endswith("._packed_params.dtype"):
            continue
        if key.endswith("._packed_params._packed_params"):
            layer = key[:-len("_packed_params._packed_params")]
            out[layer + "weight"], bias = value
            if bias is not None:
                out[layer + "bias"] = bias
            continue
        out[key] = value
    return out


def describe(t, with_values):
    d = {"dtype": str(t.dtype), "shape": list(t.shape)}
    if t.is_quantized:
        d["qscheme"] = str(t.qscheme())
        if t.qscheme() == torch.per_channel_affine:
            d["axis"] = t.q_per_channel_axis()
            if with_values:
                d["scales"] = t.q_per_channel_scales().tolist()
                d["zero_points"] = t.q_per_channel_zero_points().tolist()
        elif with_values:
            d["scale"] = t.q_scale()
            d["zero_point"] = t.q_zero_point()
        if with_values:
            d["values"] = t.int_repr().reshape(-1).tolist()
    elif with_values:
        d["values"] = [float(f"{v:.9g}") for v in flat(t)] if t.is_floating_point() else t.reshape(-1).tolist()
    return d


def check_loads(model, batches, x, state):
    """PyTorch loads the tensor-only dict into a model converted from other weights and statistics and then computes
    as `model`."""
    other = converted(Small(), [b * 3 for b in batches])
    other.load_state_dict(state)
    with torch.no_grad():
        assert torch.equal(other(x), model(x))


def main():
    torch.backends.quantized.engine = "onednn"
    out = {}
    resnet, batches = resnet18_model()
    out["resnet18"] = [[k, describe(v, False)] for k, v in tensor_state_dict(converted(resnet, batches)).items()]

    small, batches, x = small_model()
    model = converted(small, batches)
    state = tensor_state_dict(model)
    check_loads(model, batches, x, state)
    out["small"] = [[k, describe(v, True)] for k, v in state.items()]
    (HERE / "data").mkdir(exist_ok=True)
    (HERE / "data" / "state_dict_cases.json").write_text(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
