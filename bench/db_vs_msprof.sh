#!/usr/bin/env bash
# clusterscope vs msprof-analyze on generated DB jobs: every recipe both tools run, wall and CPU
# seconds and peak RSS of each, whether their outputs are the same, and the total.
#
#   bench/db_vs_msprof.sh [RANKS] [MODES...]
#   RANKS (a multiple of 64: tp 8 x pp 4, dp even for --ep 2) defaults to 256; MODES to every line
#   of RECIPES below.
#   MSPROF=/path/to/msprof-analyze checkout (default /tmp/msprof), run with /usr/bin/python3
#   (Debian's python3-pandas and friends, see docs/generated_db.md) through
#   bench/msprof_rank_order.py (the rank directories listed in rank order, as clusterscope reads
#   them, so that the outputs can be compared row for row). CS=path to clusterscope (default
#   build/clusterscope). WORK=scratch directory (default /tmp/db-vs-msprof): the jobs are generated
#   there once and kept. THREADS=clusterscope's --threads (default 0: the cores it may use).
#   TOOLS=clusterscope runs clusterscope only and takes msprof-analyze's times and outputs from
#   the last run in WORK (to measure a change to clusterscope without waiting for msprof-analyze
#   again). TARGET=the total speed-up asked for (default 20). RESULTS=the file the per-mode lines
#   go to (default WORK/resultsRANKS.txt; another one for a second run on the same WORK).
# Prints one line per mode: each tool's wall seconds, CPU seconds (user + sys, children included)
# and peak RSS (MiB), the ratios, and whether the outputs are the same (bench/same_outputs.py),
# then the total and the load average. Exits 1 when an output differs or the total CPU ratio is
# below TARGET.
set -euo pipefail
RANKS=${1:-256}
shift || true
ONLY=("$@")
BENCH=$(cd "$(dirname "$0")" && pwd)
CS=$(realpath "${CS:-build/clusterscope}")
MSPROF=${MSPROF:-/tmp/msprof}
WORK=${WORK:-/tmp/db-vs-msprof}
TOOLS=${TOOLS:-both}
TARGET=${TARGET:-20}

# The job every recipe runs on unless its line says otherwise: the options give each recipe its
# data (msprof-analyze accepts them together): --ep 2 MoE GroupedMatmul kernels (ep_load_balance),
# --notify-tasks the send/receive handshakes (p2p_pairing), --mstx-passes forward/backward ranges
# (pp_chart), --mstx-modules nn.Module ranges (module_statistic), --slow-freq AICORE_FREQ with an
# idle and an abnormal rank (freq_analysis).
JOB="--steps 4 --ep 2 --notify-tasks --mstx-passes --mstx-modules --slow-freq 3:800 --slow-freq 5:1200"

# ----------------------------------------------------------------------------------------------
# The recipes, one line each:   mode | generator options of its job | arguments (both tools)
# Each distinct set of generator options is one job (`generate --ranks RANKS --tp 8 --pp 4
# --export-type db OPTIONS`), generated once. In the arguments, @SUMMARY(OPTIONS) is a directory
# holding the ClusterTimeSummary of the job of OPTIONS (cluster_analysis_output/
# cluster_analysis.db, written by clusterscope's cluster_time_summary); a line whose arguments
# name @SUMMARY also gets its own job's ClusterTimeSummary there, as cluster_time_compare_summary
# reads it from -d.
RECIPES=(
  "all                          | $JOB |"
  "communication_group_map      | $JOB |"
  "communication_time_sum       | $JOB |"
  "communication_matrix_sum     | $JOB |"
  "compute_op_sum               | $JOB |"
  "hccl_sum                     | $JOB |"
  "cann_api_sum                 | $JOB |"
  "mstx_sum                     | $JOB |"
  "cluster_time_summary         | $JOB |"
  "free_analysis                | $JOB |"
  "slow_rank                    | $JOB |"
  "slow_link                    | $JOB |"
  "freq_analysis                | $JOB |"
  "communication_bottleneck     | $JOB | --rank_id 1"
  "p2p_pairing                  | $JOB |"
  "pp_chart                     | $JOB |"
  "computational_op_masking     | $JOB |"
  "ep_load_balance              | $JOB |"
  "export_summary               | $JOB |"
  "module_statistic             | $JOB |"
  "operator_mfu                 | $JOB --mfu-flops |"
  "calibrate_npu_gpu            | --steps 4 --nsys-sqlite @GPU | --baseline_profiling_path @GPU"
  "mstx2commop                  | --steps 4 --mstx-comm |"
  "cluster_time_compare_summary | $JOB | --bp @SUMMARY(--steps 3 --seed 3)"
)
# @GPU, in the options and the arguments: the Nsight Systems SQLite export generated beside the
# job (generate --nsys-sqlite), the GPU side calibrate_npu_gpu compares with.
# Recipes that msprof-analyze lets write into the rank databases: it runs on a copy of the job.
# (mstx2commop writes into copies under its output directory, as clusterscope does.)
IN_PLACE=" p2p_pairing pp_chart "
# ----------------------------------------------------------------------------------------------

