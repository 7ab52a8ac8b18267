#!/usr/bin/env python3
"""Regenerates tests/ao/data/ao_cases.json, PyTorch 1.13's numbers for tests/ao: each observer built with the
arguments given, fed the batches stored here, then its buffers, state_dict keys, repr and calculate_qparams()
(test_observer.cpp); and get_default_qconfig_mapping(backend)'s entries, each observer described by the
attributes a fresh one has (test_qconfig.cpp). Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/ao/gen_ao_cases.py"""
import json
import math
import pathlib
import warnings

import torch
from torch.ao.quantization import observer as obs

HERE = pathlib.Path(__file__).resolve().parent
DTYPES = {"quint8": torch.quint8, "qint8": torch.qint8}
QSCHEMES = {"per_tensor_affine": torch.per_tensor_affine, "per_tensor_symmetric": torch.per_tensor_symmetric,
            "per_channel_affine": torch.per_channel_affine, "per_channel_symmetric": torch.per_channel_symmetric}


def number(x):
    x = float(x)
    return x if math.isfinite(x) else str(x)


def flat(t):
    return [number(v) for v in t.detach().double().reshape(-1).tolist()]


def build(kind, args):
    kw = dict(args)
    for key, table in (("dtype", DTYPES), ("qscheme", QSCHEMES)):
        if key in kw:
            kw[key] = table[kw[key]]
    return getattr(obs, kind)(**kw)


def batches(g, spec):
    """spec: list of (shape, scale, shift, relu)"""
    out = []
    for shape, scale, shift, relu in spec:
        x = torch.randn(shape, generator=g) * scale + shift
        if relu:
            x = x.clamp(min=0)
        out.append(x)
    return out


def cases():
    g = torch.Generator().manual_seed(33)
    small = [((4, 50), 1.3, 0.4, False), ((4, 50), 0.7, -0.2, False), ((2, 60), 2.1, 0.9, False)]
    relu = [((3, 70), 1.5, 0.3, True), ((3, 70), 2.5, 0.1, True)]
    weight = [((6, 3, 3, 3), 0.2, 0.0, False)]
    table = [
        ("MinMaxObserver", {}, small),
        ("MinMaxObserver", {"dtype": "qint8", "qscheme": "per_tensor_symmetric"}, small),
        ("MinMaxObserver", {"qscheme": "per_tensor_symmetric"}, small),
        ("MinMaxObserver", {"reduce_range": True}, small),
        ("MinMaxObserver", {"quant_min": 0, "quant_max": 127}, small),
        ("MinMaxObserver", {"dtype": "qint8", "reduce_range": True}, small),
        ("MinMaxObserver", {"dtype": "qint8", "qscheme": "per_tensor_symmetric", "quant_min": -127,
                            "quant_max": 127, "eps": 2 ** -12}, small),
        ("MinMaxObserver", {}, relu),
        ("MovingAverageMinMaxObserver", {}, small),
        ("MovingAverageMinMaxObserver", {"averaging_constant": 0.25, "dtype": "qint8",
                                         "qscheme": "per_tensor_symmetric"}, small),
        ("PerChannelMinMaxObserver", {"dtype": "qint8", "qscheme": "per_channel_symmetric"}, weight),
        ("PerChannelMinMaxObserver", {"ch_axis": 1}, [((5, 4, 3), 1.0, 0.2, False), ((2, 4, 6), 1.7, -0.1, False)]),
        ("PerChannelMinMaxObserver", {"dtype": "qint8", "qscheme": "per_channel_symmetric", "quant_min": -127,
                                      "quant_max": 127, "eps": 2 ** -12}, weight),
        ("HistogramObserver", {}, [((8, 100), 1.0, 0.0, False)]),
        ("HistogramObserver", {}, small),
        ("HistogramObserver", {"reduce_range": True}, [((5, 80), 0.3, 0.1, False), ((5, 80), 4.0, 1.0, False),
                                                       ((5, 80), 9.0, -2.0, False)]),
        ("HistogramObserver", {}, [((6, 90), 0.25, 0.05, False), ((6, 90), 0.2, 0.0, False)]),
        ("HistogramObserver", {"dtype": "qint8", "qscheme": "per_tensor_symmetric"}, small),
        ("HistogramObserver", {}, relu),
        ("HistogramObserver", {"bins": 64, "upsample_rate": 4}, small),
        ("HistogramObserver", {}, [((3, 5), 0.0, 1.5, False), ((4, 60), 2.0, 0.0, False)]),
    ]
    out = []
    for kind, args, spec in table:
        data = batches(g, spec)
        o = build(kind, args)
        repr_before = repr(o)
        for x in data:
            o(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scale, zero_point = o.calculate_qparams()
        out.append({
            "kind": kind, "args": args,
            "batches": [{"shape": list(x.shape), "values": flat(x)} for x in data],
            "quant_min": o.quant_min, "quant_max": o.quant_max,
            "buffers": {k: {"shape": list(v.shape), "values": flat(v)} for k, v in o.state_dict().items()},
            "state_dict_keys": list(o.state_dict().keys()),
            "repr_before": repr_before, "repr_after": repr(o),
            "scale": {"shape": list(scale.shape), "values": flat(scale)},
            "zero_point": {"shape": list(zero_point.shape), "dtype": str(zero_point.dtype),
                           "values": [int(v) for v in zero_point.reshape(-1).tolist()]},
        })
    return out


def object_type_name(t):
    """How the C++ QConfigMapping names an object type: torch.nn.Conv2d, torch.nn.functional.conv2d, torch.relu."""
    if isinstance(t, str):
        return t
    if isinstance(t, type):
        return "torch.nn." + t.__name__
    for prefix, namespace in (("torch.nn.functional.", torch.nn.functional), ("torch.", torch)):
        for name in dir(namespace):
            if getattr(namespace, name) is t:
                return prefix + name
    raise ValueError(f"no name for {t}")


def describe_observer(ctr):
    o = ctr()
    d = {"class": type(o).__name__, "dtype": str(o.dtype)}
    for attr in ("qscheme", "reduce_range", "quant_min", "quant_max", "ch_axis"):
        if hasattr(o, attr):
            v = getattr(o, attr)
            d[attr] = str(v) if attr == "qscheme" else v
    if hasattr(o, "scale") and isinstance(o.scale, torch.Tensor):
        d["scale"] = float(o.scale)
        d["zero_point"] = int(o.zero_point)
    return d


def describe_qconfig(q):
    return None if q is None else {"activation": describe_observer(q.activation), "weight": describe_observer(q.weight)}


def qconfig_mappings():
    from torch.ao.quantization import get_default_qconfig_mapping
    out = {}
    for backend in ("fbgemm", "x86", "onednn", "qnnpack"):
        m = get_default_qconfig_mapping(backend)
        out[backend] = {"global": describe_qconfig(m.global_qconfig),
                        "object_types": [[object_type_name(t), describe_qconfig(q)]
                                         for t, q in m.object_type_qconfigs.items()]}
    return out


def main():
    (HERE / "data").mkdir(exist_ok=True)
    text = json.dumps({"observers": cases(), "qconfig_mappings": qconfig_mappings()}, indent=None,
                      separators=(",", ":"))
    (HERE / "data" / "ao_cases.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
