#!/bin/bash
# emucluster.calibrate_two_levels: on 2 hosts with 2 ranks each, collsel-calibrate measures
# [plogp] across the hosts (rank 0 against rank 2) and [intra_node] within host 0 (rank 0 against
# rank 1); the inter-node gap of 64 KiB must be well above the intra-node one (100 Mbit/s link
# against shared memory).
#   calibrate_two_levels_test.sh --emucluster PATH --calibrate PATH [--mpiexec PATH]
# Exit: 0 pass, 1 fail, 77 skipped (not root, no iproute2, or no network namespaces here).
set -uo pipefail
emu="" calibrate="" mpiexec=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --emucluster) emu=$2; shift 2 ;;
    --calibrate) calibrate=$2; shift 2 ;;
    --mpiexec) mpiexec=$2; shift 2 ;;
    *) echo "calibrate_two_levels: unknown argument $1" >&2; exit 2 ;;
  esac
done
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
[[ $(id -u) == 0 ]] || skip "needs root (network namespaces, tc)"
command -v ip >/dev/null && command -v tc >/dev/null || skip "needs iproute2 (ip, tc)"
cluster="ctl$$"
work=$(mktemp -d /tmp/emucluster-ctl.XXXXXX)
trap 'timeout 30 "$emu" --cluster "$cluster" down >/dev/null 2>&1; rm -rf "$work"' EXIT
timeout 30 "$emu" --cluster "$cluster" up 2 --profile fast-ethernet >"$work/up.log" 2>&1
rc=$?
[[ $rc == 77 ]] && skip "emucluster cannot run here: $(tail -1 "$work/up.log")"
[[ $rc == 0 ]] || fail "up exited $rc: $(cat "$work/up.log")"
margs=(--timeout 50 --ppn 2)
[[ -n $mpiexec ]] && margs+=(--mpiexec "$mpiexec")
"$emu" --cluster "$cluster" mpiexec "${margs[@]}" -- "$calibrate" --quick --budget 8 \
  --max-bytes 65536 -o "$work/m.toml" >"$work/out" 2>&1 || {
  rc=$?
  # The cause first (CI shows the start of a failed test's output), then the whole output.
  echo "FAILED: calibrate exited $rc; its last lines:"; tail -n 12 "$work/out"
  echo "--- the whole output:"; cat "$work/out"; exit 1; }
python3 - "$work/m.toml" <<'PY' || fail "model file checks"
import sys, tomllib
doc = tomllib.load(open(sys.argv[1], "rb"))
pv, inter, intra = doc["provenance"], doc["plogp"], doc.get("intra_node")
assert intra is not None, "no [intra_node] table"
assert pv["ranks"] == 4 and pv["ranks_per_node"] == 2 and len(pv["hosts"]) == 2, pv
assert "ranks 0 and 2 (different nodes)" in pv["notes"], pv["notes"]
assert "[intra_node] between ranks 0 and 1" in pv["notes"], pv["notes"]
g_inter, g_intra = inter["gap_s"][-1], intra["gap_s"][-1]
assert g_inter > 3 * g_intra, f"g(64 KiB): inter-node {g_inter}, intra-node {g_intra}"
print(f"g(64 KiB): inter-node {g_inter * 1e6:.0f} us, intra-node {g_intra * 1e6:.1f} us")
PY
echo "emucluster.calibrate_two_levels: passed"
