#!/usr/bin/env bash
# tests/install/build_consumers.sh PREFIX WORK_DIR [default] — builds and runs out-of-tree programs against the torchless
# installed under PREFIX (a staged `meson install`, or /usr from the .deb files): with pkg-config
# (examples/quickstart.cpp and consumer/'s library, distributed and trace checks) and with CMake (consumer/, find_package),
# each in a project with its own core/ and nn/ folders. A shared install is also linked statically through
# torchless::torchless_static, unless the third argument asks for the install's default kind only. readelf checks that each program loads libtorchless.so.MAJOR exactly when it should.
set -euo pipefail
prefix=$(realpath "$1") work=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
pc=$(find "$prefix/lib" -maxdepth 3 -path '*/pkgconfig/torchless.pc' -print -quit)
[[ -n $pc ]] || { echo "no torchless.pc under $prefix/lib"; exit 1; }
export PKG_CONFIG_PATH=${pc%/*}
version=$(pkg-config --modversion torchless)
libdir=$(pkg-config --variable=libdir torchless)
kind=static
[[ -e $libdir/libtorchless.so ]] && kind=shared

# A user project with folders named as ours (core/, nn/) must still get torchless's headers: the installed
# headers include each other as <torchless/...> and the packages name only the include root.
user=$work/user_project
rm -rf "$user"
mkdir -p "$user/core" "$user/nn"
cp "$here"/consumer/* "$here/../../examples/quickstart.cpp" "$user/"
for h in core/tensor.h core/dispatch.h nn/module.h; do
  echo "#error \"the user's own $h was included instead of torchless's\"" >"$user/$h"
done

# run DIR KIND: runs the four programs built in DIR, which must be linked KIND (shared or static).
run() {
  local dir=$1 expected=$2 got
  for program in quickstart library_check distributed_check trace_check; do
    got=static
    readelf -d "$dir/$program" | grep -q 'NEEDED.*\[libtorchless' && got=shared
    [[ $got == "$expected" ]] || { echo "$dir/$program is linked $got, expected $expected"; exit 1; }
  done
  LD_LIBRARY_PATH=$libdir "$dir/library_check" "$version"
  LD_LIBRARY_PATH=$libdir "$dir/quickstart"
  LD_LIBRARY_PATH=$libdir "$dir/trace_check" "$dir"
  LD_LIBRARY_PATH=$libdir "$dir/distributed_check"
}

mkdir -p "$work/pkg-config"
for program in quickstart library_check; do
  g++ -std=c++20 -O2 -I"$user" "$user/$program.cpp" -o "$work/pkg-config/$program" $(pkg-config --cflags --libs torchless)
done
g++ -std=c++20 -O2 -I"$user" "$user/trace_check.cpp" -o "$work/pkg-config/trace_check" \
  $(pkg-config --cflags --libs torchless-trace)
g++ -std=c++20 -O2 -I"$user" "$user/distributed_check.cpp" -o "$work/pkg-config/distributed_check" \
  $(pkg-config --cflags --libs torchless-distributed)
run "$work/pkg-config" "$kind"
echo "consumers: built and ran 4 programs with pkg-config ($kind) against torchless $version in $prefix"

variants=("torchless::torchless torchless::distributed torchless::trace $kind")
[[ $kind == shared && ${3:-} != default ]] &&
  variants+=("torchless::torchless_static torchless::distributed_static torchless::trace_static static")
for variant in "${variants[@]}"; do
  read -r runtime distributed trace linked <<<"$variant"
  cmake -S "$user" -B "$work/cmake-$linked" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    -DTORCHLESS_TARGET="$runtime" -DTORCHLESS_DISTRIBUTED_TARGET="$distributed" -DTORCHLESS_TRACE_TARGET="$trace" \
    >"$work/cmake-$linked.log" \
    || { cat "$work/cmake-$linked.log"; exit 1; }
  cmake --build "$work/cmake-$linked" -j 2 >>"$work/cmake-$linked.log" || { cat "$work/cmake-$linked.log"; exit 1; }
  run "$work/cmake-$linked" "$linked"
  echo "consumers: built and ran 4 programs with CMake's find_package ($runtime, $distributed, $trace) against $prefix"
done
