#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang, ASan+UBSan) into build-fuzz/ and runs each for
# SECONDS (default 60) on its seed corpus tests/data/fuzz/<harness>/. Fails on any crash, timeout
# (-timeout, 10 s per input), leak, out-of-memory or sanitizer report; the reproducer is saved as
# build-fuzz/crashes/<harness>-<kind>-<sha1>. Inputs that found new coverage go to
# build-fuzz/corpus/<harness>/ and are reused by the next run. Harnesses run FUZZ_PARALLEL at a
# time (default: the number of cores), each on one core. See docs/fuzzing.md.
#   scripts/fuzz.sh                        # every harness, 60 s each
#   scripts/fuzz.sh 30                     # 30 s each
#   FUZZ_ONLY="step_trace kineto_trace" scripts/fuzz.sh 120
#   FUZZ_KEEP_GOING=1 scripts/fuzz.sh 60   # count every crash instead of stopping at the first
#                                          # (libFuzzer -fork=1 -ignore_crashes=1 ...)
# Prints one line per harness (runs, runs/s, crashes, timeouts, OOMs, leaks, sanitizer reports)
# and writes them to build-fuzz/fuzz_summary.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
dir=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${JOBS:-$(nproc)}

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
build_start=$(date +%s)
# -O1 with line tables only: what libFuzzer's documentation builds with; symbolized stacks with
# file:line, and half the compile time of -O2 -g.
# A build directory configured with CS_BUILD_FUZZ already (scripts/test.sh's sanitizer build, which
# also holds the tests) is only brought up to date.
if ! grep -q '^CS_BUILD_FUZZ:BOOL=ON' "$dir/CMakeCache.txt" 2>/dev/null; then
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DCS_BUILD_FUZZ=ON -DCS_BUILD_TESTS=OFF -DCS_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    "${launcher[@]}" >/dev/null
fi
cmake --build "$dir" -j "$jobs" --target fuzz_all
echo "== fuzz: harnesses built in $(( $(date +%s) - build_start ))s"

mkdir -p "$dir/crashes" "$dir/corpus" "$dir/logs"
# The harnesses write each input to a file (the readers take paths): on tmpfs that is 4x faster.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
names=${FUZZ_ONLY:-$(cd tests/data/fuzz && ls -d -- */ | tr -d /)}
summary="$dir/fuzz_summary.tsv"
printf 'harness\truns\truns_per_s\tcrashes\ttimeouts\tooms\tleaks\tsanitizer_reports\tresult\n' >"$summary"
# One harness: runs it, counts what it found, writes its summary row to $dir/logs/<name>.row and
# its lines for the terminal to $dir/logs/<name>.out. Reproducer names carry the harness name, so
# harnesses running side by side count only their own.
run_harness() {
  local name=$1
  local bin="$dir/fuzz/fuzzer_$name"
  mkdir -p "$dir/corpus/$name"
  local log="$dir/logs/$name.log"
  local flags=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$dir/crashes/$name-")
  if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
    flags+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  # Reproducers libFuzzer saves: <harness>-crash-*, -timeout-*, -oom-*, -leak-*.
  count() { ls "$dir/crashes" | grep -c "^$name-$1-" || true; }
  local b_crash b_timeout b_oom b_leak
  b_crash=$(count crash) b_timeout=$(count timeout) b_oom=$(count oom) b_leak=$(count leak)
  local rc=0 t0
  t0=$(date +%s)
  ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" "${flags[@]}" "$dir/corpus/$name" "tests/data/fuzz/$name" >"$log" 2>&1 || rc=$?
  local crashes=$(( $(count crash) - b_crash ))
  local timeouts=$(( $(count timeout) - b_timeout ))
  local ooms=$(( $(count oom) - b_oom ))
  local leaks=$(( $(count leak) - b_leak ))
  local wall=$(( $(date +%s) - t0 ))
  # Runs: the final stats (single process) or the last status line (fork mode); runs/s over the
  # whole wall time of the harness (seed loading included).
  local runs
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
  if [ -z "$runs" ]; then
    runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  fi
  local rate=$(( ${runs:-0} / (wall > 0 ? wall : 1) ))
  local sanitizer
  sanitizer=$(grep -c 'SUMMARY: \(AddressSanitizer\|UndefinedBehaviorSanitizer\|LeakSanitizer\)' "$log" || true)
  local result=ok
  if [ "$rc" != 0 ] || [ $((crashes + timeouts + ooms + leaks)) != 0 ]; then result=FAILED; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${runs:-0}" "${rate:-0}" "$crashes" \
    "$timeouts" "$ooms" "$leaks" "$sanitizer" "$result" >"$dir/logs/$name.row"
  {
    printf '== fuzz %-22s %10s runs %7s runs/s  crashes %s timeouts %s ooms %s leaks %s sanitizer %s  %s\n' \
      "$name" "${runs:-0}" "${rate:-0}" "$crashes" "$timeouts" "$ooms" "$leaks" "$sanitizer" "$result"
    if [ "$result" != ok ]; then
      echo "   log: $log; reproducers: $(ls "$dir/crashes" | grep "^$name-" | sed "s|^|$dir/crashes/|" | tr '\n' ' ')"
    fi
  } >"$dir/logs/$name.out"
}

for name in $names; do
  if [ ! -x "$dir/fuzz/fuzzer_$name" ]; then
    echo "clusterscope: fuzz.sh: no fuzzer for $name — add it to fuzz/CMakeLists.txt" >&2
    exit 2
  fi
  rm -f "$dir/logs/$name.row" "$dir/logs/$name.out"
done
parallel=${FUZZ_PARALLEL:-$(nproc)}
echo "== fuzz: ${secs}s per harness, $parallel at a time"
running=0
for name in $names; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_harness "$name" &
  running=$((running + 1))
done
wait
failed=0
for name in $names; do
  if [ -f "$dir/logs/$name.row" ]; then
    cat "$dir/logs/$name.row" >>"$summary"
    cat "$dir/logs/$name.out"
    grep -q 'ok$' "$dir/logs/$name.row" || failed=1
  else
    echo "== fuzz $name: the harness run ended without a result (see $dir/logs/$name.log)"
    failed=1
  fi
done
if [ "$failed" != 0 ]; then
  echo "== FUZZING FOUND PROBLEMS (see above); keep each reproducer in tests/data/fuzz/<harness>/"
  exit 1
fi
echo "== fuzzing clean"
