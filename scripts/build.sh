#!/usr/bin/env bash
# Configures and builds clusterscope (Release) into build/ (or $BUILD_DIR). Extra args go to cmake.
# TARGET=clusterscope builds that target only (the binary and the libraries it links, no tests).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" ${TARGET:+--target "$TARGET"}
