#!/usr/bin/env bash
# Installs the Debian 12 packages collsel needs, skipping those already present. Run as root.
set -euo pipefail
packages=(
  build-essential cmake pkg-config gfortran python3     # toolchain; tests drive MPI from Python
  binutils                                              # addr2line: the report's call sites
  mpich libmpich-dev                                    # the MPI collsel wraps
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
if ((${#missing[@]})); then
  echo "collsel: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "collsel: installing packages needs root; run as root or install: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
