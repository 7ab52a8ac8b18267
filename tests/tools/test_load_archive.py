#!/usr/bin/env python3
"""tests/tools/test_load_archive.py — tools/load_archive.py on tests/nn/data/archive.safetensors, the file
tl::serialize::OutputArchive writes (tests/nn/test_archive.cpp checks it byte for byte): every value as
written in C++, a model part that torch's load_state_dict takes, and files that are not archives refused.
Exits 77 (meson's "skipped") without torch."""
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

    def test_numpy_arrays(self):
        ckpt = load_archive.load(FIXTURE, numpy=True)
        self.assertIsInstance(ckpt["weights"], np.ndarray)
        np.testing.assert_array_equal(ckpt["half"], np.array([1.5, -2.25], dtype=np.float32))
        np.testing.assert_array_equal(ckpt["counts"], np.array([5, -7, 2**40]))

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
