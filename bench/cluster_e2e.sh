#!/usr/bin/env bash
# End-to-end benchmark of `clusterscope cluster` on generated clusters: wall time, input MB/s and
# peak RSS per process, at 1 and 2 MPI processes with one thread each (the MPI scaling), at 1
# process with the default thread count (every core: parse threads, then the root's analyses),
# and as one process with no launcher (np "-": no MPI at all, the laptop case).
#   bench/cluster_e2e.sh [RANKS...]      (default: 256 1024)
# Needs a Release build in build/ (scripts/build.sh). Data goes to ${BENCH_DIR:-/tmp/clusterscope-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/clusterscope
DIR=${BENCH_DIR:-/tmp/clusterscope-bench}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$DIR"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 1024)

printf "%-6s %-4s %-7s %9s %10s %10s %s\n" ranks np threads seconds input_MB MB/s peak_rss_per_process_MB
for n in "${sizes[@]}"; do
  in="$DIR/cluster-$n"
  if [ ! -f "$in/truth.json" ]; then
    rm -rf "$in"
    gen_start=$(date +%s.%N)
    $BIN generate "$in" --ranks "$n" --tp 8 --pp 4 --steps 4 --seed 1 --slow-rank 3:1.3 --no-trace-view >/dev/null
    echo "generated $n ranks in $(echo "$(date +%s.%N) - $gen_start" | bc) s ($(du -sm "$in" | cut -f1) MB)" >&2
  fi
  # Input = the files `cluster` reads (trace_view.json timelines are not among them).
  mb=$(( $(find "$in" -type f ! -name trace_view.json ! -name truth.json -printf '%s\n' | paste -sd+ | bc) / 1000000 ))
  for cfg in 1:1 2:1 1:0 -:0; do
    np=${cfg%:*}
    threads=${cfg#*:}
    out="$DIR/out-$n-$np-$threads"
    rm -rf "$out"
    rss_log="$DIR/rss-$n-$np-$threads"
    rm -f "$rss_log".*
    # Page cache warm-up so both runs read from memory.
    find "$in" -type f ! -name trace_view.json -exec cat {} + >/dev/null
    start=$(date +%s.%N)
    # --bind-to none: Open MPI binds each process to one core by default, which would put all of
    # a process's threads on that core.
    if [ "$np" = - ]; then
      /usr/bin/time -f %M -o "$rss_log.0" $BIN cluster -d "$in" -o "$out" --quiet --threads "$threads" || true
    else
      mpirun -np "$np" --bind-to none bash -c "/usr/bin/time -f %M -o $rss_log.\$OMPI_COMM_WORLD_RANK $BIN cluster -d $in -o $out --quiet --threads $threads" || true
    fi
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    rss=$(for f in "$rss_log".*; do echo $(( $(cat "$f" | tail -1) / 1024 )); done | paste -sd, -)
    printf "%-6s %-4s %-7s %9.2f %10s %10.0f %s\n" "$n" "$np" "$([ "$threads" = 0 ] && echo all || echo "$threads")" "$secs" "$mb" "$(echo "$mb / $secs" | bc -l)" "$rss"
  done
done
