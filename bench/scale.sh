#!/usr/bin/env bash
# The scale benchmark (issue 38, docs/scale.md): `clusterscope cluster` on generated jobs of
# 1,024 / 4,096 / 16,384 ranks (tp 8, pp 8, 2 steps), text and DB export, under `mpirun -np 1`
# and `-np 2`: wall seconds, CPU seconds (user + system of every process), peak RSS of each
# process (/usr/bin/time -v around each process under mpirun), output bytes, the bytes the
# other processes sent to the root (Open MPI's pml monitoring component: every point-to-point
# message counted, so the gather's volume is measured, not estimated); and msprof-analyze on the
# same job where it finishes within its time limit.
#
#   bench/scale.sh [--no-msprof] [--msprof-max-ranks N] [--msprof-timeout S] [--keep]
#                  [--exports "text db"] [--np "1 2"] [RANKS...]
#
#   --no-msprof          do not run msprof-analyze
#   --msprof-max-ranks N run it only up to N ranks (default 4096: at 4,096 text ranks it takes
#                        about 24 minutes and grows faster than linearly)
#   --msprof-timeout S   stop it after S seconds (default 1800) and say so
#   --keep               keep the generated jobs (they are removed after each size: 16,384 text
#                        ranks are ~4.7 GB, DB ~9 GB)
# Needs a Release build in build/ (or BIN=binary). Data goes to ${BENCH_DIR:-/tmp/clusterscope-scale}; check
# `df -h` first. One line per run on stdout (a table), details in $BENCH_DIR/*.time.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/build/clusterscope}
DIR=${BENCH_DIR:-/tmp/clusterscope-scale}
MSPROF_PY=${MSPROF_PY:-/tmp/msprof}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
msprof=1 msprof_max=4096 msprof_timeout=1800 keep=0 exports="text db" nps="1 2" sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-msprof) msprof=0 ;;
    --msprof-max-ranks) msprof_max=$2; shift ;;
    --msprof-timeout) msprof_timeout=$2; shift ;;
    --keep) keep=1 ;;
    --exports) exports=$2; shift ;;
    --np) nps=$2; shift ;;
    -h|--help) sed -n 2,20p "$0"; exit 0 ;;
    *) sizes+=("$1") ;;
  esac
  shift
done
[ ${#sizes[@]} -gt 0 ] || sizes=(1024 4096 16384)
mkdir -p "$DIR"

# GNU time -v fields of one file: wall, user+sys, peak RSS (MB).
time_field() { grep -F "$2" "$1" | head -1 | sed 's/.*: //'; }
cpu_of() { echo "$(time_field "$1" 'User time') + $(time_field "$1" 'System time')" | bc; }
rss_mb_of() { echo $(( $(time_field "$1" 'Maximum resident set size') / 1024 )); }

printf "%-6s %-6s %-14s %9s %9s %-22s %12s %10s %12s\n" ranks export tool wall_s cpu_s peak_rss_MB_per_process output_bytes input_MB bytes_to_root
for n in "${sizes[@]}"; do
  for ex in $exports; do
    in="$DIR/job-$ex-$n"
    if [ ! -f "$in/truth.json" ]; then
      rm -rf "$in"
      t0=$(date +%s.%N)
      $BIN generate "$in" --ranks "$n" --tp 8 --pp 8 --steps 2 --seed 1 --no-trace-view \
        --export-type "$ex" >/dev/null
      echo "generated $ex $n ranks in $(echo "$(date +%s.%N) - $t0" | bc) s ($(du -sm "$in" | cut -f1) MB)" >&2
    fi
    in_mb=$(( $(find "$in/" -type f ! -name truth.json -printf '%s\n' | paste -sd+ | bc) / 1000000 ))
    for np in $nps; do
      out="$DIR/out-$ex-$n-$np"
      rm -rf "$out" "$DIR/$ex-$n-$np".time.*
      find "$in/" -type f -exec cat {} + >/dev/null  # warm page cache
      t0=$(date +%s.%N)
      # --bind-to none: all of a process's threads are not put on one core.
      # pml monitoring prints each process's sent bytes per peer at MPI_Finalize ("E <from> <to>
      # <bytes> bytes ..." lines on stderr).
      mpirun -np "$np" --bind-to none --mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 1 \
        bash -c "/usr/bin/time -v -o $DIR/$ex-$n-$np.time.\$OMPI_COMM_WORLD_RANK $BIN cluster -d $in -o $out --quiet" \
        >"$DIR/$ex-$n-$np.mpi" 2>&1 || echo "exit $? ($ex $n np $np)" >&2
      to_root=$(awk '$1 == "E" && $3 == 0 { s += $4 } END { print s + 0 }' "$DIR/$ex-$n-$np.mpi")
      wall=$(echo "$(date +%s.%N) - $t0" | bc)
      cpu=0 rss=""
      for f in "$DIR/$ex-$n-$np".time.*; do
        cpu=$(echo "$cpu + $(cpu_of "$f")" | bc)
        rss="${rss:+$rss,}$(rss_mb_of "$f")"
      done
      bytes=$(du -sb "$out" | cut -f1)
      printf "%-6s %-6s %-14s %9.2f %9.2f %-22s %12s %10s %12s\n" "$n" "$ex" "clusterscope-np$np" "$wall" "$cpu" "$rss" "$bytes" "$in_mb" "$to_root"
      rm -rf "$out"
    done
    if [ "$msprof" = 1 ] && [ "$n" -le "$msprof_max" ]; then
      out="$DIR/msprof-$ex-$n"
      rm -rf "$out"
      mkdir -p "$out"
      t0=$(date +%s.%N)
      rc=0
      PYTHONPATH=$MSPROF_PY timeout "$msprof_timeout" /usr/bin/time -v -o "$DIR/msprof-$ex-$n.time" \
        /usr/bin/python3 "$MSPROF_PY/msprof_analyze/cluster_analyse/cluster_analysis.py" \
        -d "$in" -m all -o "$out" >"$DIR/msprof-$ex-$n.log" 2>&1 || rc=$?
      wall=$(echo "$(date +%s.%N) - $t0" | bc)
      if [ "$rc" = 124 ]; then
        printf "%-6s %-6s %-14s %9s %9s %-22s %12s %10s\n" "$n" "$ex" msprof-analyze ">$msprof_timeout" - - - "$in_mb"
      else
        printf "%-6s %-6s %-14s %9.2f %9.2f %-22s %12s %10s\n" "$n" "$ex" msprof-analyze "$wall" \
          "$(cpu_of "$DIR/msprof-$ex-$n.time")" "$(rss_mb_of "$DIR/msprof-$ex-$n.time")" \
          "$(du -sb "$out" | cut -f1)" "$in_mb"
      fi
      rm -rf "$out"
    fi
    [ "$keep" = 1 ] || rm -rf "$in"
  done
done
