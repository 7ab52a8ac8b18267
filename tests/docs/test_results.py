#!/usr/bin/env python3
"""tests/docs/test_results.py — how scripts/results.py reads a bench/ops_compare log and tables it: PyTorch's
fastest environment and round, torchless / PyTorch per op and size, and the lines it refuses; and a bench/zoo_compare
log, a row per model and batch."""
import contextlib
import io
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import results  # noqa: E402

LOG = """# command: bench/ops_compare build
# date: 2026-11-28 02:00 UTC
# commit: abc1234
# cpu: AMD EPYC, 2 cores
# load average before torchless numel 100: 1.50 1.20 1.00
RESULT bench=ops impl=torchless op=add numel=100 threads=2 median_us=0.50 min_us=0.40 max_us=0.60
RESULT bench=ops impl=torchless op=sort numel=100 threads=2 median_us=4.00 min_us=3.90 max_us=4.10
# load average before PyTorch numel 100: 2.50 1.20 1.00
RESULT bench=ops impl=pytorch op=add numel=100 threads=2 median_us=2.00 min_us=1.90 max_us=2.10 blas=reference allocator=glibc
RESULT bench=ops impl=pytorch op=add numel=100 threads=2 median_us=1.00 min_us=0.90 max_us=1.10 blas=openblas-pthread allocator=jemalloc
RESULT bench=ops impl=pytorch op=sort numel=100 threads=2 median_us=3.20 min_us=3.00 max_us=3.30 blas=reference allocator=glibc
RESULT bench=ops impl=torchless op=add numel=1000000 threads=2 median_us=150.0 min_us=140 max_us=160
RESULT bench=ops impl=torchless op=add numel=1000000 threads=2 median_us=120.0 min_us=110 max_us=130
RESULT bench=ops impl=pytorch op=add numel=1000000 threads=2 median_us=240.0 min_us=230 max_us=250 blas=reference allocator=glibc
"""


def log_of(text):
    return results.Log("ops.txt", text)


def results_tree(tmp, name, log):
    """A project root in `tmp` whose docs/results holds `log` as `name`, and a results.md with empty markers."""
    root = pathlib.Path(tmp)
    (root / "docs" / "results").mkdir(parents=True)
    (root / "docs" / "results" / name).write_text(log)
    (root / "docs" / "results.md").write_text(f"# Results\n\n{results.BEGIN}\n{results.END}\n")
    return root


