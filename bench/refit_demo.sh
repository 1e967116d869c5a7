#!/usr/bin/env bash
# collsel refit on the simulated cluster (issue 16 item 4): one run with a deliberately wrong model
# and the monitor exploring, `collsel refit` of its logs, then the model alone ([adapt] mode off)
# with the wrong, the refitted and the calibrated model, at the P of the run (in-sample) and at
# twice that P (out of sample). Times are SMPI's simulated times (deterministic).
# Run from the repository root after a full build (build/smpi):
#   bash bench/refit_demo.sh [PLATFORM] [P] [CALLS]
set -euo pipefail
platform=${1:-gige}
p=${2:-16}
calls=${3:-200}
root=$(cd "$(dirname "$0")/.." && pwd)
collsel=$root/build/tools/cli/collsel
shim=$root/build/smpi/pmpi/libcollsel-smpi.so
calibrated=$root/docs/benchmarks/at-scale/models/$platform.toml
wrong=$root/docs/benchmarks/adapt/$platform-wrong.toml   # bench/adapt_demo.py writes it: g / 3
out=$root/docs/benchmarks/adapt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicc -O2 -o "$work/adapt_demo" "$root/bench/adapt_demo.c" 2>/dev/null

# Every call traced (COLLSEL_LOG_TRACES_PER_SITE=0): refit fits call records, and the figures in
# docs/benchmarks/adapt were measured on every call of each shape.
sim() {  # LOGDIR MODEL MODE RANKS CALLS
  COLLSEL_CONFIG=/dev/null COLLSEL_LOG_DIR=$1 COLLSEL_ADAPT=$3 COLLSEL_LOG_TRACES_PER_SITE=0 \
    "$root/tools/simcluster/simcluster" run --platform "$platform" -n "$4" --ppn 1 --timeout 1800 \
    --model "$2" --shim "$shim" -- "$work/adapt_demo" "$5" 2>/dev/null | grep '^ADAPT'
}

echo "# 1. explore with the wrong model ($wrong), P = $p, $calls calls per shape"
sim "$work/explore" "$wrong" explore "$p" "$calls"
echo "# 2. collsel refit of that run's logs"
"$collsel" refit "$work/explore" --model "$wrong" -o "$out/$platform-wrong-refit.toml" |
  tee "$out/$platform-wrong-refit.txt"
for ranks in "$p" $((2 * p)); do
  n=$((ranks == p ? calls : calls / 2))
  echo "# 3. the model alone, P = $ranks, $n calls per shape: total simulated seconds per shape"
  for v in wrong refit calibrated; do
    case $v in
      wrong) m=$wrong ;;
      refit) m=$out/$platform-wrong-refit.toml ;;
      calibrated) m=$calibrated ;;
    esac
    sim "$work/off-$v-$ranks" "$m" off "$ranks" "$n" | sed "s/^/$v /"
    "$collsel" report "$work/off-$v-$ranks" --format csv --section errors --no-symbols |
      awk -F, -v v="$v" 'NR > 1 {printf "%s   %s %s P=%s: mean E_rel %+.0f %%\n", v, $2, $3, $5, 100 * $10}'
  done
done
