#!/usr/bin/env bash
# clusterscope vs msprof-analyze on a generated DB job: wall seconds and peak RSS of each mode.
#
#   bench/db_vs_msprof.sh [RANKS] [MODES...]
#   RANKS (a multiple of 64: tp 8 x pp 4, dp even for --ep 2) defaults to 256; MODES to all and the recipes both
#   tools have.
#   MSPROF=/path/to/msprof-analyze checkout (default /tmp/msprof), run with /usr/bin/python3
#   (Debian's python3-pandas and friends, see docs/generated_db.md). CS=path to clusterscope
#   (default build/clusterscope). WORK=scratch directory (default /tmp/db-vs-msprof).
#   THREADS=clusterscope's --threads (default 0: the cores it may use).
# Prints one line per mode and tool: mode, tool, wall seconds, CPU seconds (user + sys, children
# included), peak RSS (MiB), DB MB/s per core (database MB / CPU seconds).
set -euo pipefail
RANKS=${1:-256}
shift || true
MODES=("$@")
if [ ${#MODES[@]} -eq 0 ]; then
  MODES=(all communication_group_map communication_time_sum communication_matrix_sum compute_op_sum
         hccl_sum cann_api_sum mstx_sum cluster_time_summary free_analysis slow_rank slow_link
         freq_analysis p2p_pairing pp_chart computational_op_masking ep_load_balance export_summary
         module_statistic operator_mfu)
fi
CS=${CS:-build/clusterscope}
MSPROF=${MSPROF:-/tmp/msprof}
WORK=${WORK:-/tmp/db-vs-msprof}
JOB=$WORK/job$RANKS
mkdir -p "$WORK"
if [ ! -f "$JOB/truth.json" ]; then
  # --ep 2: MoE GroupedMatmul kernels for ep_load_balance (RANKS / 32 data-parallel ranks);
  # --mfu-flops: recorded FLOPs and the chip's DeviceInfo for operator_mfu.
  "$CS" generate "$JOB" --ranks "$RANKS" --tp 8 --pp 4 --ep 2 --steps 4 --export-type db \
    --notify-tasks --mstx-passes --mstx-modules --mfu-flops >/dev/null
fi
DB_MB=$(find "$JOB" -name '*.db' -printf '%s\n' | awk '{s += $1} END {printf "%.1f", s / 1e6}')
echo "job: $RANKS ranks, $DB_MB MB of databases ($JOB)"
printf '%-26s %-14s %9s %9s %10s %12s\n' mode tool wall_s cpu_s peak_MiB DB_MB/s/core

# measure TOOL MODE command...: runs it under /usr/bin/time -v, prints its line.
measure() {
  local tool=$1 mode=$2
  shift 2
  local log=$WORK/$tool-$mode.time
  if ! /usr/bin/time -v "$@" >"$WORK/$tool-$mode.log" 2>"$log"; then
    echo "$tool $mode failed, see $WORK/$tool-$mode.log" >&2
  fi
  local secs cpu rss
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0;
         for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$log")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$log")
  awk -v m="$mode" -v t="$tool" -v s="$secs" -v c="$cpu" -v r="$rss" -v mb="$DB_MB" \
    'BEGIN {printf "%-26s %-14s %9.2f %9.2f %10s %12.1f\n", m, t, s, c, r, mb / (c > 0 ? c : s)}'
}

# Both tools find the job in the page cache: the first run measured would otherwise pay the disk.
find "$JOB" -type f -exec cat {} + >/dev/null

for mode in "${MODES[@]}"; do
  out=$WORK/out-cs-$mode
  rm -rf "$out"
  measure clusterscope "$mode" "$CS" cluster -q -d "$JOB" -o "$out" -m "$mode" --export_type db \
    --threads "${THREADS:-0}"
  out=$WORK/out-msprof-$mode
  rm -rf "$out"
  mkdir -p "$out"
  if [ "$mode" = all ]; then
    measure msprof-analyze "$mode" env PYTHONPATH="$MSPROF" /usr/bin/python3 \
      "$MSPROF/msprof_analyze/cluster_analyse/cluster_analysis.py" -d "$JOB" -m all -o "$out"
  else
    # p2p_pairing and pp_chart change the rank databases in place: msprof-analyze gets a copy
    # (clusterscope writes its own copies under the output directory).
    input=$JOB
    if [ "$mode" = p2p_pairing ] || [ "$mode" = pp_chart ]; then
      input=$WORK/inplace-$mode
      rm -rf "$input"
      cp -r "$JOB" "$input"
    fi
    measure msprof-analyze "$mode" env PYTHONPATH="$MSPROF" /usr/bin/python3 \
      "$MSPROF/msprof_analyze/cluster_analyse/cluster_analysis.py" -d "$input" -m "$mode" \
      --export_type db -o "$out"
  fi
  # msprof-analyze's export_summary writes its CSVs into the job (and skips ranks that have them).
  if [ "$mode" = export_summary ]; then
    find "$JOB" \( -name api_statistic.csv -o -name kernel_details.csv \) -delete
  fi
done
