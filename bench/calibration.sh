#!/usr/bin/env bash
# Calibration time and model accuracy (run as root):
#   bash bench/calibration.sh [--build DIR] [--out DIR] [--profiles "fast-ethernet"] [--ranks 8]
# On one node (2 ranks, shared memory) and on each emulated profile (8 hosts): collsel-calibrate
# --quick and default, timed; then, on the cluster, --validate of the default-mode model at P
# ranks. Writes OUT/<where>-{quick,default}.toml, OUT/validation-<profile>.{md,csv,svg} and a
# summary on the terminal.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
build=$root/build
out=$PWD/calibration-results
profiles="fast-ethernet"
ranks=8
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(realpath "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --profiles) profiles=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "calibration.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
emu=$root/tools/emucluster/emucluster
calibrate=$build/calibrate/collsel-calibrate
bench_require_built calibration.sh "$calibrate"
mkdir -p "$out"
cluster=calb
bench_down_on_exit "$emu" $cluster
export MPIR_CVAR_POLLS_BEFORE_YIELD=1  # docs/EMUCLUSTER.md

seconds() { sed -n 's/^duration_s = //p' "$1"; }
for mode in quick default; do
  flag=(); [[ $mode == quick ]] && flag=(--quick)
  mpiexec -n 2 "$calibrate" "${flag[@]}" --name "one node ($mode)" -o "$out/node-$mode.toml"
  echo "== one node, 2 ranks, $mode: $(seconds "$out/node-$mode.toml") s"
done
for profile in $profiles; do
  "$emu" --cluster $cluster down >/dev/null 2>&1 || true
  "$emu" --cluster $cluster up "$ranks" --profile "$profile"
  for mode in quick default; do
    flag=(); [[ $mode == quick ]] && flag=(--quick)
    "$emu" --cluster $cluster mpiexec --timeout 1200 -- "$calibrate" "${flag[@]}" \
      --name "emucluster $profile ($mode)" -o "$out/$profile-$mode.toml"
    echo "== $profile, $ranks hosts, $mode: $(seconds "$out/$profile-$mode.toml") s"
  done
  "$emu" --cluster $cluster mpiexec --timeout 3600 -- "$calibrate" \
    --validate "$out/$profile-default.toml" --validate-prefix "$out/validation-$profile"
  "$emu" --cluster $cluster down >/dev/null
done
