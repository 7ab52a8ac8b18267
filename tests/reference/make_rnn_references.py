#!/usr/bin/env python3
"""Regenerates tests/reference/rnn_attention.json, PyTorch 1.13's numbers for tests/nn/test_rnn.cpp and
tests/nn/test_attention.cpp: for RNN/LSTM/GRU, their cells and MultiheadAttention, the parameters a seed
draws, the forward values (eval and training, dropout included, its stream seeded) and the gradients of
sum(output_i * grad_output_i) with respect to the inputs, the initial states and every parameter; the
error texts of misuse and the reprs. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_rnn_references.py

Not under ATEN_CPU_CAPABILITY=default: the initial weights and dropout masks must be the numbers a user's
PyTorch draws, and the vectorised uniform_ kernel rounds its transformation differently from the default one
(the values compare within a tolerance either way)."""
import json
import pathlib

import torch
import torch.nn as nn

HERE = pathlib.Path(__file__).resolve().parent


def enc(t):
    if t is None:
        return None
    t = t.detach()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "values": [float(f"{v:.9g}") for v in t.reshape(-1).tolist()]}  # 9 digits: float32 exactly


def randn(gen, *shape):
    return torch.randn(*shape, generator=gen)


def key_padding_mask(gen, kind, n, S, batched):
    """MultiheadAttention's key_padding_mask of `kind` ("bool", "float" or None), (n, S), or (S) unbatched."""
    kpm = None
    if kind == "bool":
        kpm = torch.rand(n, S, generator=gen) < 0.3
        kpm[:, 0] = False  # every query sees at least one key
    elif kind == "float":
        kpm = randn(gen, n, S)
    if kpm is not None and not batched:
        kpm = kpm[0]
    return kpm


def run_case(module, args, make_inputs, grad_seed, training, dropout_seed):
    """Forward (after manual_seed(dropout_seed) when given), then backward of sum(out_i * g_i)."""
    module.train(training)
    inputs = make_inputs()
    leaves = [t for t in inputs if t is not None and t.is_floating_point()]
    for t in leaves:
        t.requires_grad_(True)
    if dropout_seed is not None:
        torch.manual_seed(dropout_seed)
    outs = args(module, inputs)
    outs = [o for o in outs if o is not None]
    gen = torch.Generator().manual_seed(grad_seed)
    grad_outputs = [randn(gen, *o.shape) for o in outs]
    loss = sum((o * g).sum() for o, g in zip(outs, grad_outputs))
    loss.backward()
    return {
        "params": [{"name": n, **enc(p)} for n, p in module.named_parameters()],
        "inputs": [enc(t) for t in inputs],
        "grad_outputs": [enc(g) for g in grad_outputs],
        "outputs": [enc(o) for o in outs],
        "input_grads": [enc(t.grad) if t is not None and t.is_floating_point() else None for t in inputs],
        "param_grads": [enc(p.grad) for _, p in module.named_parameters()],
    }


RNN_CASES = [
    # mode, input_size, hidden, layers, bias, batch_first, dropout, bidirectional, nonlinearity, seed,
    # (L, N) or (L,) for unbatched, with hx, training, dropout_seed
    ("LSTM", 4, 8, 1, True, False, 0.0, False, "tanh", 0, (5, 3), False, False, None),
    ("LSTM", 4, 8, 2, True, True, 0.0, True, "tanh", 1, (4, 2), True, False, None),
    ("LSTM", 3, 5, 2, False, False, 0.0, False, "tanh", 2147483647, (6,), True, False, None),
    ("LSTM", 4, 6, 3, True, False, 0.4, False, "tanh", 2, (5, 3), False, True, 7),
    ("GRU", 4, 6, 2, False, False, 0.0, False, "tanh", 0, (5, 3), True, False, None),
    ("GRU", 3, 5, 1, True, True, 0.0, True, "tanh", 1, (4, 2), False, False, None),
    ("GRU", 3, 4, 1, True, False, 0.0, False, "tanh", 3, (4,), True, False, None),
    ("RNN", 4, 8, 2, True, False, 0.0, False, "tanh", 0, (5, 3), False, False, None),
    ("RNN", 4, 5, 2, True, True, 0.5, True, "relu", 4, (3, 2), True, True, 11),
]


