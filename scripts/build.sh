#!/usr/bin/env bash
# Configures and builds collsel in ./build (RelWithDebInfo), two jobs at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX="$PWD/build/install" >/dev/null
cmake --build build -j 2
