#!/usr/bin/env bash
# SQLite's floor under the DB benchmark. For each mode of bench/db_vs_msprof.sh: the CPU seconds
# SQLite alone needs to step every row of the tables the mode reads, reading the columns its
# outputs depend on (sqlite_read_floor; the lists below), and to write the rows of the cluster_analysis.db the mode writes (sqlite_write_floor, on the
# database clusterscope wrote). Their sum divided by the cores is the least wall time any tool
# that reads and writes these databases through SQLite can take for the ten runs: with
# msprof-analyze's total beside it, the largest speed-up this machine allows.
#   bench/db_floor.sh [RANKS]   (default 256)
# Uses bench/db_vs_msprof.sh's job, outputs and timings in WORK (default /tmp/db-vs-msprof): run
# that first. Needs build/bench/sqlite_read_floor and sqlite_write_floor (CS_BUILD_BENCH).
set -euo pipefail
RANKS=${1:-256}
WORK=${WORK:-/tmp/db-vs-msprof}
BIN=${BIN:-build/bench}
JOB=$WORK/job$RANKS
[ -d "$JOB" ] || { echo "db_floor.sh: $JOB missing: run bench/db_vs_msprof.sh $RANKS first" >&2; exit 1; }
analysis_dbs=$(mktemp) profiler_dbs=$(mktemp)
trap 'rm -f "$analysis_dbs" "$profiler_dbs" "$WORK/floor-write.db"' EXIT
find "$JOB" -name analysis.db | sort >"$analysis_dbs"
find "$JOB" -name 'ascend_pytorch_profiler_*.db' | sort >"$profiler_dbs"

# mode | analysis.db TABLE:COLUMNS | ascend_pytorch_profiler_N.db TABLE:COLUMNS: the columns the
# mode's outputs depend on, each table once (no columns: all of them; the communication recipes
# carry every column of analysis.db's tables into their outputs).
modes=(
  "all|CommAnalyzerTime CommAnalyzerBandwidth CommAnalyzerMatrix StepTraceTime|COMPUTE_TASK_INFO:globalTaskId,name,opType,inputShapes,inputDataTypes,waitNs,inputFormats,outputShapes,outputFormats TASK:globalTaskId,startNs,endNs STRING_IDS:id,value STEP_TIME:id,startNs,endNs COMMUNICATION_OP:opName,opType,startNs,endNs META_DATA:name,value HOST_INFO:hostUid,hostName RANK_DEVICE_MAP:rankId,deviceId"
  "communication_group_map|CommAnalyzerTime:hccl_op_name,group_name|META_DATA:name,value"
  "communication_time_sum|CommAnalyzerTime CommAnalyzerBandwidth|META_DATA:name,value"
  "communication_matrix_sum|CommAnalyzerMatrix|"
  "compute_op_sum||COMPUTE_TASK_INFO:globalTaskId,name,opType,taskType,inputShapes TASK:globalTaskId,startNs,endNs STRING_IDS:id,value"
  "hccl_sum||COMMUNICATION_OP:opName,opType,groupName,startNs,endNs STRING_IDS:id,value"
  "cann_api_sum||CANN_API:name,startNs,endNs STRING_IDS:id,value"
  "mstx_sum||MSTX_EVENTS:message,eventType,startNs,endNs,globalTid,connectionId TASK:connectionId,startNs,endNs STEP_TIME:id,startNs,endNs STRING_IDS:id,value"
  "cluster_time_summary|CommAnalyzerTime:hccl_op_name,group_name StepTraceTime:step,computing,communication_not_overlapped,overlapped,communication,free|META_DATA:name,value STEP_TIME:id,startNs,endNs COMMUNICATION_OP:opName,groupName,startNs,endNs,connectionId RANK_DEVICE_MAP:rankId STRING_IDS:id,value CANN_API:connectionId,startNs COMPUTE_TASK_INFO:globalTaskId TASK:globalTaskId,startNs,endNs,connectionId,taskType"
  "free_analysis||COMPUTE_TASK_INFO:globalTaskId TASK:globalTaskId,startNs,endNs,connectionId,taskType COMMUNICATION_OP:startNs,endNs CANN_API:connectionId,startNs,endNs PYTORCH_API:connectionId,startNs,endNs STRING_IDS:id,value CONNECTION_IDS:rowid,id,connectionId"
)
cpu_of() { sed -n 's/.*cpu \([0-9.]*\) s.*/\1/p'; }
printf "%-26s %10s %10s %10s %12s\n" mode read_cpu_s write_cpu_s floor_cpu_s msprof_wall_s
total=0 msprof_total=0
for entry in "${modes[@]}"; do
  IFS='|' read -r mode a p <<<"$entry"
  r=0 w=0
  # shellcheck disable=SC2086
  [ -z "$a" ] || r=$(awk -v x="$r" -v y="$("$BIN/sqlite_read_floor" $a <"$analysis_dbs" | cpu_of)" 'BEGIN {print x + y}')
  # shellcheck disable=SC2086
  [ -z "$p" ] || r=$(awk -v x="$r" -v y="$("$BIN/sqlite_read_floor" $p <"$profiler_dbs" | cpu_of)" 'BEGIN {print x + y}')
  out_db=$WORK/out-cs-$mode/cluster_analysis_output/cluster_analysis.db
  [ ! -f "$out_db" ] || w=$("$BIN/sqlite_write_floor" "$out_db" "$WORK/floor-write.db" | cpu_of)
  m=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, q, ":"); s = 0;
      for (i = 1; i <= n; i++) s = s * 60 + q[i]; print s}' "$WORK/msprof-analyze-$mode.time" 2>/dev/null || true)
  m=${m:-0}
  f=$(awk -v x="$r" -v y="$w" 'BEGIN {print x + y}')
  total=$(awk -v x="$total" -v y="$f" 'BEGIN {print x + y}')
  msprof_total=$(awk -v x="$msprof_total" -v y="$m" 'BEGIN {print x + y}')
  printf "%-26s %10.3f %10.3f %10.3f %12.2f\n" "$mode" "$r" "$w" "$f" "$m"
done
cores=$(nproc)
awk -v t="$total" -v c="$cores" -v m="$msprof_total" 'BEGIN {
  printf "SQLite floor: %.2f CPU s; on %d cores at best %.2f s wall", t, c, t / c;
  if (m > 0) printf "; msprof-analyze %.2f s wall: at most %.1fx faster", m, m / (t / c);
  printf "\n" }'