def rnn_cases():
    out = []
    for (mode, isz, hsz, layers, bias, bf, p, bidir, nl, seed, ln, with_hx, training, dseed) in RNN_CASES:
        torch.manual_seed(seed)
        kw = dict(num_layers=layers, bias=bias, batch_first=bf, dropout=p, bidirectional=bidir)
        if mode == "RNN":
            kw["nonlinearity"] = nl
        m = getattr(nn, mode)(isz, hsz, **kw)
        d = 2 if bidir else 1

        def make_inputs():
            gen = torch.Generator().manual_seed(100 + seed)
            if len(ln) == 1:
                x = randn(gen, ln[0], isz)
                state = (layers * d, hsz)
            else:
                x = randn(gen, ln[1], ln[0], isz) if bf else randn(gen, ln[0], ln[1], isz)
                state = (layers * d, ln[1], hsz)
            hs = [randn(gen, *state) for _ in range(2 if mode == "LSTM" else 1)] if with_hx else []
            return [x] + hs

        def call(module, inputs):
            x, hs = inputs[0], inputs[1:]
            if mode == "LSTM":
                o, (h, c) = module(x, tuple(hs) if hs else None)
                return [o, h, c]
            o, h = module(x, hs[0] if hs else None)
            return [o, h]

        case = {"mode": mode, "input_size": isz, "hidden_size": hsz, "num_layers": layers, "bias": bias,
                "batch_first": bf, "dropout": p, "bidirectional": bidir, "nonlinearity": nl, "seed": seed,
                "training": training, "dropout_seed": dseed, "repr": repr(m)}
        case.update(run_case(m, call, make_inputs, 200 + seed, training, dseed))
        out.append(case)
    return out


CELL_CASES = [
    # mode, input_size, hidden, bias, nonlinearity, seed, batch (None: unbatched), with hx
    ("LSTMCell", 4, 8, True, "tanh", 0, 3, True),
    ("LSTMCell", 4, 8, False, "tanh", 1, None, False),
    ("GRUCell", 4, 6, True, "tanh", 2, 3, True),
    ("GRUCell", 3, 5, False, "tanh", 2147483647, None, True),
    ("RNNCell", 4, 8, True, "tanh", 0, 3, False),
    ("RNNCell", 4, 5, False, "relu", 1, 2, True),
]


def cell_cases():
    out = []
    for (mode, isz, hsz, bias, nl, seed, batch, with_hx) in CELL_CASES:
        torch.manual_seed(seed)
        kw = dict(bias=bias)
        if mode == "RNNCell":
            kw["nonlinearity"] = nl
        m = getattr(nn, mode)(isz, hsz, **kw)

        def make_inputs():
            gen = torch.Generator().manual_seed(300 + seed)
            lead = () if batch is None else (batch,)
            x = randn(gen, *lead, isz)
            hs = [randn(gen, *lead, hsz) for _ in range(2 if mode == "LSTMCell" else 1)] if with_hx else []
            return [x] + hs

        def call(module, inputs):
            x, hs = inputs[0], inputs[1:]
            if mode == "LSTMCell":
                return list(module(x, tuple(hs) if hs else None))
            return [module(x, hs[0] if hs else None)]

        case = {"mode": mode, "input_size": isz, "hidden_size": hsz, "bias": bias, "nonlinearity": nl,
                "seed": seed, "repr": repr(m)}
        case.update(run_case(m, call, make_inputs, 400 + seed, False, None))
        out.append(case)
    return out


