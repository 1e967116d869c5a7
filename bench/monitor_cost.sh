#!/usr/bin/env bash
# What [adapt]'s monitor costs a shape whose model is right (issue 16): the first CALLS 1-byte
# MPI_Bcast calls of a shape (bench/bcast_latency with no warm-up, so the monitor's agreements at
# the 8th, 64th and 512th call fall inside), on the simulated cluster, per P: SMPI's native
# Bcast, and collsel with [adapt] mode off, monitor and explore (log off, the model calibrated on
# that platform). Times are SMPI's simulated times (deterministic, one run each): the network's
# and the per-message overheads the platform declares, so the difference between `off` and
# `monitor` is what the agreements' messages cost. The shim's own CPU time is not simulated:
# its per-call instructions are bench/log_cost.sh's `adapt` mode (callgrind).
# Run from the repository root after a full build (build/smpi):
#   bash bench/monitor_cost.sh [PLATFORM] [CALLS] [P...]
set -euo pipefail
platform=${1:-ib-fattree}
calls=${2:-1000}
shift $(($# > 2 ? 2 : $#))
ranks=("$@")
((${#ranks[@]})) || ranks=(16 64 256)
root=$(cd "$(dirname "$0")/.." && pwd)
shim=$root/build/smpi/pmpi/libcollsel-smpi.so
model=$root/docs/benchmarks/at-scale/models/$platform.toml
for f in "$shim" "$model"; do [[ -e $f ]] || { echo "missing $f (build first; or no model for $platform)" >&2; exit 1; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicc -O2 -o "$work/bcast_latency" "$root/bench/bcast_latency.c" 2>/dev/null

per_call_ns() {  # P MODE: one batch of $calls calls, no warm-up; rank 0's median = the batch
  local args=(--platform "$platform" -n "$1" --ppn 1 --timeout 3600)
  if [[ $2 == native ]]; then
    args+=(--native)
  else
    args+=(--model "$model" --shim "$shim")
  fi
  COLLSEL_CONFIG=/dev/null COLLSEL_LOG_LEVEL=off COLLSEL_ADAPT=${2/native/off} \
    "$root/tools/simcluster/simcluster" run "${args[@]}" -- "$work/bcast_latency" 1 "$calls" bcast 0 \
    2>/dev/null | sed -nE 's/^bcast_latency_ns median=([0-9.]+).*/\1/p'
}

echo "# $platform, the first $calls calls of a 1-byte MPI_Bcast: simulated ns per call"
echo "P,native_ns,off_ns,monitor_ns,explore_ns,monitor_minus_off_ns,monitor_over_off"
for p in "${ranks[@]}"; do
  declare -A t=()
  for mode in native off monitor explore; do
    t[$mode]=$(per_call_ns "$p" "$mode")
    [[ -n ${t[$mode]} ]] || { echo "P = $p, $mode: the run printed no time" >&2; exit 1; }
  done
  awk -v p="$p" -v n="${t[native]}" -v o="${t[off]}" -v m="${t[monitor]}" -v e="${t[explore]}" \
    'BEGIN { printf "%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.4f\n", p, n, o, m, e, m - o, m / o }'
done
