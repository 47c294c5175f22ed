#!/usr/bin/env bash
# pccx-vp build driver: installs missing Debian packages, configures,
# builds, then runs either the main job or the whole test suite.
#   scripts/build.sh run    main job (writes into out/main)
#   scripts/build.sh test   every test
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${PCCX_BUILD_DIR:-$root/build}"
jobs=$(nproc 2>/dev/null || echo 2)
mode="${1:-}"

packages=(build-essential cmake pkg-config libsystemc-dev nlohmann-json3-dev
          libboost-program-options-dev libgtest-dev libbenchmark-dev)
if [ "$mode" = test ]; then
  packages+=(gcc-aarch64-linux-gnu)  # the firmware cross-compile test
fi

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "pccx-vp: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

configure_and_build() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$build" -j "$jobs"
}

case "$mode" in
  run)
    install_missing
    configure_and_build -DPCCX_BUILD_TESTS=OFF
    mkdir -p "$root/out/main"
    "$build/platform/app/pccx-vp" --config "$root/configs/kv260.json" \
      --out "$root/out/main" \
      --trace-instructions "$root/out/main/instructions.jsonl" \
      --trace-mmio "$root/out/main/mmio.jsonl"
    echo "pccx-vp: outputs in out/main (summary.json, instructions.jsonl, mmio.jsonl)"
    ;;
  test)
    install_missing
    configure_and_build -DPCCX_BUILD_TESTS=ON
    ctest --test-dir "$build" -j "$jobs" --output-on-failure
    ;;
  *)
    echo "usage: scripts/build.sh run|test" >&2
    exit 2
    ;;
esac
