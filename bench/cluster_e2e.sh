#!/usr/bin/env bash
# End-to-end benchmark of `clusterscope cluster` on generated clusters: wall time, input MB/s and
# peak RSS per process, at 1 and 2 MPI processes with one thread each (the MPI scaling), at 1
# process with the default thread count (every core: parse threads, then the root's analyses),
# and as one process with no launcher (np "-": no MPI at all, the laptop case). Beside them, in
# the same run: the floors, reading the input's bytes (`cat > /dev/null`, warm cache, and
# bench/read_floor: each file read whole on every core), and
# msprof-analyze on the same job (`-m all`), with clusterscope's speed-up over it (best of 3 of
# the no-launcher run against one msprof-analyze run; docs/scale.md).
#   bench/cluster_e2e.sh [--no-msprof] [RANKS...]      (default: 256 1024)
# msprof-analyze is /tmp/msprof (MSPROF_PY=DIR for another checkout).
# Needs a Release build in build/ (scripts/build.sh; BIN=... another binary). Data goes to
# ${BENCH_DIR:-/tmp/clusterscope-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/clusterscope}
# The second floor: the bytes read whole, one read per file, on every core (bench/read_floor/).
READ_FLOOR=${READ_FLOOR:-build/bench/read_floor}
DIR=${BENCH_DIR:-/tmp/clusterscope-bench}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$DIR"
msprof=1
if [ "${1:-}" = --no-msprof ]; then msprof=0; shift; fi
MSPROF_PY=${MSPROF_PY:-/tmp/msprof}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 1024)
# Seconds (wall) and CPU seconds of a command, as "wall cpu".
wall_cpu() {
  local t
  t=$(mktemp)
  /usr/bin/time -f "%e %U %S" -o "$t" "$@" >/dev/null 2>&1 || true
  awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$t"
  rm -f "$t"
}

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
  mb=$(( $(find "$in/" -type f ! -name trace_view.json ! -name truth.json -printf '%s\n' | paste -sd+ | bc) / 1000000 ))
  for cfg in 1:1 2:1 1:0 -:0; do
    np=${cfg%:*}
    threads=${cfg#*:}
    out="$DIR/out-$n-$np-$threads"
    rm -rf "$out"
    rss_log="$DIR/rss-$n-$np-$threads"
    rm -f "$rss_log".*
    # Page cache warm-up so both runs read from memory.
    find "$in/" -type f ! -name trace_view.json -exec cat {} + >/dev/null
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
  # Side by side: the floor (reading the bytes), clusterscope with no launcher (best of 3) and
  # msprof-analyze, in one run.
  files=$(mktemp)
  find "$in/" -type f ! -name trace_view.json ! -name truth.json >"$files"
  read -r cat_wall cat_cpu < <(wall_cpu bash -c "xargs cat < $files > /dev/null")
  # cat maps and unmaps a 128 KiB buffer per file: on a virtual machine, where a page fault and a
  # TLB flush are dear, that can cost ten times the reads themselves (docs/scale.md).
  read_floor="not built"
  rf_wall=""
  if [ -x "$READ_FLOOR" ]; then
    read -r rf_wall rf_cpu _ < <("$READ_FLOOR" <"$files")
    read_floor="$rf_wall s wall, $rf_cpu s CPU"
  fi
  rm -f "$files"
  best=""
  for i in 1 2 3; do
    rm -rf "$DIR/out-$n-best"
    read -r w c < <(wall_cpu $BIN cluster -d "$in" -o "$DIR/out-$n-best" --quiet)
    if [ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ]; then best=$w; best_cpu=$c; fi
  done
  echo "  $n ranks: floor (cat > /dev/null, warm cache) $cat_wall s wall, $cat_cpu s CPU; read whole (read_floor) $read_floor; clusterscope (no launcher, best of 3) $best s wall, $best_cpu s CPU"
  if [ "$msprof" = 1 ]; then
    rm -rf "$DIR/msprof-$n"
    mkdir -p "$DIR/msprof-$n"
    read -r mw mc < <(wall_cpu env PYTHONPATH="$MSPROF_PY" /usr/bin/python3 \
      "$MSPROF_PY/msprof_analyze/cluster_analyse/cluster_analysis.py" -d "$in" -m all -o "$DIR/msprof-$n")
    echo "  $n ranks: msprof-analyze $mw s wall, $mc s CPU: clusterscope is $(echo "scale=1; $mw / $best" | bc)x faster (wall), $(echo "scale=1; $mc / $best_cpu" | bc)x (CPU); $(echo "scale=1; $best / $cat_wall" | bc)x the cat floor${rf_wall:+, $(echo "scale=1; $best / $rf_wall" | bc)x the read_floor floor}"
    rm -rf "$DIR/msprof-$n"
  fi
done
