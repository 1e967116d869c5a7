#!/usr/bin/env bash
# Cost of counting the collectives collsel does not serve (pmpi/uncovered.cpp: a PMPI_Wtime on each
# side and two relaxed atomic adds per call), on a 1-int MPI_Allreduce (bench/bcast_latency ... allreduce):
#   1. instructions per call under callgrind, one rank, without the shim and with it (log off):
#      (Ir(2N calls) - Ir(N calls)) / N, which cancels start-up and finalize and is repeatable
#      whatever the load (bench/log_cost.sh does the same for the log levels);
#   2. wall time per call at RANKS ranks (default 2): RUNS interleaved runs, median of the runs'
#      medians (noisy on a shared 2-core machine, hence 1.).
# Run from the build dir:  bash ../bench/uncovered_cost.sh [RUNS] [N] [RANKS]
set -euo pipefail
runs=${1:-5}
calls=${2:-20000}
ranks=${3:-2}
shim=$PWD/pmpi/libcollsel.so
prog=$PWD/bench/bcast_latency
for f in "$shim" "$prog"; do [[ -e $f ]] || { echo "missing $f: build first" >&2; exit 1; }; done
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

instructions() {  # variant calls -> Ir of the whole run
  local env=()
  [[ $1 == shim ]] && env=(env LD_PRELOAD="$shim" COLLSEL_CONFIG=/dev/null COLLSEL_LOG_LEVEL=off)
  "${env[@]}" valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1.$2" "$prog" 1 "$2" allreduce \
    >/dev/null 2>"$work/cg.log" || { cat "$work/cg.log" >&2; exit 1; }
  sed -nE 's/^summary: ([0-9]+)$/\1/p' "$work/cg.$1.$2"
}
echo "instructions per MPI_Allreduce (callgrind, 1 rank, $calls vs $((2 * calls)) calls):"
declare -A per_call
for v in native shim; do
  a=$(instructions "$v" "$calls")
  b=$(instructions "$v" $((2 * calls)))
  per_call[$v]=$(( (b - a) / calls ))
  printf '  %-7s %6d\n' "$v" "${per_call[$v]}"
done
printf '  counting costs %d instructions a call\n' $((per_call[shim] - per_call[native]))

echo "wall time per MPI_Allreduce, $ranks ranks, median of $runs interleaved runs (ns):"
declare -A medians
for ((r = 0; r < runs; r++)); do
  for v in native shim; do
    env=()
    [[ $v == shim ]] && env=(-genv LD_PRELOAD "$shim" -genv COLLSEL_CONFIG /dev/null -genv COLLSEL_LOG_LEVEL off)
    line=$(timeout 300 mpiexec -n "$ranks" "${env[@]}" "$prog" 11 "$calls" allreduce)
    medians[$v]+="$(sed -E 's/.*median=([0-9.]+).*/\1/' <<<"$line") "
  done
done
for v in native shim; do
  printf '  %-7s median %s  (runs: %s)\n' "$v" \
    "$(tr ' ' '\n' <<<"${medians[$v]}" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
    "${medians[$v]}"
done
