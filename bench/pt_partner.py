#!/usr/bin/python3
"""PyTorch 1.13 side of bench/bench_resnet18: times torchvision ResNet18 variants and prints one
JSON line per (variant, batch): eager NCHW and channels_last, the FX conv-bn fusion, torch.jit.freeze +
optimize_for_inference, bf16 autocast and FX graph-mode int8 (prepare_fx / convert_fx with the onednn engine's
default qconfig mapping, calibrated on 8 random batches of 4), under no_grad, the median of timed runs after warm-up, and the BLAS and allocator
the process ran with (bench/pt_env.py, which also runs it once per environment); run with /usr/bin/python3.

usage: pt_partner.py --batches 1 5 10 --variants eager_nchw fx_fused --warmup 10 --runs 20 --threads 2"""
import argparse, copy, json, resource, statistics, sys, time

import torch, torch.fx as fx, torch.nn as nn, torchvision

import pt_env


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
    model = copy.deepcopy(model)
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
        self.m = copy.deepcopy(m).to(memory_format=torch.channels_last)

    def forward(self, x):
        with torch.autocast('cpu', dtype=torch.bfloat16):
            return self.m(x.to(memory_format=torch.channels_last)).float()


def fx_int8_onednn(m):
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.backends.quantized.engine = 'onednn'
    example = torch.randn(4, 3, 224, 224)
    prepared = prepare_fx(copy.deepcopy(m), get_default_qconfig_mapping('onednn'), (example,))
    with torch.no_grad():
        for _ in range(8):
            prepared(torch.randn(4, 3, 224, 224))
    return convert_fx(prepared)


def variants(m):
    return {
        'eager_nchw': lambda: m,
        'eager_channels_last': lambda: copy.deepcopy(m).to(memory_format=torch.channels_last),
        'fx_fused': lambda: fx_fuse(m),
        'jit_freeze_optimize': lambda: torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(copy.deepcopy(m)))),
        'bf16_autocast_channels_last': lambda: Bf16Autocast(m),
        'fx_int8_onednn': lambda: fx_int8_onednn(m),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--batches', type=int, nargs='+', default=[1, 5, 10])
    ap.add_argument('--variants', nargs='+', default=['eager_nchw'])
    ap.add_argument('--warmup', type=int, default=10)
    ap.add_argument('--runs', type=int, default=20)
    ap.add_argument('--threads', type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    m = torchvision.models.resnet18().eval()
    ran_with = pt_env.runtime()
    makers = variants(m)
    for bs in a.batches:
        x = torch.randn(bs, 3, 224, 224)
        for name in a.variants:
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
                              'torch': torch.__version__, **ran_with}), flush=True)


if __name__ == '__main__':
    sys.exit(main())
