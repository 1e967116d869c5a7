#!/usr/bin/env bash
# What the emulated links deliver (run as root): for each profile, an 8-host emucluster and
#   - ping-pong between 2 hosts, nothing else running: latency and bandwidth per size;
#   - the same pair while the 6 other hosts' ranks wait in MPI_Barrier (8 ranks on 2 cores),
#     with MPICH's default busy polling and with MPIR_CVAR_POLLS_BEFORE_YIELD=1.
# Prints rank 0's tables (tests/emucluster/pingpong.c) for docs/BENCHMARKS.md.
#   - TRIALS alternating short runs of the 8-host case, default vs yield, to show how the
#     outcome varies from run to run (the median 1-byte and 4 KiB latency of each run).
#   bash bench/emulinks.sh [--build DIR] [--profiles "fast-ethernet gige"] [--time SECONDS]
#                          [--trials N] [--trials-only]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$root/build
profiles="fast-ethernet gige"
per_size=0.3
trials=3
tables=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(realpath "$2"); shift 2 ;;
    --profiles) profiles=$2; shift 2 ;;
    --time) per_size=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --trials-only) tables=0; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "emulinks.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
emu=$root/tools/emucluster/emucluster
pingpong=$build/tests/emucluster/programs/pingpong
[[ -x $pingpong ]] || { echo "emulinks.sh: $pingpong missing: build first" >&2; exit 2; }
cluster=links
trap '"$emu" --cluster $cluster down >/dev/null 2>&1 || true' EXIT
for profile in $profiles; do
  "$emu" --cluster $cluster down >/dev/null 2>&1 || true
  "$emu" --cluster $cluster up 8 --profile "$profile"
  if ((tables)); then
  echo "== $profile: 2 hosts, nothing else running"
  "$emu" --cluster $cluster mpiexec --hosts 2 -- "$pingpong" --time "$per_size"
  echo "== $profile: 8 hosts, 6 waiting in MPI_Barrier, MPICH default (busy polling)"
  "$emu" --cluster $cluster mpiexec -- "$pingpong" --time "$per_size" --max 1048576
  echo "== $profile: 8 hosts, 6 waiting in MPI_Barrier, MPIR_CVAR_POLLS_BEFORE_YIELD=1"
  MPIR_CVAR_POLLS_BEFORE_YIELD=1 "$emu" --cluster $cluster mpiexec -- "$pingpong" \
    --time "$per_size" --max 1048576
  fi
  for ((t = 1; t <= trials; t++)); do
    for mode in default yield; do
      env=()
      [[ $mode == yield ]] && env=(env MPIR_CVAR_POLLS_BEFORE_YIELD=1)
      "${env[@]}" "$emu" --cluster $cluster mpiexec -- "$pingpong" --time 0.2 --max 4096 |
        awk -v p="$profile" -v t="$t" -v m="$mode" '
          $1 == 1 { one = $3 } $1 == 4096 { four = $3 }
          END { printf "trial %s %-13s 8 ranks, %-7s 1 B: %9.1f us   4 KiB: %9.1f us\n", t, p, m, one, four }'
    done
  done
  echo "== $profile: qdisc counters after the runs"
  "$emu" --cluster $cluster status
  "$emu" --cluster $cluster down >/dev/null
done
