#!/usr/bin/env bash
# Contention graphs on the emulated cluster (issue 6; run as root, from anywhere):
#   bash bench/contention.sh [--build DIR] [--out DIR] [--profiles "fast-ethernet gige"]
#                            [--hosts 8] [--ppn 2] [--graphs 40] [--max-edges 6] [--bytes 1MiB]
#                            [--repeats 5] [--offsets 0.5] [--seed 1] [--quick] [--reuse-models]
# For each profile: brings up an emucluster of --hosts hosts and calibrates with --ppn ranks per
# host (collsel-calibrate --quick --no-alltoall: pLogP, the static-synchronous contention graphs
# -> [contention], the 1:P-P:1 benchmark -> [logfp]) into OUT/model-PROFILE.toml; then runs
# bench/contention_graphs on the same job shape: seeded random graphs between the hosts, measured
# against every penalty rule (gige with the fitted parameters) -> OUT/contention-PROFILE.{csv,md};
# with --offsets X > 0 (default 0.5) again with every sender starting at a random time in
# [0, X T_ref] -> OUT/contention-PROFILE-offsets.{csv,md}. OUT/contention.md collects the
# summaries. --reuse-models keeps an existing OUT/model-PROFILE.toml. A step that fails is
# reported and the benchmark goes on; the cluster is torn down at the end, also on failure.
# Use --out docs/benchmarks/contention for the figures of docs/BENCHMARKS.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
build=$root/build
out=$PWD/contention-results
profiles="fast-ethernet"
hosts=8
ppn=2
graphs=40
max_edges=6
bytes=1MiB
repeats=5
offsets=0.5
seed=1
reuse=false
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(realpath "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --profiles) profiles=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --ppn) ppn=$2; shift 2 ;;
    --graphs) graphs=$2; shift 2 ;;
    --max-edges) max_edges=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --offsets) offsets=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --reuse-models) reuse=true; shift ;;
    --quick) graphs=10; repeats=3; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "contention.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
emu=$root/tools/emucluster/emucluster
bench=$build/bench/contention_graphs
calibrate=$build/calibrate/collsel-calibrate
bench_require_built contention.sh "$bench" "$calibrate"
bench_require_root contention.sh

mkdir -p "$out"
cluster=ctgb
bench_down_on_exit "$emu" $cluster
# 2 x hosts ranks on 2 cores: yielding while polling avoids most of the ~8 ms scheduler stalls
# (docs/EMUCLUSTER.md).
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
start=$(date +%s)
summaries=()
for profile in $profiles; do
  "$emu" --cluster $cluster down >/dev/null 2>&1 || true
  "$emu" --cluster $cluster up "$hosts" --profile "$profile"
  shape="$hosts hosts x $ppn ranks"
  model=$out/model-$profile.toml
  if [[ $reuse == true && -f $model ]]; then
    echo "== $profile: reusing $model"
  else
    echo "== $profile: calibrating on $shape -> $model"
    "$emu" --cluster $cluster mpiexec --hosts "$hosts" --ppn "$ppn" --timeout 1800 -- \
      "$calibrate" --quick --no-alltoall --contention-bytes "$bytes" \
      --contention-repeats "$repeats" --name "emucluster $profile ($shape)" -o "$model" ||
      echo "== WARNING: calibration on $profile exited $?"
  fi
  model_flag=()
  [[ -f $model ]] && model_flag=(--model "$model")
  runs=("static 0")
  [[ $offsets != 0 ]] && runs+=("offsets $offsets")
  for r in "${runs[@]}"; do
    read -r kind x <<<"$r"
    name=contention-$profile
    [[ $kind == offsets ]] && name=$name-offsets
    echo "== $profile: $graphs random graphs ($kind) -> $out/$name.{csv,md} ($(($(date +%s) - start)) s so far)"
    if "$emu" --cluster $cluster mpiexec --hosts "$hosts" --ppn "$ppn" --timeout 3600 -- \
      "$bench" "${model_flag[@]}" --graphs "$graphs" --max-edges "$max_edges" --bytes "$bytes" \
      --repeats "$repeats" --offsets "$x" --seed "$seed" --label "$profile, $shape, $kind" \
      --csv "$out/$name.csv" --summary "$out/$name.md" >/dev/null; then
      summaries+=("$out/$name.md")
    else
      echo "== WARNING: contention_graphs ($kind) on $profile exited $?"
    fi
  done
  "$emu" --cluster $cluster down >/dev/null
done
if [[ ${#summaries[@]} -gt 0 ]]; then
  for s in "${summaries[@]}"; do cat "$s"; echo; done >"$out/contention.md"
fi
echo "== done in $(($(date +%s) - start)) s: $out/contention.md"
