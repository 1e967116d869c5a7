#!/usr/bin/env bash
# The main job: installs what is missing, builds, runs the example MPI program (Bcast, Scatter and
# Alltoall over sizes from 4 bytes to 1 MiB) with 4 ranks under LD_PRELOAD=libcollsel.so using the embedded
# default model, prints the selection report and writes it as a web page (build/demo-report/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
logs=build/demo-logs
rm -rf "$logs"
echo
echo "== mpiexec -n 4 -genv LD_PRELOAD build/pmpi/libcollsel.so build/examples/collectives"
COLLSEL_LOG_DIR="$logs" \
  timeout 600 mpiexec -n 4 -genv LD_PRELOAD "$PWD/build/pmpi/libcollsel.so" build/examples/collectives
echo
echo "== collsel report $logs --html build/demo-report"
build/tools/cli/collsel report "$logs" --html build/demo-report
echo
echo "The same report with its plots: build/demo-report/index.html (opens offline in any browser)"
