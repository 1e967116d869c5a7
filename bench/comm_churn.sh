#!/usr/bin/env bash
# What a new communicator costs under collsel (issue 20 part 2), against native, on 2 ranks:
# RUNS interleaved runs of each variant of bench/comm_churn.c; per run the median batch; prints
# per variant the median of the runs, their min and max. Run from the build folder:
#   bash ../bench/comm_churn.sh [RUNS [OTHER_SHIM]]
# OTHER_SHIM (another build's libcollsel.so, an earlier commit's say) adds its variants `other`
# and `other_log_off` to the same interleaving, so a before/after comparison shares the load.
set -euo pipefail
runs=${1:-7}
other=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/comm_churn" "$here/comm_churn.c"
shim=$PWD/pmpi/libcollsel.so
common=(-genv COLLSEL_CONFIG /dev/null -genv COLLSEL_LOG_DIR "$work/logs")
declare -A env=(
  [native]=""
  [collsel]="-genv LD_PRELOAD $shim"
  [collsel_log_off]="-genv LD_PRELOAD $shim -genv COLLSEL_LOG_LEVEL off"
  [serve_from_1]="-genv LD_PRELOAD $shim -genv COLLSEL_SERVE_FROM_CALL 1"
  [serve_from_1_log_off]="-genv LD_PRELOAD $shim -genv COLLSEL_SERVE_FROM_CALL 1 -genv COLLSEL_LOG_LEVEL off"
)
# collsel: the defaults ([runtime] serve_from_call = 2: a communicator's first call runs native,
# counted); serve_from_1: every call served, so a communicator's first call pays its binding.
order=(native collsel collsel_log_off serve_from_1 serve_from_1_log_off)
first_order=(native collsel_log_off serve_from_1_log_off)
if [[ -n $other ]]; then
  env[other]="-genv LD_PRELOAD $other"
  env[other_log_off]="-genv LD_PRELOAD $other -genv COLLSEL_LOG_LEVEL off"
  order+=(other other_log_off)
  first_order+=(other_log_off)
fi
summary() { sort -n | awk '{v[NR]=$1} END {printf "%.3f %.3f %.3f\n", v[int((NR+1)/2)], v[1], v[NR]}'; }

echo "# split + Bcast(1 byte) + free per iteration, us per iteration (11 batches x 2000)"
for ((r = 0; r < runs; ++r)); do
  for v in "${order[@]}"; do
    # shellcheck disable=SC2086
    timeout 300 mpiexec -n 2 "${common[@]}" ${env[$v]} "$work/comm_churn" split 11 2000 1 |
      sed -n 's/.*us_per_iter=//p' | summary | awk -v v="$v" '{print v, $1}' >> "$work/split"
  done
done
for v in "${order[@]}"; do
  printf "%-22s median %s\n" "$v" "$(awk -v v="$v" '$1 == v {print $2}' "$work/split" | summary)"
done

echo "# first and second Bcast(1 byte) on a new duplicate, us (slowest rank; 2000 duplicates)"
for ((r = 0; r < runs; ++r)); do
  for v in "${first_order[@]}"; do
    # shellcheck disable=SC2086
    timeout 300 mpiexec -n 2 "${common[@]}" ${env[$v]} "$work/comm_churn" first 2000 1 |
      awk -v v="$v" '{for (i = 2; i <= NF; ++i) {split($i, kv, "="); print v, kv[1], kv[2]}}' \
      >> "$work/first"
  done
done
for v in "${first_order[@]}"; do
  for k in group_first_call_us group_second_call_us median_first_call_us median_second_call_us; do
    printf "%-22s %-24s %s\n" "$v" "$k" \
      "$(awk -v v="$v" -v k="$k" '$1 == v && $2 == k {print $3}' "$work/first" | summary)"
  done
done
