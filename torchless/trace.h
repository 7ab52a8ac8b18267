// torchless/trace.h — the umbrella header of trace analysis (library tl_trace, pkg-config
// torchless-trace): loading traces, TraceDiff and its SVG charts. The runtime does not link it.
#pragma once

#include "trace/diff_chart.h"
#include "trace/trace.h"
#include "trace/trace_diff.h"
