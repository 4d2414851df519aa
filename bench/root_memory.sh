#!/usr/bin/env bash
# The root's memory bound of `clusterscope cluster` under mpirun (issue 38): on generated text jobs
# (tp 8, pp 8, 2 steps), the peak RSS of every process, wall and CPU seconds and the output bytes;
# then the check that the root's peak at the largest job is at most 1.5x its peak at the smallest.
#   bench/root_memory.sh [RANKS...]      (default: 1024 16384)
#   NP=2 (processes; NP=0: one process with no launcher), BOUND=1.5 (the allowed ratio),
#   BENCH_DIR=/tmp/clusterscope-bench (data), BIN=build/clusterscope,
#   EXPORT=text|db (db: the ranks' DB exports, `-m all` then writes cluster_analysis.db; the last
#   column is that file's bytes instead of msprof-analyze's two JSON documents'),
#   REPEAT=1 (runs per size, one row each; the bound compares the sizes' median root peaks: at
#   16,384 ranks the root's peak varies by about +-3 MiB from run to run)
# Exit 0 when the bound holds, 1 when it does not (the table says by how much), 2 on a failed run.
# Needs a Release build (scripts/build.sh). A job is generated once and reused (about 290 MB and
# 10 s per 1,024 ranks).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/clusterscope}
DIR=${BENCH_DIR:-/tmp/clusterscope-bench}
NP=${NP:-2}
BOUND=${BOUND:-1.5}
REPEAT=${REPEAT:-1}
EXPORT=${EXPORT:-text}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$DIR"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1024 16384)

mb() { echo $(( ($1 + 500000) / 1000000 )); }
# A field of /usr/bin/time -v's report.
field() { grep -F "$2" "$1" | sed 's/.*: //'; }
# The median of the numbers given (the lower middle one of an even count).
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

printf "%-6s %-3s %8s %8s %9s %s %10s %10s %s\n" ranks np wall_s cpu_s root_MB "other_MB" \
  input_MB output_MB "(msprof json MB, or cluster_analysis.db MB)"
first_root=""
last_root=""
for n in "${sizes[@]}"; do
  tag=$n
  gen=()
  if [ "$EXPORT" = db ]; then
    tag=db-$n
    gen=(--export-type db)
  fi
  in="$DIR/rootmem-$tag"
  if [ ! -f "$in/truth.json" ]; then
    rm -rf "$in"
    $BIN generate "$in" --ranks "$n" --tp 8 --pp 8 --steps 2 --seed 1 --no-trace-view \
      "${gen[@]}" >/dev/null
  fi
  input=$(find "$in/" -type f ! -name truth.json -printf '%s\n' | paste -sd+ | bc)
  out="$DIR/rootmem-out-$tag-$NP"
  log="$DIR/rootmem-time-$tag-$NP"
  rm -rf "$out" "$log".*
  find "$in/" -type f -exec cat {} + >/dev/null  # warm page cache: the runs read from memory
  roots=()
  for ((rep = 0; rep < REPEAT; rep++)); do
    rm -rf "$out" "$log".*
    start=$(date +%s.%N)
    # One /usr/bin/time per process (the launcher's own report would give only the largest child).
    # NP=0: one process, no launcher (its report is the root's).
    if [ "$NP" = 0 ]; then
      run=(/usr/bin/time -v -o "$log.0" $BIN cluster -d "$in" -o "$out" --quiet)
    else
      run=(mpirun -np "$NP" --bind-to none bash -c
        "exec /usr/bin/time -v -o $log.\$OMPI_COMM_WORLD_RANK $BIN cluster -d $in -o $out --quiet")
    fi
    # A generated job is read whole: any failure (e.g. another run writing to the same BENCH_DIR)
    # leaves no figure to report.
    if ! "${run[@]}" >"$log.stdout" 2>&1; then
      echo "clusterscope failed on $in (log: $log.stdout):" >&2
      tail -5 "$log.stdout" >&2
      exit 2
    fi
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    cpu=0
    others=()
    for ((p = 0; p < (NP > 0 ? NP : 1); p++)); do
      f="$log.$p"
      cpu=$(echo "$cpu + $(field "$f" "User time") + $(field "$f" "System time")" | bc)
      kb=$(field "$f" "Maximum resident set size")
      [ -n "$kb" ] || { echo "no peak RSS in $f: the process did not finish" >&2; exit 2; }
      rss=$((kb / 1024))
      if [ "$p" = 0 ]; then root=$rss; else others+=("$rss"); fi
    done
    outdir="$out/cluster_analysis_output"
    outputs=$(find "$outdir/" -type f -printf '%s\n' | paste -sd+ | bc)
    if [ "$EXPORT" = db ]; then
      json=$(wc -c <"$outdir/cluster_analysis.db")
    else
      json=$(cat "$outdir/cluster_communication.json" "$outdir/cluster_communication_matrix.json" |
        wc -c)
    fi
    printf "%-6s %-3s %8.1f %8.1f %9s %s %10s %10s (%s)\n" "$n" "$NP" "$wall" "$cpu" "$root" \
      "$(IFS=,; echo "${others[*]:-}")" "$(mb "$input")" "$(mb "$outputs")" "$(mb "$json")"
    roots+=("$root")
  done
  root=$(median "${roots[@]}")
  [ "$REPEAT" = 1 ] || echo "$n ranks: median root peak RSS $root MB of $REPEAT runs"
  [ -n "$first_root" ] || first_root=$root
  last_root=$root
done

ratio=$(echo "scale=2; $last_root / $first_root" | bc)
if [ "$(echo "$last_root <= $BOUND * $first_root" | bc)" = 1 ]; then
  echo "root peak RSS ${sizes[-1]} ranks / ${sizes[0]} ranks = $ratio <= $BOUND: bound holds"
else
  echo "root peak RSS ${sizes[-1]} ranks / ${sizes[0]} ranks = $ratio > $BOUND: bound NOT met"
  exit 1
fi