trim() { sed -e 's/^ *//' -e 's/ *$//' <<<"$1"; }

# job_dir OPTIONS: the job of those generator options, generated on first use.
job_dir() {
  local key dir
  key=$(md5sum <<<"$RANKS $1" | cut -c1-10)
  dir=$WORK/job$RANKS-$key
  if [ ! -f "$dir/truth.json" ]; then
    rm -rf "$dir"
    echo "generating $dir: --ranks $RANKS --tp 8 --pp 4 $1" >&2
    # shellcheck disable=SC2086
    "$CS" generate "$dir" --ranks "$RANKS" --tp 8 --pp 4 --export-type db $1 >/dev/null
    echo "$1" >"$dir.options"
  fi
  echo "$dir"
}

# summary_dir OPTIONS: a directory holding that job's ClusterTimeSummary.
summary_dir() {
  local job out
  job=$(job_dir "$1")
  out=$job-summary
  if [ ! -f "$out/cluster_analysis_output/cluster_analysis.db" ]; then
    rm -rf "$out"
    "$CS" cluster -q -d "$job" -o "$out" -m cluster_time_summary --export_type db >/dev/null
  fi
  echo "$out"
}

mkdir -p "$WORK"
printf '%s\n' "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# discard DIR: moves an earlier run's directory aside; it is deleted once everything is measured,
# not between the runs measured (a profile of p2p_pairing on this machine showed most of its time
# in ext4's inode allocator passing over recently deleted inodes; no user's run follows the
# deletion of thousands of files).
TRASH=$WORK/trash
discard() {
  if [ -e "$1" ]; then
    mkdir -p "$TRASH"
    mv "$1" "$(mktemp -u "$TRASH/XXXXXXXX")"
  fi
}

# measure TOOL MODE command...: runs it under /usr/bin/time -v into $WORK/TOOL-MODE.{log,time}.
measure() {
  local tool=$1 mode=$2
  shift 2
  if ! /usr/bin/time -v "$@" >"$WORK/$tool-$mode.log" 2>"$WORK/$tool-$mode.time"; then
    echo "$tool $mode failed, see $WORK/$tool-$mode.log and .time" >&2
  fi
}

# times TOOL MODE: "wall cpu peak_MiB" from the run's /usr/bin/time -v.
tool_times() {
  local log=$WORK/$1-$2.time
  [ -f "$log" ] || { echo "- - -"; return; }
  awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0;
              for (i = 1; i <= n; i++) s = s * 60 + p[i]; w = s}
              /User time|System time/ {c += $2}
              /Maximum resident set size/ {r = $2 / 1024}
              END {printf "%.2f %.2f %.0f\n", w, c, r}' "$log"
}

MSPROF_CMD=(env PYTHONPATH="$MSPROF" /usr/bin/python3 "$BENCH/msprof_rank_order.py"
  "$MSPROF/msprof_analyze/cluster_analyse/cluster_analysis.py")

RESULTS=${RESULTS:-$WORK/results$RANKS.txt}
: >"$RESULTS"
printf '%-29s %8s %8s %6s %9s %9s %6s %8s %8s  %s\n' mode cs_wall cs_cpu cs_MiB ms_wall ms_cpu \
  ms_MiB wall_x cpu_x same
