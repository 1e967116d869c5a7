#!/usr/bin/env bash
# The selection benchmark on the emulated cluster (run as root, from anywhere):
#   bash bench/selection.sh [--build DIR] [--out DIR] [--profiles "fast-ethernet gige"]
#                           [--ranks "4 8"] [--models "default calibrated"] [--quick]
#                           [--sizes 262144,1048576,4194304]
# For each profile: brings up an 8-host emucluster, optionally calibrates a model on it
# (collsel-calibrate over 2 hosts), runs bench/selection with libcollsel.so preloaded at each P
# and each model, tears the cluster down; then writes OUT/selection.csv, OUT/selection.md (the
# tables for docs/BENCHMARKS.md) and OUT/plots/*.svg. Progress goes to the terminal.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
build=$root/build
out=$PWD/selection-results
profiles="fast-ethernet gige"
ranks="4 8"
models="default calibrated"
extra=()
usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(realpath "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --profiles) profiles=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --quick) extra=(--sizes 1,1024,65536,1048576 --reps 5 --budget 5); shift ;;
    --sizes) extra+=(--sizes "$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "selection.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
emu=$root/tools/emucluster/emucluster
bench=$build/bench/selection
shim=$build/pmpi/libcollsel.so
calibrate=$build/calibrate/collsel-calibrate
bench_require_built selection.sh "$bench" "$shim" "$calibrate"
bench_require_root selection.sh

mkdir -p "$out/plots" "$out/logs"
cluster=selb
bench_down_on_exit "$emu" $cluster
# Oversubscribed ranks (8 hosts on 2 cores) yield while they poll: it avoids the ~8 ms scheduler
# stalls in about half of the runs, where busy polling rarely does (docs/EMUCLUSTER.md).
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
start=$(date +%s)
for profile in $profiles; do
  "$emu" --cluster $cluster down >/dev/null 2>&1 || true
  "$emu" --cluster $cluster up 8 --profile "$profile"
  for model in $models; do
    model_env=()
    if [[ $model == calibrated ]]; then
      file=$out/model-$profile.toml
      echo "== calibrating on 2 hosts of $profile -> $file"
      "$emu" --cluster $cluster mpiexec --hosts 2 --timeout 1200 -- "$calibrate" \
        --name "emucluster $profile (2 hosts)" -o "$file"
      model_env=(env COLLSEL_MODEL="$file")
    fi
    for P in $ranks; do
      echo "== $profile, model $model, P = $P ($(($(date +%s) - start)) s so far)"
      "${model_env[@]}" env COLLSEL_LOG_DIR="$out/logs/$profile-$model-P$P" \
        "$emu" --cluster $cluster mpiexec --hosts "$P" --timeout 3600 --preload "$shim" -- \
        "$bench" --label "$profile, $model model" --csv "$out/selection.csv" --reps 15 --budget 15 \
        "${extra[@]}"
    done
  done
  "$emu" --cluster $cluster down >/dev/null
done
python3 "$here/selection_report.py" "$out/selection.csv" --markdown "$out/selection.md" \
  --plot-dir "$out/plots"
echo "== done in $(($(date +%s) - start)) s: $out/selection.md, $out/plots/"
