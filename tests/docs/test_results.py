#!/usr/bin/env python3
"""tests/docs/test_results.py — how scripts/results.py reads a bench/ops_compare log and tables it: PyTorch's
fastest environment and round, torchless / PyTorch per op and size, and the lines it refuses."""
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
            root = pathlib.Path(tmp)
            (root / "docs" / "results").mkdir(parents=True)
            (root / "docs" / "results" / "ops.txt").write_text(LOG)
            (root / "docs" / "results.md").write_text(f"# Results\n\n{results.BEGIN}\n{results.END}\n")
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(results.page(root, check=False), 0)
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(results.page(root, check=True), 0)
            text = (root / "docs" / "results.md").read_text()
            self.assertIn("### Ops per call, torchless / PyTorch (bench/ops_compare): 2 threads", text)
            self.assertIn("| sort | 4.00 | 3.20 | **1.25** | – | – | – |", text)
            self.assertEqual(list((root / "docs" / "results").glob("*.svg")), [])


if __name__ == "__main__":
    unittest.main()
