#!/usr/bin/env bash
# The whole test suite: installs missing Debian packages, builds, runs every test through CTest
# (unit, golden, MPI at 1/2/4 processes, h5py). Then, unless SANITIZE=0 or time is short, the same
# suite built with AddressSanitizer + UndefinedBehaviorSanitizer.
#   scripts/test.sh            # everything
#   SANITIZE=0 scripts/test.sh # skip the sanitizer pass
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

scripts/install-deps.sh

# mpirun as root (containers, CI) and more processes than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

echo "== build (Release)"
BUILD_DIR=build scripts/build.sh -DCS_BUILD_TESTS=ON -DCS_WERROR=ON
echo "== tests (Release)"
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 900

if [ "${SANITIZE:-1}" != "0" ]; then
  elapsed=$(( $(date +%s) - start ))
  if [ "$elapsed" -lt "${SANITIZE_BUDGET_S:-1800}" ]; then
    echo "== build (ASan+UBSan)"
    BUILD_DIR=build-asan BUILD_TYPE=RelWithDebInfo scripts/build.sh -DCS_BUILD_TESTS=ON \
      -DCS_SANITIZE=ON -DCS_BUILD_BENCH=OFF
    echo "== tests (ASan+UBSan)"
    # Open MPI's own allocations are reported as leaks; leaks are not what this pass is for.
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --test-dir build-asan --output-on-failure -j "$(nproc)" --timeout 1800 -LE slow
  else
    echo "== sanitizer pass skipped: ${elapsed}s already spent"
  fi
fi
echo "== all tests passed in $(( $(date +%s) - start ))s"
