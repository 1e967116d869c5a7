#!/usr/bin/env bash
# Per-call cost of each log level on a 1-byte MPI_Bcast (bench/bcast_latency), the algorithm
# forced to `native` so that only logging differs between the variants:
#   off; summary and trace, each with [log] stack_depth = 0 and 4 (trace uncapped here, and
#   traces_per_site = 0: every call formatted); default: the default [log] settings (trace,
#   stack_depth 4, the first traces_per_site = 32 calls of the one call site traced, the rest
#   summarised), what a loop of one call costs a user who changes nothing.
# Two measurements (docs/BENCHMARKS.md, "Log level cost"):
#   1. instructions per call, under callgrind, one rank (repeatable within 2 % whatever
#      the load: three runs agreed that closely): (Ir(2N calls) - Ir(N calls)) / N, which cancels start-up and finalize;
#   2. wall time per call at RANKS ranks (default 2), RUNS interleaved runs like
#      shim_overhead.sh (median of the runs' medians; noisy on 2 cores, hence 1.; RANKS = 1
#      times the same single-rank path callgrind counts).
# With a fourth argument `adapt`, the variants are instead the self-correction's modes
# (docs/ADAPT.md) with logging off and the model deciding (no override): adapt_off, adapt_monitor,
# adapt_explore; "off" in the table is then adapt_off. The monitor's agreed points (the 8th, 64th
# and 512th call) fall in the first N calls, so the per-call figure is the monitor's steady cost.
# Run from the build dir:  bash ../bench/log_cost.sh [RUNS] [N] [RANKS] [adapt]
set -euo pipefail
runs=${1:-5}
calls=${2:-20000}
ranks=${3:-2}
what=${4:-log}
shim=$PWD/pmpi/libcollsel.so
prog=$PWD/bench/bcast_latency
for f in "$shim" "$prog"; do [[ -e $f ]] || { echo "missing $f: build first" >&2; exit 1; }; done
if ! command -v valgrind >/dev/null; then
  echo "valgrind is required (apt-get install valgrind)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ $what == adapt ]]; then
  variants=(off adapt_monitor adapt_explore)
  for v in "${variants[@]}"; do
    mode=${v#adapt_}
    printf '[log]\nlevel = "off"\n[adapt]\nmode = "%s"\n' "$mode" >"$work/$v.toml"
  done
fi
[[ $what == adapt ]] || variants=(off summary_d0 summary_d4 trace_d0 trace_d4 default)
for v in "${variants[@]}"; do
  [[ $what == adapt ]] && break
  if [[ $v == default ]]; then
    printf '[log]\ndir = "%s"\n[override]\nbcast = "native"\n' "$work/logs" >"$work/$v.toml"
    continue
  fi
  level=${v%_d*}
  depth=${v##*_d}
  [[ $v == off ]] && depth=0
  cat >"$work/$v.toml" <<EOF
[log]
dir = "$work/logs"
level = "$level"
stack_depth = $depth
max_records = 1000000000
max_bytes = 0
traces_per_site = 0
[override]
bcast = "native"
EOF
done

# callgrind: one rank, so the count holds no polling for a peer.
instructions() {  # variant calls -> Ir of the whole run
  local env=()
  [[ $1 != native ]] && env=(env LD_PRELOAD="$shim" COLLSEL_CONFIG="$work/$1.toml")
  "${env[@]}" valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1.$2" "$prog" 1 "$2" \
    >/dev/null 2>"$work/cg.log" || { cat "$work/cg.log" >&2; exit 1; }
  sed -nE 's/^summary: ([0-9]+)$/\1/p' "$work/cg.$1.$2"
}
echo "instructions per call (callgrind, 1 rank, $calls vs $((2 * calls)) calls):"
declare -A ir
for v in native "${variants[@]}"; do
  a=$(instructions "$v" "$calls")
  b=$(instructions "$v" $((2 * calls)))
  ir[$v]=$(( (b - a) / calls ))
  printf '  %-12s %8d\n' "$v" "${ir[$v]}"
done

declare -A wall
for ((r = 0; r < runs; r++)); do
  for v in native "${variants[@]}"; do
    env=()
    [[ $v != native ]] && env=(-genv LD_PRELOAD "$shim" -genv COLLSEL_CONFIG "$work/$v.toml")
    line=$(timeout 300 mpiexec -n "$ranks" "${env[@]}" "$prog" 11 "$calls")
    wall[$v]+="$(sed -E 's/.*median=([0-9.]+).*/\1/' <<<"$line") "
    rm -rf "$work/logs"
  done
done
args=()
for v in native "${variants[@]}"; do args+=("$v" "${ir[$v]}" "${wall[$v]}"); done
RANKS=$ranks python3 - "${args[@]}" <<'PY'
import os, statistics, sys
rows = [(r[0], int(r[1]), [float(x) for x in r[2].split()])
        for r in (sys.argv[i:i + 3] for i in range(1, len(sys.argv), 3))]
off = next(r for r in rows if r[0] == "off")
off_ir, off_ns = off[1], statistics.median(off[2])
print(f"\nwall time at {os.environ['RANKS']} rank(s): median, min and max of the runs' medians")
print(f"{'variant':12} {'Ir/call':>8} {'vs off':>7} {'median ns/call':>15} {'min':>8} "
      f"{'max':>8} {'vs off':>7}")
for name, ir, series in rows:
    m = statistics.median(series)
    print(f"{name:12} {ir:8d} {ir - off_ir:+7d} {m:15.1f} {min(series):8.1f} "
          f"{max(series):8.1f} {m - off_ns:+7.1f}")
PY
