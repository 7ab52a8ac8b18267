#!/usr/bin/env bash
# scripts/package.sh [BUILD_DIR [OUT_DIR]] — builds the Debian packages of a shared build (configured with
# -Ddefault_library=both; default build/) with dpkg-deb from its staged install: torchless (the runtime:
# libtorchless.so.MAJOR, libtorchless_distributed.so.MAJOR, libtorchless_trace.so.MAJOR, tl-tracediff, tl-run) and
# torchless-dev (headers, static
# libraries, the .so links, .pc and CMake files). dpkg-shlibdeps names the runtime's dependencies; lintian,
# where installed, checks both (docs/deployment.md lists what it still says). Prints the two .deb paths.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
out=$(realpath -m "${2:-$build/packages}")
kind=$(meson introspect "$build" --buildoptions |
       /usr/bin/python3 -c "import json, sys; print(next(o['value'] for o in json.load(sys.stdin) if o['name'] == 'default_library'))")
[[ $kind != static ]] || { echo "package.sh: $build is static; configure it with -Ddefault_library=both"; exit 1; }
ninja -C "$build" >/dev/null
version=$(meson introspect "$build" --projectinfo | /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)['version'])")
major=${version%%.*}
arch=$(dpkg --print-architecture)
maintainer=${DEBFULLNAME:-torchless maintainers}" <${DEBEMAIL:-maintainers@users.noreply.a-seed-110e2709.example}>"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The install's paths hang off its own place (.pc and CMake files), so the tree staged under the build's
# prefix is moved to /usr as it is.
meson install -C "$build" --destdir "$work/stage" --quiet --no-rebuild >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
         /usr/bin/python3 -c "import json, sys; print(next(o['value'] for o in json.load(sys.stdin) if o['name'] == 'prefix'))")
libdir=$(meson introspect "$build" --buildoptions |
         /usr/bin/python3 -c "import json, sys; print(next(o['value'] for o in json.load(sys.stdin) if o['name'] == 'libdir'))")
staged=$work/stage$prefix
runtime=$work/torchless dev=$work/torchless-dev
mkdir -p "$runtime/usr/$libdir" "$runtime/usr/bin" "$dev/usr/$libdir"
mv "$staged"/$libdir/lib*.so.* "$runtime/usr/$libdir/"
tools=(tl-tracediff tl-run)
for tool in "${tools[@]}"; do mv "$staged/bin/$tool" "$runtime/usr/bin/"; done
mv "$staged/include" "$dev/usr/"
mv "$staged"/$libdir/* "$dev/usr/$libdir/"
rmdir "$staged/bin" "$staged/$libdir"
leftover=$(find "$staged" -type f)
[[ -z $leftover ]] || { echo "package.sh: installed files in neither package:"; echo "$leftover"; exit 1; }

# Debian's rules for what a package holds: stripped binaries, libraries not executable, a copyright file
# and a changelog per package.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$runtime/usr/$libdir"/lib*.so.*.*.* \
  "${tools[@]/#/$runtime/usr/bin/}"
strip --strip-debug --remove-section=.comment "$dev/usr/$libdir"/*.a
chmod 0644 "$runtime/usr/$libdir"/lib*.so.*.*.*
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
first_year=$(git log -1 --format=%ad --date=format:%Y "$(git rev-list --max-parents=0 HEAD 2>/dev/null | tail -n 1)" 2>/dev/null || true)
years=$(date +%Y -d "@$epoch")
[[ -z $first_year || $first_year == "$years" ]] || years=$first_year-$years
for root in "$runtime" "$dev"; do
  package=${root##*/}
  doc=$root/usr/share/doc/$package
  mkdir -p "$doc" "$root/DEBIAN"
  cat >"$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: torchless

Files: *
Copyright: $years torchless maintainers
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
 associated documentation files (the "Software"), to deal in the Software without restriction, including
 without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
 following conditions:
 .
 The above copyright notice and this permission notice shall be included in all copies or substantial
 portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
 LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
 EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN
 AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE
 USE OR OTHER DEALINGS IN THE SOFTWARE.
COPYRIGHT
  printf '%s (%s) unstable; urgency=medium\n\n  * Built by scripts/package.sh from the torchless repository.\n\n -- %s  %s\n' \
    "$package" "$version" "$maintainer" "$(date -R -d "@$epoch")" |
    gzip -9n >"$doc/changelog.gz"
done

# The runtime's dependencies from its ELF files (dpkg-shlibdeps reads debian/control, and our own shlibs
# file for libtorchless_trace's and libtorchless_distributed's use of libtorchless).
echo "libtorchless $major torchless (>= $version)" >"$runtime/DEBIAN/shlibs"
echo "libtorchless_distributed $major torchless (>= $version)" >>"$runtime/DEBIAN/shlibs"
echo "libtorchless_trace $major torchless (>= $version)" >>"$runtime/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$runtime/DEBIAN/triggers"
mkdir -p "$work/src/debian"
printf 'Source: torchless\n\nPackage: torchless\nArchitecture: any\n' >"$work/src/debian/control"
cp "$runtime/DEBIAN/shlibs" "$work/src/debian/shlibs.local"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -xtorchless -l"$runtime/usr/$libdir" \
            "$runtime/usr/$libdir"/lib*.so.*.*.* "${tools[@]/#/$runtime/usr/bin/}" 2>/dev/null |
          sed -n 's/^shlibs:Depends=//p')

control() {  # control ROOT SECTION DEPENDS SUMMARY DESCRIPTION
  local root=$1
  cat >"$root/DEBIAN/control" <<CONTROL
Package: ${root##*/}
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $3
Section: $2
Priority: optional
Description: $4
$5
CONTROL
  (cd "$root" && find usr -type f -exec md5sum {} + | sort -k2 >DEBIAN/md5sums)
}
control "$runtime" libs "$depends" "C++20 tensor runtime and deep-learning framework (shared libraries)" \
" torchless is a self-contained C++20 tensor runtime and small deep-learning
 framework with PyTorch's names: tensors, autograd, modules, optimizers, FX
 graphs, optimize_for_inference and a profiler, without LibTorch or Python.
 .
 This package holds the shared libraries and the tl-tracediff and tl-run tools."
control "$dev" libdevel "torchless (= $version), libdnnl-dev, zlib1g-dev, libdw-dev, libgloo-dev, pkgconf | pkg-config" \
  "C++20 tensor runtime and deep-learning framework (development files)" \
" torchless is a self-contained C++20 tensor runtime and small deep-learning
 framework with PyTorch's names: tensors, autograd, modules, optimizers, FX
 graphs, optimize_for_inference and a profiler, without LibTorch or Python.
 .
 This package holds the headers, the static libraries, the pkg-config files
 (torchless, torchless-trace) and the CMake package (find_package(torchless))."

mkdir -p "$out"
debs=()
for root in "$runtime" "$dev"; do
  deb=$out/${root##*/}_${version}_$arch.deb
  dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
  debs+=("$deb")
done
if command -v lintian >/dev/null; then
  lintian --no-tag-display-limit "${debs[@]}" >&2 || true
fi
printf '%s\n' "${debs[@]}"
