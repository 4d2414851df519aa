#!/usr/bin/env bash
# Size and load time of report.html at scale: generates an N-rank job (tp 8, pp 4, one slow rank),
# runs `clusterscope cluster --format html` on it and loads the page in headless Chromium
# (bench/report_load.py: median of 5 loads, navigation start to the end of the load event, which
# includes the inline script drawing the heatmap). Not a test: timings depend on the machine.
#
#   bench/report_load.sh [BINARY] [RANKS...]      (default: build/clusterscope 1024 8192)
set -euo pipefail
BIN=${1:-build/clusterscope}
shift || true
RANKS=("$@")
[ ${#RANKS[@]} -eq 0 ] && RANKS=(1024 8192)
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/cs_report_load.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
printf '%8s %12s %10s\n' ranks bytes load_ms
for n in "${RANKS[@]}"; do
  slow=$((n * 3 / 10))
  "$BIN" generate "$WORK/job$n" --ranks "$n" --tp 8 --pp 4 --steps 4 --no-trace-view \
    --slow-rank "$slow:1.3" > /dev/null 2>&1
  "$BIN" cluster -d "$WORK/job$n" -o "$WORK/out$n" --format html -q > /dev/null 2>&1 || true
  html="$WORK/out$n/cluster_analysis_output/report.html"
  printf '%8d %12d %10s\n' "$n" "$(stat -c %s "$html")" "$(/usr/bin/python3 "$HERE/report_load.py" "$html")"
  rm -rf "$WORK/job$n"
done
