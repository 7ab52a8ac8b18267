#!/usr/bin/env python3
"""Regenerates tests/reference/transformer.json, PyTorch 1.13's numbers for tests/nn/test_transformer.cpp:
for TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and Transformer, the
parameters a seed draws (names in state_dict order),
the forward values (eval and training, dropout included, its stream seeded) with and without masks, the
gradients of sum(output * grad_output) with respect to the input, float masks and every parameter; the reprs
and the error texts of misuse. Cases in eval run with grad enabled, so PyTorch takes its slow path; the nested
cases run TransformerEncoder in eval mode where its nested-tensor path zeroes padded positions and cuts the batch. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_transformer_references.py"""
import json
import pathlib
import sys

import torch
import torch.nn as nn

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_rnn_references import enc, key_padding_mask, message, randn, run_case  # noqa: E402  (one case runner for both files)

ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "tanh": torch.tanh}  # "tanh": the callable form

CASES = [
    # kind, d_model, nhead, dim_feedforward, dropout, activation, batch_first, norm_first, seed, (S, N) or
    # (S,) unbatched, key_padding_mask kind, src_mask kind, training, dropout_seed, num_layers, final norm
    ("layer", 8, 2, 16, 0.0, "relu", False, False, 0, (5, 3), None, None, False, None, 0, False),
    ("layer", 8, 2, 16, 0.1, "gelu", True, True, 1, (4, 2), "bool", None, True, 7, 0, False),
    ("layer", 8, 4, 12, 0.0, "relu", False, False, 2147483647, (5,), None, "float", False, None, 0, False),
    ("layer", 6, 3, 10, 0.2, "tanh", False, False, 3, (4, 2), "float", None, True, 11, 0, False),
    ("encoder", 8, 2, 16, 0.1, "relu", False, False, 4, (5, 2), "bool", "bool", True, 13, 2, True),
    ("encoder", 8, 2, 16, 0.0, "gelu", True, True, 5, (3, 2), None, "float", False, None, 3, False),
]


def build(kind, d, h, ff, p, act, bf, nf, seed, layers, final_norm):
    torch.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(d, h, dim_feedforward=ff, dropout=p, activation=ACTIVATIONS[act],
                                       batch_first=bf, norm_first=nf)
    if kind == "layer":
        return layer
    return nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d) if final_norm else None)


def cases():
    out = []
    for (kind, d, h, ff, p, act, bf, nf, seed, sn, kpm_kind, mask_kind, training, dseed, layers,
         final_norm) in CASES:
        m = build(kind, d, h, ff, p, act, bf, nf, seed, layers, final_norm)
        S = sn[0]

        def make_inputs():
            gen = torch.Generator().manual_seed(700 + seed)
            if len(sn) == 1:
                src = randn(gen, S, d)
            else:
                src = randn(gen, sn[1], S, d) if bf else randn(gen, S, sn[1], d)
            n = 1 if len(sn) == 1 else sn[1]
            kpm = key_padding_mask(gen, kpm_kind, n, S, len(sn) != 1)
            mask = None
            if mask_kind == "float":
                mask = randn(gen, S, S)
            elif mask_kind == "bool":
                mask = torch.rand(S, S, generator=gen) < 0.3
                mask[:, 1] = False
            return [src, mask, kpm]

        def call(module, inputs):
            src, mask, kpm = inputs
            if kind == "layer":
                return [module(src, src_mask=mask, src_key_padding_mask=kpm)]
            return [module(src, mask=mask, src_key_padding_mask=kpm)]

        case = {"kind": kind, "d_model": d, "nhead": h, "dim_feedforward": ff, "dropout": p, "activation": act,
                "batch_first": bf, "norm_first": nf, "seed": seed, "num_layers": layers, "final_norm": final_norm,
                "training": training, "dropout_seed": dseed, "repr": repr(m),
                "state_dict_keys": list(m.state_dict().keys())}
        case.update(run_case(m, call, make_inputs, 800 + seed, training, dseed))
        out.append(case)
    return out


