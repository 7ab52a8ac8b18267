#!/usr/bin/python3
"""Writes tests/trace/data/kineto_ddp/: kineto GPU traces of a two-GPU data-parallel training job (a control
and a test run, one trace per rank), built event by event in kineto's format, and hta_expected.json, what
HTA's TraceDiff (shared/anchors/hta, MIT) gives on them, with its shorten_name of tricky names and the
"stream" it reads from each event of kineto_streams/streams.json; tests/trace/test_trace_diff_gpu.cpp and
tests/trace/check_tracediff_cli.py compare tl-tracediff with every number of it.
usage (from the project root; HTA's apt packages: shared/anchors/hta/HOW_TO_RUN.md):
    PYTHONPATH=../shared/anchors/hta /usr/bin/python3 tests/trace/gen_kineto_ddp.py

The traces follow what PyTorch's profiler writes through kineto with CUDA: CPU events (cat "cpu_op",
"user_annotation" for record_function scopes and ProfilerStep#N, "python_function", "cuda_runtime" for
cudaLaunchKernel / cudaMemcpyAsync / cudaMemsetAsync / cudaStreamSynchronize) on the process's pid and
thread; GPU events (cat "kernel", "gpu_memcpy", "gpu_memset", and a newer kineto's "cuda_sync") with pid =
the device and tid = the stream, args "device", "stream", "correlation" equal to their launch's; the
"ac2g" flow pair ("s" at the launch, "f" at the GPU event) per launch; "gpu_user_annotation" spans (no
"stream" in args) that mirror the step and optimizer scopes on the GPU timeline, written last as kineto
writes them, so the GPU span of ProfilerStep#N overlaps the start of step N+1 on the CPU; the "Trace" span,
an "Iteration Start" instant, [memory] instants and process/thread metadata. Kernel names are demangled
C++ with templates, arguments and return types, as CUPTI reports them. Times are whole microseconds (as
PyTorch 1.13's kineto writes them), so HTA's rounding to microseconds changes nothing."""
import json
import os
import pathlib

os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"  # read when HTA is imported; the times are whole anyway

from hta.trace_analysis import TraceAnalysis  # noqa: E402
from hta.trace_diff import DeviceType, LabeledTrace, TraceDiff  # noqa: E402
from hta.utils.utils import shorten_name  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "data" / "kineto_ddp"
COMPUTE, NCCL = 7, 20  # the streams kineto names "stream 7" and "stream 20"

GEMM = {  # the GEMM kernel cuBLAS picks differs with the batch; HTA's short names merge them
    "control": "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
               "(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
    "test": "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4>"
            "(cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4::Params)",
}
GEMV = ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, false, true, true, "
        "false, 7, false, cublasGemvParams<cublasGemvTensorStrided<float const>, cublasGemvTensorStrided<float const>, "
        "cublasGemvTensorStrided<float>, float> >(cublasGemvParams<cublasGemvTensorStrided<float const>, "
        "cublasGemvTensorStrided<float const>, cublasGemvTensorStrided<float>, float>)")


def elementwise(functor):
    return (f"void at::native::vectorized_elementwise_kernel<4, {functor}, at::detail::Array<char*, 3> >"
            f"(int, {functor}, at::detail::Array<char*, 3>)")


ADD = elementwise("at::native::CUDAFunctorOnSelf_add<float>")
MUL = elementwise("at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >")
DROPOUT = ("void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, bool>"
           "(at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float, unsigned int>, "
           "at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)")
ALLREDUCE = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"


