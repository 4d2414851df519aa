#!/usr/bin/env bash
# Installs, from Debian packages, whatever clusterscope needs that is missing.
# chromium, chromium-driver and python3-selenium drive the browser tests (tests/report/browser_render).
# python3-openpyxl and unzip check the .xlsx workbooks module_statistic writes (tests/recipes).
# clang and libclang-rt-14-dev (libFuzzer) build the fuzz harnesses (scripts/fuzz.sh).
# Idempotent: a second run installs nothing and takes well under a second.
set -euo pipefail

PACKAGES=(
  g++ cmake make pkg-config
  openmpi-bin libopenmpi-dev
  libhdf5-openmpi-dev hdf5-tools
  libeigen3-dev libboost-program-options-dev
  libsimdjson-dev zlib1g-dev
  libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-h5py python3-numpy python3-openpyxl unzip
  chromium chromium-driver python3-selenium
  time bc
  clang libclang-rt-14-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done" >&2
