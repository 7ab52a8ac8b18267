#!/usr/bin/python3
"""What HTA (shared/anchors/hta, MIT) reads from a directory of torchless ranks' traces, written as JSON for
tests/distributed/test_profile.cpp to compare with the traces and with tl::trace::comm_comp_overlap:
- per rank, the record_param_comms events' args as HTA's communication args parse them
  (ParserConfig.enable_communication_args): [collective_name, msg_dtype, in_msg_nelems, out_msg_nelems,
  group_size, process_rank, in_split_size, out_split_size] in time order;
- the names of the gloo:* user annotations and how many threads ran them;
- the communication/computation overlap by HTA's own steps (merge_kernel_intervals on each side, then the
  running-status sweep of CommunicationAnalysis.get_comm_comp_overlap), applied to CPU events: HTA's method
  selects GPU kernels (args "stream"), of which a Gloo trace has none, so there communication is the gloo:*
  annotations and computation the aten:: cpu_ops of the other threads. Times in nanoseconds.
usage: check_hta_comms.py HTA_DIR TRACE_DIR OUT_JSON  (HTA needs python3-pandas, -plotly, -networkx, -yaml, -psutil)"""
import json
import os
import sys

os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"  # keep the traces' nanoseconds (read when HTA is imported)


def merged_length(frame):
    return int(round(((frame["end"] - frame["ts"]).sum()) * 1000))


def overlap(comm, comp, merge_kernel_intervals, pd):
    comm_merged = merge_kernel_intervals(comm[["ts", "dur"]].copy())
    comp_merged = merge_kernel_intervals(comp[["ts", "dur"]].copy())
    # CommunicationAnalysis' sweep: communication moves the status by 1, computation by 2; 3 is both.
    status = (
        pd.concat(
            [
                comm_merged.melt(var_name="status", value_name="time").replace({"ts": 1, "end": -1}),
                comp_merged.melt(var_name="status", value_name="time").replace({"ts": 2, "end": -2}),
            ]
        )
        .sort_values(by="time")
        .reset_index(drop=True)
    )
    status["running"] = status["status"].cumsum()
    both = status[status["running"].eq(3)]
    shifted = both.merge(status.shift(-1).dropna(), left_index=True, right_index=True)
    return {
        "communication_ns": merged_length(comm_merged),
        "computation_ns": merged_length(comp_merged),
        "overlap_ns": int(round((shifted["time_y"] - shifted["time_x"]).sum() * 1000)),
    }


def main(hta_dir, trace_dir, out):
    sys.path.insert(0, hta_dir)
    import pandas as pd
    from hta.configs.parser_config import ParserConfig
    from hta.trace_analysis import TraceAnalysis
    from hta.utils.utils import merge_kernel_intervals

    ParserConfig.enable_communication_args()
    analysis = TraceAnalysis(trace_dir=trace_dir)
    symbols = analysis.t.symbol_table.get_sym_table()
    result = {}
    for rank, df in sorted(analysis.t.traces.items()):
        names = df["name"].map(lambda i: symbols[i])
        cats = df["cat"].map(lambda i: symbols[i])
        comms = df[names.eq("record_param_comms")].sort_values("ts")
        rows = [
            [r.collective_name, r.msg_dtype, int(r.in_msg_nelems), int(r.out_msg_nelems), int(r.group_size),
             int(r.process_rank), str(r.in_split_size), str(r.out_split_size)]
            for r in comms.itertuples()
        ]
        gloo = df[cats.eq("user_annotation") & names.str.startswith("gloo:")].sort_values("ts")
        comp = df[cats.eq("cpu_op") & names.str.startswith("aten::") & ~df["tid"].isin(set(gloo["tid"]))]
        result[str(rank)] = {
            "comms": rows,
            "gloo": [symbols[i] for i in gloo["name"]],
            "gloo_threads": int(gloo["tid"].nunique()),
            "overlap": overlap(gloo, comp, merge_kernel_intervals, pd),
        }
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3])
