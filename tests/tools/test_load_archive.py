#!/usr/bin/env python3
"""tests/tools/test_load_archive.py — tools/load_archive.py on tests/nn/data/archive.safetensors, the file
tl::serialize::OutputArchive writes (tests/nn/test_archive.cpp checks it byte for byte): every value as
written in C++, a model part that torch's load_state_dict takes, and files that are not archives refused.
Exits 77 (meson's "skipped") without torch."""
import gzip
import json
import math
import os
import struct
import sys
import tempfile
import unittest

try:
    import numpy as np
    import torch
except ImportError:
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import load_archive  # noqa: E402

FIXTURE = os.path.join(HERE, "..", "nn", "data", "archive.safetensors")
ADAM = os.path.join(HERE, "..", "optim", "data", "adam_archive.safetensors")  # tests/optim/test_checkpoint.cpp


class LoadArchive(unittest.TestCase):
    def test_values_as_written(self):
        ckpt = load_archive.load(FIXTURE)
        self.assertEqual(list(ckpt), ["epoch", "lr", "best", "resumed", "name", "big", "weights", "counts", "mask",
                                      "half", "model.fc.weight", "model.fc.bias"])
        self.assertEqual(ckpt["epoch"], 3)
        self.assertIsInstance(ckpt["epoch"], int)
        self.assertEqual(ckpt["lr"], 0.1)
        self.assertEqual(ckpt["best"], -math.inf)
        self.assertIs(ckpt["resumed"], True)
        self.assertEqual(ckpt["name"], "digits \u2113")
        self.assertEqual(ckpt["big"], -2**63)
        self.assertTrue(torch.equal(ckpt["weights"], torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4))
        self.assertTrue(torch.equal(ckpt["counts"], torch.tensor([5, -7, 2**40])))
        self.assertTrue(torch.equal(ckpt["mask"], torch.tensor([[True, False], [True, True]])))
        self.assertTrue(torch.equal(ckpt["half"], torch.tensor([1.5, -2.25], dtype=torch.bfloat16)))

    def test_model_part_loads_into_torch(self):
        model = torch.nn.Module()
        model.fc = torch.nn.Linear(2, 2)
        model.load_state_dict(load_archive.under(load_archive.load(FIXTURE), "model"))
        self.assertTrue(torch.equal(model.fc.weight, torch.full((2, 2), 0.5)))
        self.assertTrue(torch.equal(model.fc.bias, torch.tensor([-1.0, 2.0])))

    def test_optimizer_matches_pytorchs_own_steps(self):
        p0 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        p1 = torch.tensor([0.5, -0.5], requires_grad=True)
        adam = torch.optim.Adam([p0, p1], lr=0.1)
        for _ in range(2):
            adam.zero_grad()
            ((p0 * p0).sum() + (p1 * 3).sum()).backward()
            adam.step()
        ckpt = load_archive.load(ADAM)
        self.assertEqual(ckpt["step"], 2)
        torch.testing.assert_close(ckpt["params.0"], p0.detach())
        torch.testing.assert_close(ckpt["params.1"], p1.detach())
        q0, q1 = (torch.zeros_like(p0, requires_grad=True), torch.zeros_like(p1, requires_grad=True))
        loaded = torch.optim.Adam([q0, q1], lr=1.0)
        loaded.load_state_dict(load_archive.optimizer_state_dict(ckpt, "optimizer"))
        expected, got = adam.state_dict(), loaded.state_dict()
        self.assertEqual(got["param_groups"][0]["betas"], (0.9, 0.999))
        self.assertIs(got["param_groups"][0]["amsgrad"], False)
        for key in ("lr", "eps", "weight_decay", "amsgrad", "maximize", "params"):
            self.assertEqual(got["param_groups"][0][key], expected["param_groups"][0][key], key)
        for index in (0, 1):
            for name in ("step", "exp_avg", "exp_avg_sq"):
                torch.testing.assert_close(got["state"][index][name], expected["state"][index][name])
        with torch.no_grad():  # a step from the loaded state moves as PyTorch's own next step
            q0.copy_(p0)
            q1.copy_(p1)
        for opt, params in ((adam, (p0, p1)), (loaded, (q0, q1))):
            opt.zero_grad()
            ((params[0] * params[0]).sum() + (params[1] * 3).sum()).backward()
            opt.step()
        torch.testing.assert_close(q0, p0)
        torch.testing.assert_close(q1, p1)

    def test_gzip(self):
        with tempfile.TemporaryDirectory() as d, open(FIXTURE, "rb") as f:
            path = os.path.join(d, "archive.safetensors.gz")
            with gzip.open(path, "wb") as out:
                out.write(f.read())
            self.assertEqual(load_archive.load(path)["name"], "digits \u2113")

    def test_numpy_arrays(self):
        ckpt = load_archive.load(FIXTURE, numpy=True)
        self.assertIsInstance(ckpt["weights"], np.ndarray)
        np.testing.assert_array_equal(ckpt["half"], np.array([1.5, -2.25], dtype=np.float32))
        np.testing.assert_array_equal(ckpt["counts"], np.array([5, -7, 2**40]))

    def test_bytes_restore_pytorchs_generator(self):
        # tl::get_rng_state()'s bytes as OutputArchive writes them (nn/archive.h): two hex digits a byte.
        torch.manual_seed(7)
        state = torch.get_rng_state()
        drawn = torch.rand(5)
        entries = [["rng_state", "bytes", bytes(state.tolist()).hex()], ["none", "bytes", ""]]
        header = json.dumps({"__metadata__": {"torchless.archive": json.dumps({"version": 1, "entries": entries})}})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rng.safetensors")
            with open(path, "wb") as f:
                f.write(struct.pack("<Q", len(header)) + header.encode())
            ckpt = load_archive.load(path)
            np.testing.assert_array_equal(load_archive.load(path, numpy=True)["rng_state"], state.numpy())
        self.assertEqual(ckpt["rng_state"].dtype, torch.uint8)
        self.assertEqual(ckpt["none"].numel(), 0)
        torch.set_rng_state(ckpt["rng_state"])
        self.assertTrue(torch.equal(torch.rand(5), drawn))

    def test_not_an_archive(self):
        with tempfile.TemporaryDirectory() as d:
            header = json.dumps({"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
            plain = os.path.join(d, "plain.safetensors")
            with open(plain, "wb") as f:
                f.write(struct.pack("<Q", len(header)) + header + b"\0" * 4)
            with self.assertRaisesRegex(ValueError, "not a torchless archive"):
                load_archive.load(plain)
            with open(FIXTURE, "rb") as f:
                data = f.read()
            cut = os.path.join(d, "cut.safetensors")
            with open(cut, "wb") as f:
                f.write(data[:-5])
            with self.assertRaisesRegex(ValueError, "runs past the end of the file"):
                load_archive.load(cut)


if __name__ == "__main__":
    unittest.main()
