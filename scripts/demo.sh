#!/usr/bin/env bash
# The first contact (README's first command): installs what is missing, builds only what the demo
# needs (the shim, the `collsel` tool, the example; not the tests, not the SMPI build: those are
# scripts/test.sh's), then runs the example MPI program (Bcast, Scatter and Alltoall from 4 bytes
# to 1 MiB, 4 ranks) twice, once with the MPI library's own collectives (COLLSEL_DISABLE=all:
# collsel only logs them) and once with collsel choosing, with the embedded default model. The
# report compares the two measured runs and writes its web page to build/demo-report/.
#
# COLLSEL_MPI=openmpi runs the same demo with Open MPI 4.1.4 (installed beside MPICH by
# install-deps.sh): the Open MPI shim and the example built by build/openmpi (a configure of this
# tree with COLLSEL_MPI=openmpi, as cmake/flavour_builds.cmake makes it), launched by
# mpiexec.openmpi. The report tool is the same; the logs say which MPI ran.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
step() { printf '\n== [%s, %d s] %s\n' "$(date -u +%H:%M:%S)" $((SECONDS - started)) "$*"; }

step "1/5 packages: installing the missing Debian packages (scripts/install-deps.sh)"
bash scripts/install-deps.sh

mpi=${COLLSEL_MPI:-mpich}
case $mpi in
  mpich | openmpi) ;;
  *) echo "COLLSEL_MPI=$mpi: the demo runs with mpich (the default) or openmpi" >&2; exit 2 ;;
esac

step "2/5 build: the shim, the collsel tool and the example only, 2 jobs (build/)"
build_start=$SECONDS
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX="$PWD/build/install" >/dev/null
if [[ $mpi == openmpi ]]; then
  # The tool from the MPICH build (it reads any MPI's logs); the shim and the example from the
  # Open MPI one, configured as the primary build configures it.
  cmake --build build -j 2 --target collsel_cli
  cmake -S . -B build/openmpi -DCOLLSEL_MPI=openmpi -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_INSTALL_PREFIX="$PWD/build/install" >/dev/null
  cmake --build build/openmpi -j 2 --target collsel examples
  shim="$PWD/build/openmpi/pmpi/libcollsel-openmpi.so"
  program=build/openmpi/examples/collectives
  # As root on a small machine: 4 ranks on fewer cores (--oversubscribe), unbound, shared memory;
  # the ranks inherit COLLSEL_* from mpiexec's environment, as under MPICH.
  launch=(mpiexec.openmpi -n 4 --oversubscribe --allow-run-as-root --bind-to none
          --mca btl self,vader -x LD_PRELOAD="$shim")
else
  cmake --build build -j 2 --target collsel collsel_cli examples
  shim="$PWD/build/pmpi/libcollsel.so"
  program=build/examples/collectives
  launch=(mpiexec -n 4 -genv LD_PRELOAD "$shim")
fi
echo "the build took $((SECONDS - build_start)) s"

native_logs=build/demo-native-logs
logs=build/demo-logs
rm -rf "$native_logs" "$logs"

cores=$(nproc)
if ((cores < 4)); then
  echo "note: 4 ranks on $cores core(s): the ranks share cores, so both runs' times are inflated and"
  echo "      noisy from run to run; the saving compares two single runs, measured alike"
fi

step "3/5 baseline: the example with the MPI library's own collectives, measured and logged"
echo "COLLSEL_DISABLE=all COLLSEL_LOG_DIR=$native_logs ${launch[*]} $program"
COLLSEL_DISABLE=all COLLSEL_LOG_DIR="$native_logs" timeout 600 "${launch[@]}" "$program"

step "4/5 collsel: the same program, each collective's algorithm chosen by collsel"
echo "COLLSEL_LOG_DIR=$logs ${launch[*]} $program"
COLLSEL_LOG_DIR="$logs" timeout 600 "${launch[@]}" "$program"

step "5/5 report: collsel's run against the measured baseline run"
echo "collsel report $logs --baseline $native_logs --html build/demo-report"
build/tools/cli/collsel report "$logs" --baseline "$native_logs" --html build/demo-report
echo
echo "The same report with its plots: build/demo-report/index.html (opens offline in any browser)."
echo "Everything took $((SECONDS - started)) s. The tests: bash scripts/test.sh (builds the rest)."