class OpsTable(unittest.TestCase):
    def test_each_op_and_size_gets_both_sides_and_their_ratio(self):
        header, rows = results.ops_rows(log_of(LOG))
        self.assertEqual(header, ["op", "1e2 torchless µs", "PyTorch µs", "ratio",
                                  "1e6 torchless µs", "PyTorch µs", "ratio"])
        # add at 1e2: PyTorch's faster environment (1.00, not 2.00); at 1e6 torchless's faster round (120).
        self.assertEqual(rows[0], ["add", "0.50", "1.00", "0.50", "120", "240", "0.50"])
        # sort is slower than PyTorch (bold) and was not measured at 1e6.
        self.assertEqual(rows[1], ["sort", "4.00", "3.20", "**1.25**", "–", "–", "–"])

    def test_the_summary_names_the_cases_slower_than_pytorch(self):
        self.assertEqual(results.ops_summary(log_of(LOG)),
                         "Slower than PyTorch (ratio above 1) in 1 of 4 cases: sort at 1e2.")

    def test_load_averages_before_each_process_are_the_logs_conditions(self):
        self.assertIn("1-minute load average during the run 1.50–2.50", log_of(LOG).conditions())

    def test_an_ops_line_without_its_keys_is_refused_with_its_place(self):
        with self.assertRaises(SystemExit) as caught:
            log_of("RESULT bench=ops impl=torchless numel=100 median_us=1\n")
        self.assertIn("ops.txt:1: RESULT line without op=", str(caught.exception))

    def test_the_page_gets_the_ops_table_and_no_chart(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = results_tree(tmp, "ops.txt", LOG)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(results.page(root, check=False), 0)
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(results.page(root, check=True), 0)
            text = (root / "docs" / "results.md").read_text()
            self.assertIn("### Ops per call, torchless / PyTorch (bench/ops_compare): 2 threads", text)
            self.assertIn("| sort | 4.00 | 3.20 | **1.25** | – | – | – |", text)
            self.assertEqual(list((root / "docs" / "results").glob("*.svg")), [])


ZOO_LOG = """# command: bench/zoo_compare build --models resnet18,vit_b_16
# date: 2026-11-28 21:00 UTC
# load average before resnet18 batch 1: 3.00 2.00 1.00
RESULT bench=inference impl=torchless variant=optimized precision=fp32 batch=1 median_ms=10.00 min_ms=9.00 max_ms=12.00 first_ms=300.0 arena_bytes=1 error=1e-07 rss_mib=80 model=resnet18 size=224
RESULT bench=inference impl=pytorch variant=eager_nchw precision=fp32 batch=1 median_ms=30.00 min_ms=29 max_ms=31 rss_mib=200 blas=reference allocator=glibc model=resnet18 size=224
RESULT bench=inference impl=pytorch variant=jit_freeze_optimize precision=fp32 batch=1 median_ms=15.00 min_ms=14 max_ms=16 rss_mib=210 blas=openblas-pthread allocator=jemalloc model=resnet18 size=224
RESULT bench=inference impl=onnxruntime variant=1.30.0 precision=fp32 batch=1 median_ms=12.00 min_ms=11 max_ms=13 rss_mib=150 model=resnet18 size=224
RESULT bench=inference impl=torchless variant=optimized precision=fp32 batch=1 median_ms=100.00 min_ms=90.00 max_ms=120.00 first_ms=900.0 arena_bytes=1 error=1e-07 rss_mib=400 model=vit_b_16 size=224
RESULT bench=inference impl=pytorch variant=eager_channels_last precision=fp32 batch=1 median_ms=80.00 min_ms=79 max_ms=81 rss_mib=500 blas=reference allocator=glibc model=vit_b_16 size=224
"""


class ZooTable(unittest.TestCase):
    def test_each_model_gets_its_own_rows_with_its_partners(self):
        header, rows = results.inference_rows(log_of(ZOO_LOG))
        self.assertEqual(header[0], "model")
        self.assertEqual(header[-1], "peak RSS MiB torchless / PyTorch / ORT")
        # resnet18: PyTorch's fastest variant and environment (jit, 15 ms), ONNX Runtime's 12 ms.
        self.assertEqual(rows[0], ["resnet18", "fp32", "1", "10.00 (9.00–12.00)", "100.0", "jit_freeze_optimize",
                                   "openblas-pthread, jemalloc", "15.00", "1.50x", "12.00", "1.20x", "300.0",
                                   "80 / 210 / 150"])
        # vit_b_16: slower than PyTorch (0.80x), no ONNX Runtime line.
        self.assertEqual(rows[1], ["vit_b_16", "fp32", "1", "100.00 (90.00–120.00)", "10.0", "eager_channels_last",
                                   "reference, glibc", "80.00", "0.80x", "–", "–", "900.0", "400 / 500 / –"])

    def test_a_log_without_models_keeps_the_resnet18_table(self):
        log = log_of("\n".join(line.replace(" model=resnet18 size=224", "") for line in ZOO_LOG.splitlines()
                               if "vit_b_16" not in line or line.startswith("#")))
        header, rows = results.inference_rows(log)
        self.assertEqual(header[0], "precision")
        self.assertEqual(header[-1], "peak RSS MiB torchless / PyTorch")
        self.assertEqual(rows, [["fp32", "1", "10.00 (9.00–12.00)", "100.0", "jit_freeze_optimize",
                                 "openblas-pthread, jemalloc", "15.00", "1.50x", "12.00", "1.20x", "300.0",
                                 "80 / 210"]])
        self.assertEqual(results.title(log, "inference"), "ResNet18 inference (bench/compare)")

    def test_the_page_names_the_models_and_draws_no_mixed_chart(self):
        self.assertEqual(results.title(log_of(ZOO_LOG), "inference"),
                         "Model zoo inference (bench/zoo_compare): resnet18, vit_b_16")
        with tempfile.TemporaryDirectory() as tmp:
            root = results_tree(tmp, "zoo.txt", ZOO_LOG)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(results.page(root, check=False), 0)
            self.assertIn("| vit_b_16 | fp32 | 1 |", (root / "docs" / "results.md").read_text())
            self.assertEqual(list((root / "docs" / "results").glob("*.svg")), [])


if __name__ == "__main__":
    unittest.main()
