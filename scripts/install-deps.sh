#!/usr/bin/env bash
# Installs the Debian 12 packages collsel needs, skipping those already present. Run as root.
set -euo pipefail
packages=(
  build-essential cmake pkg-config gfortran python3     # toolchain; tests drive MPI from Python
  binutils                                              # addr2line: the report's call sites
  mpich libmpich-dev                                    # the MPI collsel wraps (the default)
  openmpi-bin libopenmpi-dev                            # and Open MPI beside it (build/openmpi)
  libunwind-dev libfmt-dev libtomlplusplus-dev          # call sites, formatting, TOML
  googletest libgtest-dev                               # unit tests
  libcli11-dev nlohmann-json3-dev                       # command-line parsing, JSON for tools
  iproute2 util-linux                                   # tools/emucluster: namespaces, tc
  gnuplot-nox                                           # collsel plot / report --html, bench plots
  chromium                                              # tests/tools/html_chromium_test.py
  valgrind                                              # bench/log_cost.sh: instruction counts
  libsimgrid-dev                                        # SimGrid's SMPI: the simulated clusters (build/smpi)
  patchelf                                              # tools/simcluster: collsel into an SMPI program
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# Debian's MPI alternatives: the default mpicc/mpicxx/mpif90 (group mpi), mpirun/mpiexec (mpirun)
# and mpi.h, mpi.pc and libmpi.so (mpi-<triplet>). Installing Open MPI makes it the default of all
# three (its priority is higher than MPICH's). The machine keeps the default it had; a group that
# had none gets MPICH's. collsel names each MPI's tools explicitly (mpicc.mpich, mpicc.openmpi).
mpi_groups() { update-alternatives --get-selections 2>/dev/null | awk '$1 ~ /^mpi(run|-.*)?$/ {print $1}'; }
current_choice() { update-alternatives --query "$1" 2>/dev/null | sed -n 's/^Value: //p'; }
keep_mpi_defaults() {  # $1: name of an associative array group -> choice before the install
  local -n had=$1
  local g want
  for g in $(mpi_groups); do
    want=${had[$g]:-$(update-alternatives --list "$g" | grep -m1 mpich || true)}
    if [[ -n $want && $(current_choice "$g") != "$want" ]]; then
      update-alternatives --quiet --set "$g" "$want"
      echo "collsel: $want stays the default of alternative '$g'"
    fi
  done
}

if ((${#missing[@]})); then
  echo "collsel: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "collsel: installing packages needs root; run as root or install: ${missing[*]}" >&2
    exit 1
  fi
  declare -A before=()
  for g in $(mpi_groups); do before[$g]=$(current_choice "$g"); done
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  keep_mpi_defaults before
fi

