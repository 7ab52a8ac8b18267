#!/usr/bin/env python3
"""tests/tools/test_convert_torchvision.py — tools/convert_torchvision.py on what users hand it: a state
dict, a whole module, a training checkpoint dict (refused without --key, its model part with it), a file
with no tensors. Exits 77 (meson's "skipped") without torch."""
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import torch
except ImportError:
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "convert_torchvision.py")


def read_names(path):
    """The tensor names in a safetensors file's header."""
    import json
    import struct
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    return sorted(k for k in header if k != "__metadata__")


class ConvertTorchvision(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        torch.manual_seed(0)
        self.model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4))
        self.names = sorted(self.model.state_dict())

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def convert(self, obj, *extra):
        torch.save(obj, self.path("in.pth"))
        out = self.path("out.safetensors")
        run = subprocess.run([sys.executable, TOOL, self.path("in.pth"), out, *extra],
                             capture_output=True, text=True)
        return run, out

    def test_state_dict(self):
        run, out = self.convert(self.model.state_dict())
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), f"wrote {len(self.names)} tensors to {out}")
        self.assertEqual(read_names(out), self.names)

    def test_whole_module(self):
        run, out = self.convert(self.model)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(read_names(out), self.names)

    def test_checkpoint_dict_needs_key(self):
        opt = torch.optim.SGD(self.model.parameters(), lr=0.1, momentum=0.9)
        ckpt = {"model": self.model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}
        run, out = self.convert(ckpt)
        self.assertEqual(run.returncode, 1)
        self.assertIn("not a state dict: ['model', 'optimizer', 'epoch'] are not tensors", run.stderr)
        self.assertIn("name the part to convert with --key (one of ['model', 'optimizer'])", run.stderr)
        self.assertFalse(os.path.exists(out))

        run, out = self.convert(ckpt, "--key", "model")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(read_names(out), self.names)

        run, out = self.convert(ckpt, "--key", "weights")
        self.assertEqual(run.returncode, 1)
        self.assertIn("--key 'weights' names nothing: the file holds a dict with keys "
                      "{'model': 'OrderedDict', 'optimizer': 'dict', 'epoch': 'int'}", run.stderr)

        run, out = self.convert(ckpt, "--key", "epoch")
        self.assertEqual(run.returncode, 1)
        self.assertIn("expected a state dict ({name: tensor}), got a value of type int", run.stderr)

    def test_state_dict_entry_is_unwrapped(self):
        run, out = self.convert({"state_dict": self.model.state_dict()})
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(read_names(out), self.names)

    def test_torchvision_zoo_model(self):
        """A zoo model (squeezenet1_1, 1.2M parameters): every tensor under its name, with its shape and values
        (tests/models/test_squeezenet.cpp checks that the C++ builder has the same names and shapes)."""
        import torchvision
        model = torchvision.models.squeezenet1_1()
        run, out = self.convert(model.state_dict())
        self.assertEqual(run.returncode, 0, run.stderr)
        import json
        import struct
        with open(out, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(n))
            data = f.read()
        header.pop("__metadata__", None)
        self.assertEqual(sorted(header), sorted(model.state_dict()))
        dtypes = {"F32": torch.float32, "I64": torch.int64}
        for name, t in model.state_dict().items():
            entry = header[name]
            self.assertEqual(entry["shape"], list(t.shape), name)
            begin, end = entry["data_offsets"]
            stored = torch.frombuffer(bytearray(data[begin:end]), dtype=dtypes[entry["dtype"]]).reshape(t.shape)
            self.assertTrue(torch.equal(stored, t), name)

    def test_no_tensors(self):
        run, out = self.convert({})
        self.assertEqual(run.returncode, 1)
        self.assertIn("holds no tensors", run.stderr)
        run, out = self.convert([1, 2])
        self.assertEqual(run.returncode, 1)
        self.assertIn("expected a state dict ({name: tensor}), got a value of type list", run.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
