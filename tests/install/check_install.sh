#!/usr/bin/env bash
# tests/install/check_install.sh BUILD_DIR — installs into a staging directory and builds
# examples/quickstart.cpp out of tree with `pkg-config --cflags --libs torchless`, then runs it; then
# a small trace-analysis program with `pkg-config --cflags --libs torchless-trace` (a .json.gz round trip).
set -euo pipefail
build=$(realpath "$1")
cd "$(dirname "$0")/../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --quiet
pc=$(dirname "$(find "$stage" -name torchless.pc | head -n 1)")
export PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$stage"
g++ -std=c++20 -O2 examples/quickstart.cpp -o "$stage/quickstart" $(pkg-config --cflags --libs torchless)
"$stage/quickstart" > "$stage/out.txt"
echo "install check: built and ran examples/quickstart.cpp against the installed torchless"
cat "$stage/out.txt"

cat > "$stage/trace_check.cpp" <<'CPP'
#include <cstdio>
#include <torchless/trace.h>
#include "core/file_writer.h"

int main(int, char** argv) {
  const std::string path = std::string(argv[1]) + "/t.json.gz";
  tl::write_file(path, R"({"traceEvents": [{"ph": "X", "name": "aten::add", "ts": 1, "dur": 5, "pid": 1, "tid": 1}]})",
                 "trace_check");
  tl::trace::Trace t = tl::trace::load_trace(path);
  std::printf("%zu event: %s, %lld ns\n", t.events.size(), t.str(t.events[0].name).c_str(),
              static_cast<long long>(t.events[0].dur));
}
CPP
g++ -std=c++20 -O2 "$stage/trace_check.cpp" -o "$stage/trace_check" $(pkg-config --cflags --libs torchless-trace)
echo "install check: built and ran a trace program against the installed torchless-trace"
"$stage/trace_check" "$stage"
