#!/usr/bin/env bash
# What reading the memory files costs `clusterscope cluster -m all` (memory/): one generated job
# with the memory files (--memory: operator_memory.csv, memory_record.csv, npu_module_mem.csv per
# rank) analysed as it is, and the same job with those three files removed (hard links of the
# rest), each run 3 times (median wall seconds, peak RSS from /usr/bin/time -v). Target: the
# memory files add at most 25% at 1,024 ranks.
# Measured 2026-11-29 (2 shared cores, one process, tp 8 x pp 4, 4 steps; 681 MB of input of which
# 125 MB memory files): without 8.48 s wall / 5.41 s CPU / 253 MB peak RSS, with 9.52 s / 5.97 s /
# 260 MB: +12.2% wall, +10.3% CPU.
#   bench/memory_e2e.sh [RANKS]      (default: 1024)
# Needs a Release build in build/. Data goes to ${BENCH_DIR:-/tmp/clusterscope-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/clusterscope
DIR=${BENCH_DIR:-/tmp/clusterscope-bench}
n=${1:-1024}
mkdir -p "$DIR"
with="$DIR/memory-$n"
without="$DIR/memory-$n-none"
if [ ! -f "$with/truth.json" ]; then
  rm -rf "$with" "$without"
  $BIN generate "$with" --ranks "$n" --tp 8 --pp 4 --steps 4 --seed 1 --no-trace-view \
    --memory-imbalance 3:4 --memory-leak 100:200 >/dev/null
fi
if [ ! -d "$without" ]; then
  cp -al "$with" "$without"
  find "$without" \( -name operator_memory.csv -o -name memory_record.csv -o -name npu_module_mem.csv \) -delete
fi
mem_mb=$(find "$with" \( -name operator_memory.csv -o -name memory_record.csv -o -name npu_module_mem.csv \) -printf '%s\n' | paste -sd+ | bc)
all_mb=$(find "$with" -type f ! -name truth.json -printf '%s\n' | paste -sd+ | bc)
echo "ranks $n: input $((all_mb / 1000000)) MB, of which memory files $((mem_mb / 1000000)) MB"
run() {  # prints the median wall seconds, the median CPU seconds (user + sys) and the largest
         # peak RSS (MB) of 3 runs (CPU seconds: less sensitive to other work on the machine)
  local in=$1 times=() cpus=() rss=0
  find "$in/" -type f -exec cat {} + >/dev/null  # page cache warm
  for i in 1 2 3; do
    rm -rf "$DIR/out-mem"
    /usr/bin/time -v -o "$DIR/time.log" $BIN cluster -d "$in" -o "$DIR/out-mem" -m all -q >/dev/null 2>&1
    times+=("$(grep 'Elapsed (wall' "$DIR/time.log" | awk -F': ' '{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}')")
    cpus+=("$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$DIR/time.log")")
    r=$(grep 'Maximum resident' "$DIR/time.log" | awk '{print int($6/1024)}')
    [ "$r" -gt "$rss" ] && rss=$r
  done
  printf '%s %s %s\n' "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)" \
    "$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n 2p)" "$rss"
}
read -r t0 c0 r0 < <(run "$without")
read -r t1 c1 r1 < <(run "$with")
echo "without memory files: ${t0} s wall, ${c0} s CPU, peak RSS ${r0} MB"
echo "with memory files:    ${t1} s wall, ${c1} s CPU, peak RSS ${r1} MB"
echo "added: wall $(echo "scale=1; 100 * ($t1 - $t0) / $t0" | bc) %, CPU $(echo "scale=1; 100 * ($c1 - $c0) / $c0" | bc) % (target: at most 25 %)"
