#!/usr/bin/env bash
# tests/install/check_install.sh BUILD_DIR — installs BUILD_DIR into a staging directory and builds and runs
# out-of-tree programs against it with pkg-config and with CMake (build_consumers.sh: static, and shared too
# when the build made libtorchless.so); checks what the shared libraries export, and that the .pc files list
# each flag once and resolve with --define-prefix and after the tree moves.
set -euo pipefail
build=$(realpath "$1")
cd "$(dirname "$0")/../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --quiet
pc=$(dirname "$(find "$stage" -name torchless.pc | head -n 1)")
# The .pc files find their prefix from their own place: no sysroot needed for the staged tree.
export PKG_CONFIG_PATH="$pc"
prefix=$(realpath "$pc/$(grep '^root=' "$pc/torchless.pc" | sed 's|^root=${pcfiledir}/||')")
include=$(pkg-config --variable=includedir torchless)
if grep -rnE '^\s*#\s*include\s+"(core|ops|autograd|data|nn|optim|distributed|fx|profiler|models|trace)/' "$include/torchless"; then
  echo "installed headers include a torchless header by its source-tree path (above)"; exit 1
fi
# The shared libraries export namespace tl except the namespaces torchless/gen_export_map.py hides, which
# only headers that are not installed may open.
hidden=$(/usr/bin/python3 -c "import ast,re,sys; t=open('torchless/gen_export_map.py').read(); print('|'.join(ast.literal_eval(re.search(r'^HIDDEN = (.*)$', t, re.M).group(1))))")
if grep -rnE "namespace tl(::[a-z_]+)*::($hidden)\b" "$include/torchless"; then
  echo "an installed header opens a namespace that libtorchless.so does not export (above)"; exit 1
fi
libdir=$(pkg-config --variable=libdir torchless)
if [[ -e $libdir/libtorchless.so ]]; then
  soname=$(readelf -d "$libdir/libtorchless.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
  major=$(pkg-config --modversion torchless | cut -d. -f1)
  [[ $soname == "libtorchless.so.$major" ]] || { echo "libtorchless.so's SONAME is $soname"; exit 1; }
  exported=$(nm -D --defined-only "$libdir/libtorchless.so" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | c++filt)
  leaks=$(grep -vE 'tl::' <<<"$exported" || true; grep -E "(^|[ (<*&,])tl::($hidden)::" <<<"$exported" || true)
  [[ -z $leaks ]] || { echo "libtorchless.so exports internals:"; head -n 5 <<<"$leaks"; exit 1; }
  grep -qx 'tl::version()' <<<"$exported" || { echo "libtorchless.so does not export tl::version()"; exit 1; }
  echo "install check: libtorchless.so ($soname) exports $(wc -l <<<"$exported") symbols, none of them internal"
fi
bash tests/install/build_consumers.sh "$prefix" "$stage"

# The .pc files must not repeat flags, and must resolve with --define-prefix and after the tree moves.
libs=$(pkg-config --libs torchless)
[[ $(grep -o -- '-fopenmp' <<<"$libs" | wc -l) -eq 1 ]] || { echo "torchless.pc repeats flags: $libs"; exit 1; }
inc=$(pkg-config --define-prefix --cflags-only-I torchless | awk '{print substr($1, 3)}')
[[ -f $inc/torchless/torchless.h ]] || { echo "--define-prefix resolves the headers to $inc"; exit 1; }
mv "$stage/usr/local" "$stage/moved"
inc=$(PKG_CONFIG_PATH="$stage/moved/${pc#"$stage/usr/local/"}" pkg-config --cflags-only-I torchless | awk '{print substr($1, 3)}')
[[ -f $inc/torchless/torchless.h ]] || { echo "a moved tree resolves the headers to $inc"; exit 1; }
echo "install check: torchless.pc lists each flag once and resolves with --define-prefix and after a move"
