#!/bin/bash
# emucluster refuses clearly, with exit code 77 and a message that says what to do, when it is not
# run as root and when iproute2 is missing; and `up` with bad arguments is a usage error (2).
#   refusals_test.sh --emucluster PATH
set -uo pipefail
emu=$2
fail() { echo "FAILED: $*"; exit 1; }
expect() { # expect CODE PATTERN -- command...
  local code=$1 pattern=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  [[ $rc == "$code" ]] || fail "'$*' exited $rc, expected $code: $out"
  grep -qE -- "$pattern" <<<"$out" || fail "'$*' said '$out', expected /$pattern/"
  echo "  ok: $* -> $rc: $out"
}
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
  expect 77 'must run as root' -- setpriv --reuid=65534 --regid=65534 --clear-groups "$emu" up 2
else
  expect 77 'must run as root' -- "$emu" up 2
fi
if [[ $(id -u) == 0 ]]; then
  # A PATH with everything but ip and tc.
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
    for f in "$d"/*; do
      name=${f##*/}
      [[ $name == ip || $name == tc || -e $bin/$name ]] || ln -s "$f" "$bin/$name"
    done
  done
  expect 77 'install iproute2' -- env PATH="$bin" /bin/bash "$emu" up 2
  expect 2 'N must be' -- "$emu" --cluster refz up 0
  expect 2 'unknown option' -- "$emu" --cluster refz up 2 --bogus
  expect 3 'not up' -- "$emu" --cluster refz status
fi
echo "emucluster.refusals: passed"