MHA_CASES = [
    # embed, heads, dropout, bias, batch_first, kdim, vdim, seed, L, S, N (None: unbatched), self-attention,
    # key_padding_mask kind, attn_mask kind, need_weights, average, training, dropout_seed
    (8, 2, 0.0, True, False, None, None, 0, 4, 4, 3, True, None, None, True, True, False, None),
    (8, 2, 0.0, True, True, 5, 3, 1, 3, 5, 2, False, "bool", None, True, False, False, None),
    (8, 4, 0.0, False, False, None, None, 2, 4, 6, 2, False, None, "float2d", True, True, False, None),
    (6, 3, 0.0, True, True, None, None, 3, 5, 4, 2, False, "bool", "bool3d", True, True, False, None),
    (8, 2, 0.0, True, False, None, None, 2147483647, 4, 3, None, False, "bool", "bool2d", True, False, False, None),
    (8, 2, 0.0, True, False, None, None, 5, 3, 3, 2, True, "float", None, False, True, False, None),
    (8, 2, 0.5, True, True, None, None, 6, 4, 4, 2, True, None, "float3d", True, True, True, 13),
    (8, 2, 0.0, True, True, None, None, 7, 4, 4, 2, True, None, None, True, True, True, None),
]


def mha_cases():
    out = []
    for (e, h, p, bias, bf, kdim, vdim, seed, L, S, N, self_attn, kpm_kind, am_kind, need_w, avg, training,
         dseed) in MHA_CASES:
        torch.manual_seed(seed)
        m = nn.MultiheadAttention(e, h, dropout=p, bias=bias, batch_first=bf, kdim=kdim, vdim=vdim)
        kd, vd = kdim or e, vdim or e

        def shaped(gen, length, feat):
            if N is None:
                return randn(gen, length, feat)
            return randn(gen, N, length, feat) if bf else randn(gen, length, N, feat)

        def make_inputs():
            gen = torch.Generator().manual_seed(500 + seed)
            q = shaped(gen, L, e)
            if self_attn:
                k = v = None
            else:
                k, v = shaped(gen, S, kd), shaped(gen, S, vd)
            n = 1 if N is None else N
            kpm = key_padding_mask(gen, kpm_kind, n, S, N is not None)
            am = None
            if am_kind == "float2d":
                am = randn(gen, L, S)
            elif am_kind == "bool2d":
                am = torch.rand(L, S, generator=gen) < 0.3
                am[:, 1] = False
            elif am_kind == "bool3d":
                am = torch.rand(n * h, L, S, generator=gen) < 0.3
                am[:, :, 1] = False
            elif am_kind == "float3d":
                am = randn(gen, n * h, L, S)
            return [q, k, v, kpm, am]

        def call(module, inputs):
            q, k, v, kpm, am = inputs
            k = q if k is None else k
            v = q if v is None else v
            o, w = module(q, k, v, key_padding_mask=kpm, need_weights=need_w, attn_mask=am,
                          average_attn_weights=avg)
            return [o, w]

        case = {"embed_dim": e, "num_heads": h, "dropout": p, "bias": bias, "batch_first": bf, "kdim": kd,
                "vdim": vd, "seed": seed, "need_weights": need_w, "average_attn_weights": avg,
                "training": training, "dropout_seed": dseed, "repr": repr(m)}
        case.update(run_case(m, call, make_inputs, 600 + seed, training, dseed))
        out.append(case)
    return out


def message(f):
    try:
        f()
    except (RuntimeError, ValueError, AssertionError) as e:
        return str(e)
    raise SystemExit("expected an error")


