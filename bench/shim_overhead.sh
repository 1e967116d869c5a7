#!/usr/bin/env bash
# Overhead of the shim on a 1-byte MPI_Bcast at 2 ranks: RUNS interleaved runs of
# bench/bcast_latency without the shim, and with LD_PRELOAD=libcollsel.so
#   - forced native, log off: pure pass-through (interception, context lookup, timing);
#   - forced native, log trace: the same plus one log record per call (call site at the default
#     depth; bench/log_cost.sh compares the levels and depths);
#   - model's choice, log off: what a user gets, algorithm included;
# then the medians, their spread and the ratios to native. Run from the build dir:
#   bash ../bench/shim_overhead.sh [RUNS]
set -euo pipefail
runs=${1:-7}
shim=$PWD/pmpi/libcollsel.so
prog=$PWD/bench/bcast_latency
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# Defaults everywhere except the trace cap: 11 x 20000 calls must all be call records, or the
# "+ log" line would measure the summary table for the calls past [log] max_records.
config=$logs/collsel.toml
printf '[log]\nmax_records = 1000000\n' >"$config"
declare -A results
for ((r = 0; r < runs; r++)); do
  for variant in native pass pass_trace model; do
    case $variant in
      native) env=() ;;
      pass) env=(-genv LD_PRELOAD "$shim" -genv COLLSEL_FORCE_BCAST native -genv COLLSEL_LOG_LEVEL off) ;;
      pass_trace) env=(-genv LD_PRELOAD "$shim" -genv COLLSEL_FORCE_BCAST native -genv COLLSEL_LOG_DIR "$logs") ;;
      model) env=(-genv LD_PRELOAD "$shim" -genv COLLSEL_LOG_LEVEL off) ;;
    esac
    line=$(COLLSEL_CONFIG=$config timeout 300 mpiexec -n 2 "${env[@]}" "$prog" 11 20000)
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