DECODER_CASES = [
    # kind, d_model, nhead, dim_feedforward, dropout, activation, batch_first, norm_first, seed, (T, S, N) or
    # (T, S) unbatched, masks given (tgt_mask, memory_mask, src_mask, tgt / memory / src key padding), training,
    # dropout_seed, layers (decoder; Transformer: encoder, decoder)
    ("decoder_layer", 8, 2, 16, 0.0, "relu", False, False, 10, (4, 5, 3), ("causal", None, None, None, "bool", None),
     False, None, 0),
    ("decoder_layer", 8, 2, 16, 0.1, "gelu", True, True, 11, (4, 5, 2), (None, "bool", None, "bool", None, None),
     True, 17, 0),
    ("decoder", 8, 2, 16, 0.1, "relu", False, False, 12, (4, 3, 2), ("causal", None, None, None, None, None),
     True, 19, 2),
    ("transformer", 8, 2, 16, 0.1, "relu", False, False, 13, (4, 5, 2), ("causal", None, None, None, None, "bool"),
     True, 23, (2, 1)),
    ("transformer", 8, 2, 12, 0.0, "gelu", True, True, 14, (4, 5), (None, None, "bool", None, None, None),
     False, None, (1, 2)),
]


def build_decoder(kind, d, h, ff, p, act, bf, nf, seed, layers):
    torch.manual_seed(seed)
    kw = dict(dim_feedforward=ff, dropout=p, activation=ACTIVATIONS[act], batch_first=bf, norm_first=nf)
    if kind == "transformer":
        return nn.Transformer(d, h, num_encoder_layers=layers[0], num_decoder_layers=layers[1], **kw)
    layer = nn.TransformerDecoderLayer(d, h, **kw)
    return layer if kind == "decoder_layer" else nn.TransformerDecoder(layer, layers, norm=nn.LayerNorm(d))


def decoder_cases():
    out = []
    for (kind, d, h, ff, p, act, bf, nf, seed, sizes, masks, training, dseed, layers) in DECODER_CASES:
        m = build_decoder(kind, d, h, ff, p, act, bf, nf, seed, layers)
        T, S = sizes[0], sizes[1]
        N = sizes[2] if len(sizes) == 3 else None

        def make_inputs():
            gen = torch.Generator().manual_seed(750 + seed)

            def seq(length):
                if N is None:
                    return randn(gen, length, d)
                return randn(gen, N, length, d) if bf else randn(gen, length, N, d)

            def bool_mask(rows, cols):
                mask = torch.rand(rows, cols, generator=gen) < 0.3
                mask[:, 0] = False  # every query sees at least one key
                return mask

            def padding(length):
                mask = bool_mask(1 if N is None else N, length)
                return mask[0] if N is None else mask

            tgt, memory = seq(T), seq(S)
            tgt_mask, memory_mask, src_mask, tgt_kpm, memory_kpm, src_kpm = masks
            made = [
                # bool: JSON has no -inf (generate_square_subsequent_mask's float form is tested in C++)
                torch.ones(T, T).triu(1).bool() if tgt_mask == "causal" else None,
                bool_mask(T, S) if memory_mask == "bool" else None,
                bool_mask(S, S) if src_mask == "bool" else None,
                padding(T) if tgt_kpm == "bool" else None,
                padding(S) if memory_kpm == "bool" else None,
                padding(S) if src_kpm == "bool" else None,
            ]
            return [tgt, memory] + made

        def call(module, inputs):
            tgt, memory, tgt_mask, memory_mask, src_mask, tgt_kpm, memory_kpm, src_kpm = inputs
            if kind == "transformer":  # memory is the source sequence here
                return [module(memory, tgt, src_mask=src_mask, tgt_mask=tgt_mask, memory_mask=memory_mask,
                               src_key_padding_mask=src_kpm, tgt_key_padding_mask=tgt_kpm,
                               memory_key_padding_mask=memory_kpm)]
            return [module(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, tgt_key_padding_mask=tgt_kpm,
                           memory_key_padding_mask=memory_kpm)]

        case = {"kind": kind, "d_model": d, "nhead": h, "dim_feedforward": ff, "dropout": p, "activation": act,
                "batch_first": bf, "norm_first": nf, "seed": seed, "layers": layers, "training": training,
                "dropout_seed": dseed, "repr": repr(m), "state_dict_keys": list(m.state_dict().keys())}
        case.update(run_case(m, call, make_inputs, 850 + seed, training, dseed))
        out.append(case)
    return out


