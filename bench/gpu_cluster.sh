#!/usr/bin/env bash
# End-to-end benchmark of `clusterscope cluster` on a generated GPU job (`generate --framework
# kineto`: one PyTorch profiler trace per rank with NCCL kernels): wall time, input MB/s and peak
# RSS per process at 1 and 2 MPI processes (one thread each), at 1 process with every core, and
# with no launcher. docs/gpu_cluster.md keeps the figures.
#   bench/gpu_cluster.sh [RANKS...]      (default: 1024)
# Needs a Release build in build/. Data goes to ${BENCH_DIR:-/tmp/clusterscope-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/clusterscope
DIR=${BENCH_DIR:-/tmp/clusterscope-bench}
STEPS=${STEPS:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$DIR"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1024)

printf "%-6s %-4s %-7s %9s %10s %10s %s\n" ranks np threads seconds input_MB MB/s peak_rss_per_process_MB
for n in "${sizes[@]}"; do
  in="$DIR/gpu-$n-$STEPS"
  if [ ! -f "$in/truth.json" ]; then
    rm -rf "$in"
    gen_start=$(date +%s.%N)
    $BIN generate "$in" --framework kineto --ranks "$n" --tp 8 --pp 4 --steps "$STEPS" --seed 1 \
      --slow-rank 3:1.3 >/dev/null
    echo "generated $n ranks in $(echo "$(date +%s.%N) - $gen_start" | bc) s ($(du -sm "$in" | cut -f1) MB)" >&2
  fi
  mb=$(( $(find "$in/" -name 'rank-*.json' -printf '%s\n' | paste -sd+ | bc) / 1000000 ))
  for cfg in 1:1 2:1 1:0 -:0; do
    np=${cfg%:*}
    threads=${cfg#*:}
    out="$DIR/gpu-out-$n-$np-$threads"
    rm -rf "$out"
    rss_log="$DIR/gpu-rss-$n-$np-$threads"
    rm -f "$rss_log".*
    find "$in/" -type f -exec cat {} + >/dev/null  # page cache warm-up
    start=$(date +%s.%N)
    if [ "$np" = - ]; then
      /usr/bin/time -f %M -o "$rss_log.0" $BIN cluster -d "$in" -o "$out" --quiet --threads "$threads" || true
    else
      mpirun -np "$np" --bind-to none bash -c "/usr/bin/time -f %M -o $rss_log.\$OMPI_COMM_WORLD_RANK $BIN cluster -d $in -o $out --quiet --threads $threads" || true
    fi
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    rss=$(for f in "$rss_log".*; do echo $(( $(tail -1 "$f") / 1024 )); done | paste -sd, -)
    printf "%-6s %-4s %-7s %9.2f %10s %10.0f %s\n" "$n" "$np" "$([ "$threads" = 0 ] && echo all || echo "$threads")" "$secs" "$mb" "$(echo "$mb / $secs" | bc -l)" "$rss"
  done
done