for line in "${RECIPES[@]}"; do
  IFS='|' read -r mode opts args <<<"$line"
  mode=$(trim "$mode")
  opts=$(trim "$opts")
  args=$(trim "$args")
  opts=${opts//@GPU/$WORK/gpu$RANKS.sqlite}
  args=${args//@GPU/$WORK/gpu$RANKS.sqlite}
  if [ ${#ONLY[@]} -gt 0 ] && [[ " ${ONLY[*]} " != *" $mode "* ]]; then continue; fi
  job=$(job_dir "$opts")
  # @SUMMARY(OPTIONS) in the arguments: that job's ClusterTimeSummary, and this job's beside it.
  while [[ $args =~ @SUMMARY\(([^\)]*)\) ]]; do
    args=${args/"${BASH_REMATCH[0]}"/$(summary_dir "${BASH_REMATCH[1]}")}
    rm -rf "$job/cluster_analysis_output"
    cp -r "$(summary_dir "$opts")/cluster_analysis_output" "$job/"
  done
  read -r -a argv <<<"$args"
  export_type=(--export_type db)
  [ "$mode" = all ] && export_type=()
  # Both tools find the job in the page cache: the first run would otherwise pay the disk.
  find "$job" -type f -exec cat {} + >/dev/null

  cs_out=$WORK/out-cs-$mode
  discard "$cs_out"
  measure clusterscope "$mode" "$CS" cluster -q -d "$job" -o "$cs_out" -m "$mode" \
    "${export_type[@]}" --threads "${THREADS:-0}" "${argv[@]}"

  ms_out=$WORK/out-msprof-$mode
  ms_job=$WORK/inplace-$mode
  if [ "$TOOLS" != clusterscope ]; then
    discard "$ms_out"
    discard "$ms_job"
    mkdir -p "$ms_out"
    input=$job
    if [[ $IN_PLACE == *" $mode "* ]]; then
      input=$ms_job
      cp -r "$job" "$input"
    fi
    # msprof-analyze's export_summary writes its CSVs into the job (and skips ranks that have
    # them): none before the run; after it they move to its output directory.
    find "$job" \( -name api_statistic.csv -o -name kernel_details.csv \) -delete
    measure msprof-analyze "$mode" "${MSPROF_CMD[@]}" -d "$input" -m "$mode" "${export_type[@]}" -o "$ms_out" \
      "${argv[@]}"
    if [ "$mode" = export_summary ]; then
      mkdir -p "$ms_out/job"
      (cd "$job" && find . \( -name api_statistic.csv -o -name kernel_details.csv \) -print0 |
        xargs -0 -r cp --parents -t "$ms_out/job/")
      find "$job" \( -name api_statistic.csv -o -name kernel_details.csv \) -delete
    fi
  fi
  rm -rf "$job/cluster_analysis_output"
  same=$(python3 "$BENCH/same_outputs.py" "$mode" "$cs_out" "$ms_out" "$ms_job")
  read -r cw cc cr <<<"$(tool_times clusterscope "$mode")"
  read -r mw mc mr <<<"$(tool_times msprof-analyze "$mode")"
  echo "$mode $cw $cc $cr $mw $mc $mr ${same%%:*}" >>"$RESULTS"
  awk -v m="$mode" -v cw="$cw" -v cc="$cc" -v cr="$cr" -v mw="$mw" -v mc="$mc" -v mr="$mr" \
    -v s="$same" 'BEGIN {printf "%-29s %8s %8s %6s %9s %9s %6s %7.1fx %7.1fx  %s\n", m, cw, cc, cr,
      mw, mc, mr, (cw > 0 ? mw / cw : 0), (cc > 0 ? mc / cc : 0), s}'
done
printf '%s\n' "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$TRASH"
awk -v target="$TARGET" '{cw += $2; cc += $3; mw += $5; mc += $6; if ($8 != "yes") d++}
  END {printf "total: clusterscope %.2f s wall / %.2f s CPU, msprof-analyze %.2f / %.2f: %.1fx in wall time, %.1fx in CPU time; %d of %d modes with different outputs\n",
         cw, cc, mw, mc, mw / cw, mc / cc, d, NR;
       exit (d > 0 || mc / cc < target) ? 1 : 0}' "$RESULTS"
