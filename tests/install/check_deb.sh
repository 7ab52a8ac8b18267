#!/usr/bin/env bash
# tests/install/check_deb.sh BUILD_DIR — (root only, as in CI) builds the .deb files of a shared build with
# scripts/package.sh, installs them with apt-get, builds and runs the consumers (build_consumers.sh) against
# /usr with pkg-config and CMake, then purges the packages and whatever apt installed with them, and checks
# that the machine is as it was: dpkg knows neither package and none of their files is left.
set -euo pipefail
build=$(realpath "$1")
cd "$(dirname "$0")/../.."
[[ $(id -u) -eq 0 ]] || { echo "check_deb.sh: needs root (apt-get install)"; exit 1; }
if dpkg-query -W torchless torchless-dev >/dev/null 2>&1; then
  echo "check_deb.sh: torchless is already installed on this machine; not touching it"; exit 1
fi
work=$(mktemp -d)
before=$work/packages.before
dpkg-query -W -f='${Package}\n' | sort >"$before"
purge() {
  local added
  added=$(dpkg-query -W -f='${Package}\n' | sort | comm -13 "$before" -)
  if [[ -n $added ]]; then
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $added >"$work/purge.log" 2>&1 || cat "$work/purge.log"
  fi
}
trap 'purge; rm -rf "$work"' EXIT

built=$(bash scripts/package.sh "$build" "$work/debs")
mapfile -t debs <<<"$built"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${debs[@]}" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
files=$(dpkg -L torchless torchless-dev | while read -r f; do if [[ ! -d $f ]]; then echo "$f"; fi; done)
echo "deb check: installed $(basename -a "${debs[@]}" | tr '\n' ' ')($(wc -l <<<"$files") files)"
# (The static targets were tried on the staged install already: check_install.sh.)
bash tests/install/build_consumers.sh /usr "$work" default

purge
if dpkg-query -W torchless torchless-dev >/dev/null 2>&1; then echo "deb check: still installed after the purge"; exit 1; fi
left=$(while read -r f; do if [[ -e $f || -L $f ]]; then echo "$f"; fi; done <<<"$files")
[[ -z $left ]] || { echo "deb check: files left after the purge:"; echo "$left"; exit 1; }
[[ ! -e /usr/include/torchless && ! -e /usr/share/doc/torchless ]] || { echo "deb check: directories left"; exit 1; }
cmp -s "$before" <(dpkg-query -W -f='${Package}\n' | sort) || { echo "deb check: the package set changed"; exit 1; }
echo "deb check: purged; no package, file or directory of torchless is left"