def errors():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    encoder = nn.TransformerEncoder(layer, 2)
    src = torch.randn(5, 3, 8)
    transformer = nn.Transformer(8, 2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)
    return {
        "activation": message(lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh")),
        "divisible": message(lambda: nn.TransformerEncoderLayer(8, 3)),
        "layer_kpm_dtype": message(lambda: layer(src, src_key_padding_mask=torch.zeros(3, 5, dtype=torch.long))),
        "encoder_kpm_dtype": message(lambda: encoder(src, src_key_padding_mask=torch.zeros(3, 5, dtype=torch.long))),
        "kpm_shape": message(lambda: layer(src, src_key_padding_mask=torch.zeros(3, 4, dtype=torch.bool))),
        "mask_shape": message(lambda: layer(src, src_mask=torch.zeros(4, 4))),
        "embed_dim": message(lambda: layer(torch.randn(5, 3, 6))),
        "transformer_batch": message(lambda: transformer(torch.randn(5, 2, 8), torch.randn(4, 3, 8))),
        "transformer_features": message(lambda: transformer(torch.randn(5, 2, 8), torch.randn(4, 2, 6))),
    }


NESTED_CASES = [
    # label, nhead, enable_nested_tensor, mask_check, final norm, grad mode on, key padding mask (1 = padded;
    # a float mask -1e9 where padded)
    ("end_padded", 2, True, True, False, False, [[0, 0, 0, 1, 1], [0, 0, 1, 1, 1]]),
    ("end_padded_float_mask_norm", 2, True, True, True, False, "float"),
    ("one_row_all_padded", 2, True, True, False, False, [[1, 1, 1, 1, 1], [0, 0, 1, 1, 1]]),
    ("gap_mask_check", 2, True, True, False, False, [[0, 1, 0, 1, 1], [0, 0, 0, 0, 0]]),
    ("gap_no_mask_check", 2, True, False, False, False, [[0, 1, 0, 1, 1], [0, 0, 0, 0, 0]]),
    ("nested_disabled", 2, False, True, False, False, [[0, 0, 0, 1, 1], [0, 0, 1, 1, 1]]),
    ("odd_nhead", 1, True, True, False, False, [[0, 0, 0, 1, 1], [0, 0, 1, 1, 1]]),
    ("grad_enabled", 2, True, True, False, True, [[0, 0, 0, 1, 1], [0, 0, 1, 1, 1]]),
]


def nested_cases():
    """TransformerEncoder in eval mode with a src_key_padding_mask: where PyTorch 1.13 takes its nested-tensor
    path, the padded positions come out as 0 and the batch is cut to its longest unpadded length."""
    out = []
    for label, h, nested, check, final_norm, grad, kpm_rows in NESTED_CASES:
        torch.manual_seed(40)
        layer = nn.TransformerEncoderLayer(8, h, dim_feedforward=16, dropout=0.0, batch_first=True)
        encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8) if final_norm else None,
                                        enable_nested_tensor=nested, mask_check=check)
        encoder.eval()
        gen = torch.Generator().manual_seed(41)
        src = randn(gen, 2, 5, 8)
        if kpm_rows == "float":
            kpm = torch.tensor([[0, 0, 0, 1, 1], [0, 0, 0, 0, 1]]) * -1e9
        else:
            kpm = torch.tensor(kpm_rows, dtype=torch.bool)
        with torch.set_grad_enabled(grad):
            result = encoder(src, src_key_padding_mask=kpm)
        out.append({"label": label, "nhead": h, "enable_nested_tensor": nested, "mask_check": check,
                    "final_norm": final_norm, "grad_enabled": grad, "src": enc(src), "src_key_padding_mask": enc(kpm),
                    "output": enc(result)})
    return out


def main():
    data = {"cases": cases(), "decoder_cases": decoder_cases(), "nested_cases": nested_cases(), "errors": errors()}
    (HERE / "transformer.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
