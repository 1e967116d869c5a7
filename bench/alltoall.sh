#!/usr/bin/env bash
# All-to-All under contention on the emulated cluster (run as root, from anywhere):
#   bash bench/alltoall.sh [--build DIR] [--out DIR] [--profiles "fast-ethernet gige"]
#                          [--fit-ranks 6] [--ranks "4 6 8"] [--sizes 1024,...] [--quick]
#                          [--reuse-models]
# For each profile: brings up an 8-host emucluster, calibrates on --fit-ranks hosts (n', one rank
# per host: pLogP pair + the All-to-All contention signature), then at each P in --ranks runs
# collsel-calibrate --validate (every All-to-All schedule against its prediction) and
# bench/selection (native, every schedule forced, collsel's choice through the shim, interleaved).
# Writes OUT/model-PROFILE.toml, OUT/validation-PROFILE-PN.{md,csv}, OUT/selection.csv and
# OUT/alltoall.md (the tables of docs/BENCHMARKS.md, by bench/alltoall_report.py).
# --reuse-models keeps an existing OUT/model-PROFILE.toml instead of calibrating again. A step
# that fails (MPICH over UCX's TCP transport sometimes loses a rank at exit) is reported and the
# benchmark goes on; the report covers what was measured.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
build=$root/build
out=$PWD/alltoall-results
profiles="fast-ethernet gige"
fit_ranks=6
ranks="4 6 8"
sizes=1024,4096,16384,65536,262144,1048576
reps=(--reps 7 --budget 12)
validate_flags=()
reuse=false
calibrate_flags=(--budget 60 --alltoall-budget 120)
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(realpath "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --profiles) profiles=$2; shift 2 ;;
    --fit-ranks) fit_ranks=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --reuse-models) reuse=true; shift ;;
    --quick) sizes=4096,65536,262144; reps=(--reps 5 --budget 5); validate_flags=(--quick)
             calibrate_flags=(--quick --alltoall-budget 30); shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "alltoall.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
emu=$root/tools/emucluster/emucluster
bench=$build/bench/selection
shim=$build/pmpi/libcollsel.so
calibrate=$build/calibrate/collsel-calibrate
bench_require_built alltoall.sh "$bench" "$shim" "$calibrate"
bench_require_root alltoall.sh

mkdir -p "$out/logs"
rm -f "$out/selection.csv"
cluster=a2ab
bench_down_on_exit "$emu" $cluster
export MPIR_CVAR_POLLS_BEFORE_YIELD=1  # docs/EMUCLUSTER.md
start=$(date +%s)
for profile in $profiles; do
  "$emu" --cluster $cluster down >/dev/null 2>&1 || true
  "$emu" --cluster $cluster up 8 --profile "$profile"
  model=$out/model-$profile.toml
  if [[ $reuse == true && -f $model ]]; then
    echo "== $profile: reusing $model"
  else
    echo "== $profile: calibrating at n' = $fit_ranks hosts -> $model"
    "$emu" --cluster $cluster mpiexec --hosts "$fit_ranks" --timeout 1800 -- "$calibrate" \
      "${calibrate_flags[@]}" --name "emucluster $profile (n' = $fit_ranks)" -o "$model"
  fi
  for P in $ranks; do
    echo "== $profile, P = $P: validation ($(($(date +%s) - start)) s so far)"
    "$emu" --cluster $cluster mpiexec --hosts "$P" --timeout 3600 -- "$calibrate" \
      --validate "$model" --validate-colls alltoall --validate-sizes "$sizes" \
      --validate-prefix "$out/validation-$profile-P$P" "${validate_flags[@]}" ||
      echo "== WARNING: validation at P = $P on $profile exited $?"
    echo "== $profile, P = $P: selection"
    COLLSEL_MODEL="$model" COLLSEL_LOG_DIR="$out/logs/$profile-P$P" \
      "$emu" --cluster $cluster mpiexec --hosts "$P" --timeout 3600 --preload "$shim" -- \
      "$bench" --coll alltoall --model "$model" --label "$profile" --csv "$out/selection.csv" \
      --sizes "$sizes" "${reps[@]}" ||
      echo "== WARNING: selection at P = $P on $profile exited $?"
  done
  "$emu" --cluster $cluster down >/dev/null
done
python3 "$here/alltoall_report.py" --out "$out/alltoall.md" --models "$out"/model-*.toml \
  --validations "$out"/validation-*-P*.csv --selection "$out/selection.csv"
echo "== done in $(($(date +%s) - start)) s: $out/alltoall.md"
