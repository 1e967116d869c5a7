#!/usr/bin/env bash
# Does placement-aware prediction change and improve the choice? (issue 6; run as root):
#   bash bench/placement.sh --model FILE [--build DIR] [--out DIR] [--profile fast-ethernet]
#                           [--hosts 4] [--ppn 2] [--sizes 1024,65536,262144,1048576]
#                           [--colls "bcast scatter alltoall"] [--reps 7] [--budget 20]
# FILE: a model with a [contention] section measured on the same job shape (bench/contention.sh
# writes one). Brings up an emucluster of --hosts hosts, runs bench/selection with --ppn ranks
# per host under libcollsel.so and the model (so "auto" is the shim, which simulates schedules on
# the job's placement because a node hosts several ranks), measuring in one run the native
# collective, every algorithm forced, and auto. Then bench/placement_report.py asks
# `collsel explain` for the closed-form choice (no placement) and the simulated choice (filled
# placement, as hydra places --ppn ranks) and compares their measured times from that run:
# OUT/placement.csv, OUT/placement.md. The cluster is torn down at the end, also on failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
build=$root/build
out=$PWD/placement-results
profile=fast-ethernet
hosts=4
ppn=2
sizes=1024,65536,262144,1048576
colls="bcast scatter alltoall"
reps=7
budget=20
model=""
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(realpath "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --model) model=$(realpath "$2"); shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --ppn) ppn=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "placement.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n $model ]] || { echo "placement.sh: --model FILE is required (bench/contention.sh writes one)" >&2; exit 2; }
grep -q '^\[contention\]' "$model" || { echo "placement.sh: $model has no [contention] section: measure it with bench/contention.sh" >&2; exit 2; }
emu=$root/tools/emucluster/emucluster
bench=$build/bench/selection
shim=$build/pmpi/libcollsel.so
cli=$build/tools/cli/collsel
bench_require_built placement.sh "$bench" "$shim" "$cli"
bench_require_root placement.sh

mkdir -p "$out/logs"
cluster=plcb
bench_down_on_exit "$emu" $cluster
export MPIR_CVAR_POLLS_BEFORE_YIELD=1  # see bench/selection.sh
start=$(date +%s)
csv=$out/selection.csv
rm -f "$csv"
"$emu" --cluster $cluster down >/dev/null 2>&1 || true
"$emu" --cluster $cluster up "$hosts" --profile "$profile"
P=$((hosts * ppn))
for coll in $colls; do
  echo "== $profile, $hosts hosts x $ppn ranks, $coll ($(($(date +%s) - start)) s so far)"
  env COLLSEL_MODEL="$model" COLLSEL_LOG_DIR="$out/logs/$coll" \
    "$emu" --cluster $cluster mpiexec --hosts "$hosts" --ppn "$ppn" --timeout 3600 \
    --preload "$shim" -- "$bench" --label "$profile, $hosts x $ppn" --csv "$csv" \
    --coll "$coll" --sizes "$sizes" --reps "$reps" --budget "$budget" \
    || echo "placement.sh: the $coll run failed (exit $?); going on" >&2
done
"$emu" --cluster $cluster down >/dev/null
python3 "$here/placement_report.py" "$csv" --model "$model" --collsel "$cli" --ppn "$ppn" \
  --csv-out "$out/placement.csv" --markdown "$out/placement.md"
echo "== done in $(($(date +%s) - start)) s: $out/placement.md"
