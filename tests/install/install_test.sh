#!/usr/bin/env bash
# `cmake --install --prefix` into a scratch folder: every promised file is there, pkg-config
# points into the tree, and the installed shim, run from there, reads the installed config.
# Usage: install_test.sh BUILD_DIR MPIEXEC
set -euo pipefail
build=$1 mpiexec=$2
prefix=$(mktemp -d /tmp/collsel-install-test.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(sed -n 's/^libdir=\${prefix}\///p' "$build/collsel.pc")
for f in "$libdir/libcollsel.so" include/collsel.h bin/collsel bin/collsel-calibrate \
         "$libdir/pkgconfig/collsel.pc" libexec/collsel/examples/collectives; do
  [[ -e $prefix/$f ]] || fail "$f not installed"
done
if [[ -e $build/openmpi/pmpi/libcollsel-openmpi.so ]]; then
  [[ -e $prefix/$libdir/libcollsel-openmpi.so ]] || fail "libcollsel-openmpi.so not installed"
fi
pc() { PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig pkg-config "$@" collsel; }
confdir=$(pc --variable=confdir)
[[ -f $confdir/collsel.toml && -f $confdir/default_model.toml ]] ||
  fail "confdir=$confdir does not hold collsel.toml and default_model.toml"
[[ $(realpath "$(pc --variable=preload)") == $(realpath "$prefix/$libdir/libcollsel.so") ]] ||
  fail "preload=$(pc --variable=preload)"
[[ $(pc --variable=preload_openmpi) == "$(dirname "$(pc --variable=preload)")/libcollsel-openmpi.so" ]] ||
  fail "preload_openmpi=$(pc --variable=preload_openmpi)"

# The configured config path wins when it exists on this machine; otherwise the shim must find the
# one installed next to it.
configured=$(sed -n 's/.*"\(\/[^"]*collsel.toml\)".*/\1/p' "$build/conf/embedded.cpp" | head -1)
expect=$(realpath "$confdir/collsel.toml")
[[ -e $configured ]] && expect=$configured
logs=$prefix/logs
COLLSEL_LOG_DIR=$logs timeout 120 "$mpiexec" -n 2 -genv LD_PRELOAD "$prefix/$libdir/libcollsel.so" \
  "$prefix/libexec/collsel/examples/collectives" >/dev/null
got=$(head -1 "$logs"/*/rank-00000.jsonl | sed -n 's/.*"config":"\([^"]*\)".*/\1/p')
[[ $got == "$expect" ]] || fail "the installed shim read config '$got', expected '$expect'"
"$prefix/bin/collsel" report "$logs" >/dev/null || fail "installed collsel report failed"
echo "install tree OK: $prefix (config $got)"
