#!/usr/bin/env bash
# The demo: installs missing packages, builds, generates a 64-rank cluster (TP 4 x PP 2 x DP 8)
# with one slow rank and one slow link, and analyses it with `clusterscope cluster` under
# `mpirun -np 2`.
#   scripts/demo.sh [OUT_DIR]     (default: examples/demo-cluster)
# It builds only what it runs, the `clusterscope` target (the binary and the libraries it links,
# no tests, no bench programs): about half of the whole build, which took 7 min 9 s cold on two
# cores with the test suite (scripts/test.sh, or `cmake --build build` with no target; README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-examples/demo-cluster}

scripts/install-deps.sh
BUILD_DIR=build TARGET=clusterscope scripts/build.sh >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

rm -rf "$OUT"
build/clusterscope generate "$OUT" --ranks 64 --tp 4 --pp 2 --steps 4 --seed 7 \
  --slow-rank 13:1.3 --slow-link 0-4:0.3
mpirun -np 2 --bind-to none build/clusterscope cluster -d "$OUT" --progress
echo
R="$OUT/cluster_analysis_output"
ls -1 "$R/"
# The findings against what was injected (truth.json): every injected slow rank and link found.
python3 - "$OUT/truth.json" "$R/slow_ranks.csv" "$R/slow_links.csv" <<'PY'
import csv, json, sys
truth = json.load(open(sys.argv[1]))
ranks = {int(r["rank"]) for r in csv.DictReader(open(sys.argv[2]))}
links = {(int(r["src_rank"]), int(r["dst_rank"])) for r in csv.DictReader(open(sys.argv[3]))}
bad = 0
for t in truth.get("slow_ranks", []):
    ok = t["rank"] in ranks
    bad += not ok
    print("  injected slow rank %d (x%s): %s" % (t["rank"], t["factor"], "found" if ok else "MISSED"))
for t in truth.get("slow_links", []):
    s, d = t.get("src", t.get("src_rank")), t.get("dst", t.get("dst_rank"))
    ok = (s, d) in links or (d, s) in links
    bad += not ok
    print("  injected slow link %s-%s: %s" % (s, d, "found" if ok else "MISSED"))
print("  findings match truth.json" if not bad else "  %d injected fault(s) missed" % bad)
sys.exit(1 if bad else 0)
PY
echo "What was injected: $OUT/truth.json"
echo "open $(cd "$R" && pwd)/report.html"