def errors():
    lstm = nn.LSTM(4, 8, num_layers=2)
    gru = nn.GRU(4, 8)
    cell = nn.LSTMCell(4, 8)
    mha = nn.MultiheadAttention(8, 2)
    z = torch.zeros
    return {
        "lstm_input_size": message(lambda: lstm(torch.randn(5, 3, 5))),
        "lstm_input_dim": message(lambda: lstm(torch.randn(5, 3, 4, 1))),
        "lstm_hidden0": message(lambda: lstm(torch.randn(5, 3, 4), (z(1, 3, 8), z(2, 3, 8)))),
        "lstm_hidden1": message(lambda: lstm(torch.randn(5, 3, 4), (z(2, 3, 8), z(2, 2, 8)))),
        "lstm_batched_hx_dim": message(lambda: lstm(torch.randn(5, 3, 4), (z(2, 8), z(2, 8)))),
        "lstm_unbatched_hx_dim": message(lambda: lstm(torch.randn(5, 4), (z(2, 3, 8), z(2, 3, 8)))),
        "lstm_empty_sequence": message(lambda: lstm(torch.randn(0, 3, 4))),
        "gru_batched_hx_dim": message(lambda: gru(torch.randn(5, 3, 4), z(1, 8))),
        "gru_hidden": message(lambda: gru(torch.randn(5, 3, 4), z(1, 2, 8))),
        "rnn_nonlinearity": message(lambda: nn.RNN(4, 8, nonlinearity="sigmoid")),
        "dropout_range": message(lambda: nn.LSTM(4, 8, dropout=1.5)),
        "cell_input_size": message(lambda: cell(torch.randn(3, 5))),
        "cell_input_dim": message(lambda: cell(torch.randn(3, 4, 1))),
        "cell_batch": message(lambda: cell(torch.randn(3, 4), (z(2, 8), z(2, 8)))),
        "cell_hidden_size": message(lambda: cell(torch.randn(3, 4), (z(3, 8), z(3, 7)))),
        "rnn_cell_nonlinearity": message(lambda: nn.RNNCell(4, 8, nonlinearity="x")(torch.randn(3, 4))),
        "mha_query_dim": message(lambda: mha(torch.randn(4), torch.randn(4), torch.randn(4))),
        "mha_key_dim": message(lambda: mha(torch.randn(4, 3, 8), torch.randn(4, 8), torch.randn(4, 8))),
        "mha_embed_dim": message(lambda: mha(torch.randn(4, 3, 6), torch.randn(4, 3, 6), torch.randn(4, 3, 6))),
        "mha_key_value_shape": message(lambda: mha(torch.randn(4, 3, 8), torch.randn(4, 3, 8),
                                                   torch.randn(5, 3, 8))),
        "mha_attn_mask_2d": message(lambda: mha(torch.randn(4, 3, 8), torch.randn(5, 3, 8), torch.randn(5, 3, 8),
                                                attn_mask=z(4, 4))),
        "mha_attn_mask_3d": message(lambda: mha(torch.randn(4, 3, 8), torch.randn(5, 3, 8), torch.randn(5, 3, 8),
                                                attn_mask=z(3, 4, 5))),
        "mha_attn_mask_dtype": message(lambda: mha(torch.randn(4, 3, 8), torch.randn(5, 3, 8), torch.randn(5, 3, 8),
                                                   attn_mask=z(4, 5, dtype=torch.int64))),
        "mha_key_padding_mask": message(lambda: mha(torch.randn(4, 3, 8), torch.randn(5, 3, 8),
                                                    torch.randn(5, 3, 8), key_padding_mask=z(3, 4, dtype=torch.bool))),
        "mha_divisible": message(lambda: nn.MultiheadAttention(8, 3)),
    }


def empty_mha_cases():
    """MultiheadAttention(4, 2) (seed 5, biases drawn too) over an empty key sequence, query sequence or batch:
    (L, N, S) sizes and a key_padding_mask or not; the output and the averaged weights."""
    torch.manual_seed(5)
    mha = nn.MultiheadAttention(4, 2)
    with torch.no_grad():
        mha.in_proj_bias.uniform_(-1, 1)
        mha.out_proj.bias.uniform_(-1, 1)
    gen = torch.Generator().manual_seed(6)
    out = []
    for (L, N, S), padding in [((3, 1, 0), False), ((3, 2, 0), True), ((0, 1, 2), False), ((3, 0, 2), True)]:
        q, kv = randn(gen, L, N, 4), randn(gen, S, N, 4)
        kpm = torch.zeros(N, S, dtype=torch.bool) if padding else None
        o, w = mha(q, kv, kv, key_padding_mask=kpm)
        out.append({"sizes": [L, N, S], "key_padding_mask": padding, "in_proj_bias": enc(mha.in_proj_bias),
                    "out_proj_bias": enc(mha.out_proj.bias), "query": enc(q), "key": enc(kv), "output": enc(o),
                    "weights": enc(w)})
    return out


def main():
    data = {"rnn": rnn_cases(), "cells": cell_cases(), "mha": mha_cases(), "empty_mha": empty_mha_cases(),
            "errors": errors()}
    (HERE / "rnn_attention.json").write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
