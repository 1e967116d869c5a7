#!/usr/bin/env bash
# Pass-through overhead of the shim on a 1-byte MPI_Bcast at 2 ranks: RUNS interleaved runs of
# bench/bcast_latency without and with LD_PRELOAD=libcollsel.so (logging off, and with the
# default trace logging), then the medians, their spread and the ratios. Run from the build dir:
#   bash ../bench/shim_overhead.sh [RUNS]
set -euo pipefail
runs=${1:-7}
shim=$PWD/pmpi/libcollsel.so
prog=$PWD/bench/bcast_latency
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
declare -A results
for ((r = 0; r < runs; r++)); do
  for variant in native shim_nolog shim_trace; do
    case $variant in
      native) env=() ;;
      shim_nolog) env=(-genv LD_PRELOAD "$shim" -genv COLLSEL_LOG_LEVEL off) ;;
      shim_trace) env=(-genv LD_PRELOAD "$shim" -genv COLLSEL_LOG_DIR "$logs") ;;
    esac
    line=$(COLLSEL_CONFIG=/dev/null timeout 300 mpiexec -n 2 "${env[@]}" "$prog" 11 20000)
    value=$(sed -E 's/.*median=([0-9.]+).*/\1/' <<<"$line")
    results[$variant]+="$value "
  done
done
python3 - "${results[native]}" "${results[shim_nolog]}" "${results[shim_trace]}" <<'PY'
import statistics, sys
names = ["native", "collsel, log off", "collsel, log trace"]
series = [[float(x) for x in s.split()] for s in sys.argv[1:]]
base = statistics.median(series[0])
print(f"{'variant':20} {'median ns/call':>15} {'min':>8} {'max':>8} {'ratio':>7}")
for name, s in zip(names, series):
    m = statistics.median(s)
    print(f"{name:20} {m:15.1f} {min(s):8.1f} {max(s):8.1f} {m / base:7.2f}")
PY
