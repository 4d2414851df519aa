#!/usr/bin/env bash
# DB-export reading speed of `clusterscope cluster`: a job of N ranks made of copies of the real
# 2-rank DB export (tests/data/ascend-real/db_level1; each copy renamed to its rank), analysed with
# -m all (text outputs + cluster_analysis.db) on one thread (MB/s per core) and with the default
# threads, and, for comparison, the same job's cluster_analysis.db step alone.
#   bench/db_e2e.sh [RANKS...]      (default: 256)
# Needs a Release build in build/. Data goes to ${BENCH_DIR:-/tmp/clusterscope-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/build/clusterscope
SRC=$PWD/tests/data/ascend-real/db_level1
DIR=${BENCH_DIR:-/tmp/clusterscope-bench}
mkdir -p "$DIR"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256)

printf "%-6s %-8s %-7s %9s %9s %8s %s\n" ranks mode threads seconds input_MB MB/s peak_rss_MB
for n in "${sizes[@]}"; do
  in="$DIR/db-$n"
  if [ ! -f "$in/.complete" ]; then
    rm -rf "$in"
    for ((r = 0; r < n; r++)); do
      s=$((r % 2))
      d="$in/rank${r}_ascend_pt"
      mkdir -p "$d/ASCEND_PROFILER_OUTPUT"
      cp "$SRC/rank${s}_ascend_pt/profiler_info_${s}.json" "$d/profiler_info_${r}.json"
      cp "$SRC/rank${s}_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db" "$d/ASCEND_PROFILER_OUTPUT/"
      cp "$SRC/rank${s}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_${s}.db" \
        "$d/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_${r}.db"
    done
    touch "$in/.complete"
  fi
  bytes=$(find "$in/" -type f -name '*.db' -printf '%s\n' | paste -sd+ | bc)
  mb=$(echo "scale=1; $bytes / 1000000" | bc)
  for cfg in "all:1" "all:0" "step_trace:1"; do
    mode=${cfg%:*}
    threads=${cfg#*:}
    out="$DIR/db-$n-out"
    rm -rf "$out"
    /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$BIN" cluster -q -d "$in" -o "$out" -m "$mode" \
      --threads "$threads" --format json,csv >/dev/null 2>&1 || true
    read -r secs kb <"$DIR/time.txt"
    printf "%-6s %-8s %-7s %9s %9s %8s %s\n" "$n" "$mode" "${threads/0/all}" "$secs" "$mb" \
      "$(echo "scale=1; $mb / $secs" | bc)" "$((kb / 1024))"
  done
done
