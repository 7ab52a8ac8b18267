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
# The .pc files find their prefix from their own place: no sysroot needed for the staged tree.
export PKG_CONFIG_PATH="$pc"
# A user project with folders named as ours (core/, nn/) must still get torchless's headers: the installed
# headers include each other as <torchless/...> and the .pc names only the include root.
user=$stage/user_project
mkdir -p "$user/core" "$user/nn"
for h in core/tensor.h core/dispatch.h nn/module.h; do
  echo "#error \"the user's own $h was included instead of torchless's\"" >"$user/$h"
done
if grep -rnE '^\s*#\s*include\s+"(core|ops|autograd|data|nn|optim|fx|profiler|models|trace)/' \
     "$(pkg-config --variable=includedir torchless)/torchless"; then
  echo "installed headers include a torchless header by its source-tree path (above)"; exit 1
fi
g++ -std=c++20 -O2 -I"$user" examples/quickstart.cpp -o "$stage/quickstart" $(pkg-config --cflags --libs torchless)
"$stage/quickstart" > "$stage/out.txt"
echo "install check: built and ran examples/quickstart.cpp against the installed torchless, beside a project with its own core/ and nn/"
cat "$stage/out.txt"

cat > "$stage/trace_check.cpp" <<'CPP'
#include <cstdio>
#include <torchless/trace.h>
#include <torchless/core/file_writer.h>

int main(int, char** argv) {
  const std::string path = std::string(argv[1]) + "/t.json.gz";
  tl::write_file(path, R"({"traceEvents": [{"ph": "X", "name": "aten::add", "ts": 1, "dur": 5, "pid": 1, "tid": 1}]})",
                 "trace_check");
  tl::trace::Trace t = tl::trace::load_trace(path);
  std::printf("%zu event: %s, %lld ns\n", t.events.size(), t.str(t.events[0].name).c_str(),
              static_cast<long long>(t.events[0].dur));
}
CPP
g++ -std=c++20 -O2 -I"$user" "$stage/trace_check.cpp" -o "$stage/trace_check" $(pkg-config --cflags --libs torchless-trace)
echo "install check: built and ran a trace program against the installed torchless-trace"
"$stage/trace_check" "$stage"

# The .pc files must not repeat flags, and must resolve with --define-prefix and after the tree moves.
libs=$(pkg-config --libs torchless)
[[ $(grep -o -- '-fopenmp' <<<"$libs" | wc -l) -eq 1 ]] || { echo "torchless.pc repeats flags: $libs"; exit 1; }
inc=$(pkg-config --define-prefix --cflags-only-I torchless | awk '{print substr($1, 3)}')
[[ -f $inc/torchless/torchless.h ]] || { echo "--define-prefix resolves the headers to $inc"; exit 1; }
mv "$stage/usr/local" "$stage/moved"
inc=$(PKG_CONFIG_PATH="$stage/moved/${pc#"$stage/usr/local/"}" pkg-config --cflags-only-I torchless | awk '{print substr($1, 3)}')
[[ -f $inc/torchless/torchless.h ]] || { echo "a moved tree resolves the headers to $inc"; exit 1; }
echo "install check: torchless.pc lists each flag once and resolves with --define-prefix and after a move"
