#!/usr/bin/env bash
# The demo: installs missing packages, builds, generates a 64-rank cluster (TP 4 x PP 2 x DP 8)
# with one slow rank and one slow link, and analyses it with `clusterscope cluster` under
# `mpirun -np 2`.
#   scripts/demo.sh [OUT_DIR]     (default: examples/demo-cluster)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-examples/demo-cluster}

scripts/install-deps.sh
BUILD_DIR=build scripts/build.sh >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

rm -rf "$OUT"
build/clusterscope generate "$OUT" --ranks 64 --tp 4 --pp 2 --steps 4 --seed 7 \
  --slow-rank 13:1.3 --slow-link 0-4:0.3
mpirun -np 2 --bind-to none build/clusterscope cluster -d "$OUT" --progress
echo
echo "Results: $OUT/cluster_analysis_output/"
ls -1 "$OUT/cluster_analysis_output/"
echo "What was injected: $OUT/truth.json"
