#!/usr/bin/python3
"""PyTorch 1.13 side of bench/bench_resnet18 and bench/bench_zoo: times variants of a torchvision classification
model (torchvision.models.get_model(NAME), ResNet18 by default, at its input size: input_size) and prints one
JSON line per (variant, batch): eager NCHW and channels_last, the FX conv-bn fusion, torch.jit.freeze +
optimize_for_inference, bf16 autocast and FX graph-mode int8 (prepare_fx / convert_fx with the onednn engine's
default qconfig mapping, calibrated on 8 random batches of 4), under no_grad, the median of timed runs after warm-up, and the BLAS and allocator
the process ran with (bench/pt_env.py, which also runs it once per environment); run with /usr/bin/python3.
Each variant is made from a model of its own (no other copy stays resident), so that a process asked for one
variant reports that variant's peak RSS.

usage: pt_partner.py [--model resnet18] [--size S] --batches 1 5 10 --variants eager_nchw fx_fused --warmup 10
                     --runs 20 --threads 2"""
import argparse, copy, json, resource, statistics, sys, time

import torch, torch.fx as fx, torch.nn as nn, torchvision

import pt_env


def build(name):
    """torchvision.models.get_model(name) in eval mode, seeded; an unknown name raises torchvision's ValueError."""
    torch.manual_seed(0)
    return torchvision.models.get_model(name).eval()


def input_size(name):
    """The height and width a model is benchmarked at: 224, inception_v3's 299 (as torchvision's transforms)."""
    return 299 if name == "inception_v3" else 224


def fuse_conv_bn_eval(conv, bn):
    fused = copy.deepcopy(conv)
    w, b = fused.weight, fused.bias
    if b is None:
        b = torch.zeros_like(bn.running_mean)
    rs = torch.rsqrt(bn.running_var + bn.eps)
    fused.weight = nn.Parameter(w * (bn.weight * rs).reshape(-1, 1, 1, 1))
    fused.bias = nn.Parameter((b - bn.running_mean) * rs * bn.weight + bn.bias)
    return fused


def fx_fuse(model):
    gm = fx.symbolic_trace(model)
    mods = dict(gm.named_modules())
    for node in list(gm.graph.nodes):
        if node.op != 'call_module':
            continue
        if type(mods[node.target]) is nn.BatchNorm2d and node.args[0].op == 'call_module' \
                and type(mods[node.args[0].target]) is nn.Conv2d:
            if len(node.args[0].users) > 1:
                continue
            conv, bn = mods[node.args[0].target], mods[node.target]
            parent, _, name = node.args[0].target.rpartition('.')
            setattr(mods[parent] if parent else gm, name, fuse_conv_bn_eval(conv, bn))
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
    gm.graph.lint()
    gm.recompile()
    return gm


class Bf16Autocast(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m.to(memory_format=torch.channels_last)

    def forward(self, x):
        with torch.autocast('cpu', dtype=torch.bfloat16):
            return self.m(x.to(memory_format=torch.channels_last)).float()


def fx_int8_onednn(m, size):
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.backends.quantized.engine = 'onednn'
    example = torch.randn(4, 3, size, size)
    prepared = prepare_fx(m, get_default_qconfig_mapping('onednn'), (example,))
    with torch.no_grad():
        for _ in range(8):
            prepared(torch.randn(4, 3, size, size))
    return convert_fx(prepared)


def variants(make, size):
    """{variant: maker}; each maker builds its variant from make(), a fresh eval model."""
    return {
        'eager_nchw': make,
        'eager_channels_last': lambda: make().to(memory_format=torch.channels_last),
        'fx_fused': lambda: fx_fuse(make()),
        'jit_freeze_optimize': lambda: torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(make()))),
        'bf16_autocast_channels_last': lambda: Bf16Autocast(make()),
        'fx_int8_onednn': lambda: fx_int8_onednn(make(), size),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--model', default='resnet18')
    ap.add_argument('--size', type=int, help='input height and width (default: input_size(model))')
    ap.add_argument('--batches', type=int, nargs='+', default=[1, 5, 10])
    ap.add_argument('--variants', nargs='+', default=['eager_nchw'])
    ap.add_argument('--warmup', type=int, default=10)
    ap.add_argument('--runs', type=int, default=20)
    ap.add_argument('--threads', type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    size = a.size or input_size(a.model)
    try:
        torchvision.models.get_model_builder(a.model)
    except ValueError as e:  # torchvision's "Unknown model NAME"
        sys.exit(f"pt_partner: {e}")
    ran_with = pt_env.runtime()
    makers = variants(lambda: build(a.model), size)
    for bs in a.batches:
        x = torch.randn(bs, 3, size, size)
        for name in a.variants:
            f = None  # the previous variant's model goes before the next is made
            f = makers[name]()
            xi = x.to(memory_format=torch.channels_last) if 'channels_last' in name else x
            with torch.no_grad():
                for _ in range(a.warmup):
                    f(xi)
                ts = []
                for _ in range(a.runs):
                    t = time.perf_counter()
                    f(xi)
                    ts.append((time.perf_counter() - t) * 1e3)
            print(json.dumps({'variant': name, 'batch': bs, 'median_ms': statistics.median(ts), 'min_ms': min(ts),
                              'max_ms': max(ts), 'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                              'model': a.model, 'size': size, 'torch': torch.__version__,
                              **ran_with}), flush=True)


if __name__ == '__main__':
    sys.exit(main())
