#!/usr/bin/env bash
# Overhead of the shim on a 1-byte MPI_Bcast at 2 ranks: RUNS interleaved runs of
# bench/bcast_latency without the shim, and with LD_PRELOAD=libcollsel.so
#   - forced native, log off: pure pass-through (interception, context lookup, timing);
#   - forced native, log trace: the same plus one log record per call (call site at the default
#     depth; bench/log_cost.sh compares the levels and depths);
#   - model's choice, log off: what a user gets, algorithm included;
# then the medians, their spread and the ratios to native. Run from the build dir:
#   bash ../bench/shim_overhead.sh [RUNS] [mpich|openmpi]
# openmpi: the Open MPI build (build/openmpi: libcollsel-openmpi.so and its bcast_latency) under
# mpiexec.openmpi, shared memory (vader), unbound.
set -euo pipefail
runs=${1:-7}
mpi=${2:-mpich}
case $mpi in
  mpich)
    shim=$PWD/pmpi/libcollsel.so prog=$PWD/bench/bcast_latency
    launch=(mpiexec -n 2)
    setenv() { printf '%s\n' -genv "$1" "$2"; } ;;
  openmpi)
    shim=$PWD/openmpi/pmpi/libcollsel-openmpi.so prog=$PWD/openmpi/bench/bcast_latency
    launch=(mpiexec.openmpi --allow-run-as-root --bind-to none --mca btl self,vader -n 2)
    setenv() { printf '%s\n' -x "$1=$2"; } ;;
  *) echo "usage: shim_overhead.sh [RUNS] [mpich|openmpi]" >&2; exit 2 ;;
esac
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# Defaults everywhere except the trace caps: 11 x 20000 calls must all be call records, or the
# "+ log" line would measure the summary table for the calls past [log] max_records, max_bytes
# (3/4 of it) or traces_per_site (all but the first 32 calls of the benchmark's one call site).
config=$logs/collsel.toml
printf '[log]\nmax_records = 1000000\nmax_bytes = 0\ntraces_per_site = 0\n' >"$config"
mapfile -t common < <(setenv COLLSEL_CONFIG "$config")
declare -A results
for ((r = 0; r < runs; r++)); do
  for variant in native pass pass_trace model; do
    case $variant in
      native) env=() ;;
      pass) mapfile -t env < <(setenv LD_PRELOAD "$shim"; setenv COLLSEL_FORCE_BCAST native
                                setenv COLLSEL_LOG_LEVEL off) ;;
      pass_trace) mapfile -t env < <(setenv LD_PRELOAD "$shim"; setenv COLLSEL_FORCE_BCAST native
                                      setenv COLLSEL_LOG_DIR "$logs") ;;
      model) mapfile -t env < <(setenv LD_PRELOAD "$shim"; setenv COLLSEL_LOG_LEVEL off) ;;
    esac
    line=$(timeout 300 "${launch[@]}" "${common[@]}" "${env[@]}" "$prog" 11 20000)
    value=$(sed -E 's/.*median=([0-9.]+).*/\1/' <<<"$line")
    results[$variant]+="$value "
  done
done
python3 - "${results[native]}" "${results[pass]}" "${results[pass_trace]}" "${results[model]}" <<'PY'
import statistics, sys
names = ["native", "pass-through", "pass-through + log", "model's choice"]
series = [[float(x) for x in s.split()] for s in sys.argv[1:]]
base = statistics.median(series[0])
print(f"{'variant':20} {'median ns/call':>15} {'min':>8} {'max':>8} {'ratio':>7}")
for name, s in zip(names, series):
    m = statistics.median(s)
    print(f"{name:20} {m:15.1f} {min(s):8.1f} {max(s):8.1f} {m / base:7.2f}")
PY