class TraceWriter:
    """One rank's trace: a CPU clock on the main thread and a clock per GPU stream, in microseconds."""

    def __init__(self, rank, run):
        self.rank, self.run = rank, run
        self.pid = 3100 + rank  # the process; the GPU events' pid is the device (= the rank)
        self.events, self.gpu_spans = [], []
        self.now = 1_700_000_000_000 + 37 * rank
        self.stream_free = {COMPUTE: 0, NCCL: 0}
        self.correlation = 900 + 1000 * rank
        self.external_id = 0
        self.open_gpu = []  # [name, first GPU start, last GPU end] of the enclosing annotated scopes

    def slow(self, us):
        """`us` scaled for the run and rank: the test run has the bigger batch, rank 1 a slower GPU."""
        return us * (3 if self.run == "test" else 2) // 2 + self.rank

    def cpu(self, cat, name, ts, dur, **args):
        self.external_id += 1
        args.setdefault("External id", self.external_id)
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": self.pid, "tid": self.pid,
                            "ts": ts, "dur": dur, "args": args})
        return self.events[-1]

    def scope(self, cat, name, body, mirror_on_gpu=False):
        """A CPU event around body(); its duration is set when body returns."""
        start = self.now
        self.now += 2
        event = self.cpu(cat, name, start, 0)
        if mirror_on_gpu:
            self.open_gpu.append([name, None, None])
        body()
        self.now += 2
        event["dur"] = self.now - start
        if mirror_on_gpu:
            name, first, last = self.open_gpu.pop()
            if first is not None:
                self.gpu_spans.append((name, first, last))
        self.now += 1

    def launch(self, runtime, cat, name, gpu_us, stream=COMPUTE, bytes_=None):
        """A cuda_runtime call that queues one GPU event, with kineto's ac2g flow between them."""
        self.correlation += 1
        corr = self.correlation
        call_ts = self.now
        cbid = {"cudaLaunchKernel": 211, "cudaMemcpyAsync": 41, "cudaMemsetAsync": 51,
                "cudaStreamSynchronize": 131}[runtime]
        self.cpu("cuda_runtime", runtime, call_ts, 5, cbid=cbid, correlation=corr)
        start = max(self.stream_free[stream], call_ts + 4)
        dur = self.slow(gpu_us)
        self.stream_free[stream] = start + dur
        args = {"device": self.rank, "context": 1, "stream": stream, "correlation": corr}
        if cat == "kernel":
            args.update({"registers per thread": 32, "shared memory": 0, "grid": [54, 1, 1], "block": [128, 1, 1],
                         "est. achieved occupancy %": 25})
        elif bytes_ is not None:
            args.update({"bytes": bytes_, "memory bandwidth (GB/s)": round(bytes_ / dur / 1000, 3)})
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": self.rank, "tid": stream, "ts": start,
                            "dur": dur, "args": args})
        self.events.append({"ph": "s", "id": corr, "pid": self.pid, "tid": self.pid, "ts": call_ts,
                            "cat": "ac2g", "name": "ac2g"})
        self.events.append({"ph": "f", "id": corr, "pid": self.rank, "tid": stream, "ts": start,
                            "cat": "ac2g", "name": "ac2g", "bp": "e"})
        for span in self.open_gpu:
            span[1] = start if span[1] is None else min(span[1], start)
            span[2] = start + dur if span[2] is None else max(span[2], start + dur)
        self.now += 6
        return start + dur

    def op(self, name, kernels=(), children=()):
        """A cpu_op holding its children ops and launching its kernels."""
        def body():
            for child in children:
                child()
            for runtime, cat, kernel, us, *rest in kernels:
                self.launch(runtime, cat, kernel, us, *rest)
            self.now += 3
        self.scope("cpu_op", name, body)

    def memory(self, nbytes):
        self.events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": self.pid,
                            "tid": self.pid, "ts": self.now, "args": {"Total Reserved": 0, "Total Allocated": 0,
                                                                      "Bytes": nbytes, "Addr": 94000000,
                                                                      "Device Id": self.rank, "Device Type": 1}})

    def step(self, n):
        test = self.run == "test"
        kernel = ("cudaLaunchKernel", "kernel")

        def forward():
            self.scope("python_function", "torch/nn/modules/linear.py(114): forward",
                       lambda: self.op("aten::linear", children=[
                           lambda: self.op("aten::t", children=[lambda: self.op("aten::transpose")]),
                           lambda: self.op("aten::addmm", kernels=[(*kernel, GEMM[self.run], 40)])]))
            self.op("aten::mv", kernels=[(*kernel, GEMV, 9)])
            if test:  # the test run adds dropout
                self.op("aten::dropout", children=[
                    lambda: self.op("aten::native_dropout", kernels=[(*kernel, DROPOUT, 7)])])
            self.op("aten::mul", kernels=[(*kernel, MUL, 5)])
            self.memory(4096)
            self.op("aten::copy_", kernels=[("cudaMemcpyAsync", "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)",
                                             12, COMPUTE, 65536)])
            if not test:  # the test run drops the zeroing
                self.op("aten::zero_", kernels=[("cudaMemsetAsync", "gpu_memset", "Memset (Device)", 2, COMPUTE,
                                                 4096)])

        def allreduce():
            self.op("record_param_comms", kernels=[(*kernel, ALLREDUCE, 400, NCCL)])

        def optimizer():
            for _ in range(3 if test else 2):  # one add_ per parameter: the test model has one more
                self.op("aten::add_", kernels=[(*kernel, ADD, 3)])

        def loss_item():
            self.op("aten::item", children=[lambda: self.op("aten::_local_scalar_dense", kernels=[
                ("cudaMemcpyAsync", "gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 2, COMPUTE, 4)])])
            self.correlation += 1  # cudaStreamSynchronize and the newer kineto's cuda_sync event it waits on
            call_ts, idle = self.now, max(self.now + 2, self.stream_free[COMPUTE])
            self.cpu("cuda_runtime", "cudaStreamSynchronize", call_ts, idle - call_ts + 3, cbid=131,
                     correlation=self.correlation)
            self.events.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": self.rank,
                                "tid": COMPUTE, "ts": max(call_ts, idle - 5), "dur": 5,
                                "args": {"device": self.rank, "context": 1, "stream": COMPUTE,
                                         "correlation": self.correlation, "cuda_sync_kind": "stream_sync"}})
            self.now = idle + 4

        def body():
            forward()
            self.scope("user_annotation", "nccl:all_reduce", allreduce)
            self.scope("user_annotation", "Optimizer.step#SGD.step", optimizer, mirror_on_gpu=True)
            loss_item()
            self.memory(-4096)

        self.scope("user_annotation", f"ProfilerStep#{n}", body, mirror_on_gpu=True)

    def document(self):
        start = self.now
        self.now += 20
        self.op("aten::empty")  # before the first step: in no iteration
        for n in (5, 6):
            self.step(n)
        self.events.insert(0, {"ph": "X", "cat": "Trace", "ts": start - 10, "dur": self.now - start + 20,
                               "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)",
                               "args": {"Op count": 0}})
        self.events.insert(1, {"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces",
                               "tid": "Trace PyTorch Profiler", "ts": start - 10})
        for name, first, last in self.gpu_spans:  # kineto writes the GPU user annotations after the rest
            self.events.append({"ph": "X", "cat": "gpu_user_annotation", "name": name, "pid": self.rank,
                                "tid": COMPUTE, "ts": first - 1, "dur": last - first + 2,
                                "args": {"External id": 0}})
        metadata = [{"name": "process_name", "ph": "M", "ts": start, "pid": self.pid, "tid": 0,
                     "args": {"name": "python3"}},
                    {"name": "process_name", "ph": "M", "ts": start, "pid": self.rank, "tid": 0,
                     "args": {"name": f"GPU {self.rank}"}},
                    {"name": "thread_name", "ph": "M", "ts": start, "pid": self.rank, "tid": COMPUTE,
                     "args": {"name": f"stream {COMPUTE}"}},
                    {"name": "thread_name", "ph": "M", "ts": start, "pid": self.rank, "tid": NCCL,
                     "args": {"name": f"stream {NCCL}"}}]
        return {"schemaVersion": 1,
                "deviceProperties": [{"id": self.rank, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42314694656,
                                      "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
                "distributedInfo": {"backend": "nccl", "rank": self.rank, "world_size": 2},
                "traceEvents": metadata + self.events,
                "traceName": f"rank{self.rank}.pt.trace.json", "displayTimeUnit": "ms"}


# Each case: tl's CompareOptions fields (as the test sets them) and HTA's compare_traces arguments.
CASES = [
    ("default", {}, {}),
    ("gpu", {"device_type": "gpu"}, {"device_type": DeviceType.GPU}),
    ("cpu", {"device_type": "cpu"}, {"device_type": DeviceType.CPU}),
    ("short_names", {"use_short_name": True}, {"use_short_name": True}),
    ("gpu_short_names", {"device_type": "gpu", "use_short_name": True},
     {"device_type": DeviceType.GPU, "use_short_name": True}),
    ("cpu_short_names", {"device_type": "cpu", "use_short_name": True},
     {"device_type": DeviceType.CPU, "use_short_name": True}),
    ("gpu_rank1_step6", {"device_type": "gpu", "control_ranks": [1], "test_ranks": [1], "control_steps": [6],
                         "test_steps": [6]},
     {"device_type": DeviceType.GPU, "control_rank": 1, "test_rank": 1, "control_iteration": 6,
      "test_iteration": 6}),
    ("all_ranks_all_steps_short_names", {"use_short_name": True, "control_ranks": [0, 1], "test_ranks": [0, 1],
                                         "control_steps": [5, 6], "test_steps": [5, 6], "totals": True},
     {"use_short_name": True, "control_rank": [0, 1], "test_rank": [0, 1], "control_iteration": [5, 6],
      "test_iteration": [5, 6]}),
]


# Names for HTA's shorten_name: the kernels above, and the corners of its bracket matching.
SHORT_NAME_CASES = [GEMM["control"], GEMV, ADD, DROPOUT, ALLREDUCE, "Memcpy HtoD (Pageable -> Device)",
                    "Memset (Device)", "hipMemcpyWithStream(x)", "dma_copy<1>(int)", "aten::add", "ProfilerStep#5",
                    "torch/nn/modules/linear.py(114): forward", "auto f<int>(int) -> decltype(x)", "a > b(c)",
                    "close) only", "open( only", "x<y", "-->", "void k<\u00e9>(\u00fc) \u00e0::b",
                    "std::vector<int, std::allocator<int> > ns::f<3>::g(int) const"]

# args "stream" in the forms HTA reads (pandas' to_numeric), one event each; "absent" has no stream.
STREAM_FORMS = [("int", 7), ("zero", 0), ("minus_one", -1), ("text", "8"), ("spaced_text", " 9 "),
                ("float", 7.9), ("negative_float", -7.9), ("float_text", "9.5"), ("bool", True), ("word", "x"),
                ("null", None), ("absent", "absent")]


def stream_forms_trace():
    events = []
    for i, (name, value) in enumerate(STREAM_FORMS):
        args = {} if value == "absent" else {"stream": value}
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": 100 + 10 * i, "dur": 5,
                       "args": args})
    return {"schemaVersion": 1, "traceEvents": events}


def main():
    (OUT.parent / "kineto_streams").mkdir(exist_ok=True)
    streams_file = OUT.parent / "kineto_streams" / "streams.json"
    streams_file.write_text(json.dumps(stream_forms_trace(), indent=1) + "\n")
    df = TraceAnalysis(trace_dir=str(streams_file.parent)).t.get_trace(0)
    symbols = TraceAnalysis(trace_dir=str(streams_file.parent)).t.symbol_table.get_sym_table()
    streams = [[symbols[n], int(s)] for n, s in zip(df["name"], df["stream"])]
    for run in ("control", "test"):
        (OUT / run).mkdir(parents=True, exist_ok=True)
        for rank in (0, 1):
            trace = TraceWriter(rank, run).document()
            (OUT / run / f"rank{rank}.pt.trace.json").write_text(json.dumps(trace, indent=1) + "\n")
    control = LabeledTrace(label="control", t=TraceAnalysis(trace_dir=str(OUT / "control")).t)
    test = LabeledTrace(label="test", t=TraceAnalysis(trace_dir=str(OUT / "test")).t)
    cases = []
    for name, ours, hta_args in CASES:
        df = TraceDiff.compare_traces(control, test, **hta_args)
        rows = [{"name": op, "control_counts": int(r["control_counts"]),
                 "control_total_duration": float(r["control_total_duration"]), "test_counts": int(r["test_counts"]),
                 "test_total_duration": float(r["test_total_duration"]), "diff_counts": int(r["diff_counts"]),
                 "diff_duration": float(r["diff_duration"]), "counts_change_categories": r["counts_change_categories"]}
                for op, r in df.sort_index().iterrows()]
        case = {"name": name, "options": ours, "rows": rows}
        if "use_short_name" not in hta_args:  # HTA's ops_diff takes no use_short_name
            case["ops_diff"] = TraceDiff.ops_diff(control, test, **hta_args)
        cases.append(case)
    expected = {"made_by": "tests/trace/gen_kineto_ddp.py with HTA (shared/anchors/hta), HTA_DISABLE_NS_ROUNDING=1",
                "cases": cases, "short_names": [[n, shorten_name(n)] for n in SHORT_NAME_CASES],
                "streams": streams}
    (OUT / "hta_expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
