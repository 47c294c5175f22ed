#!/usr/bin/env bash
# pccx-vp build driver: installs missing Debian packages, configures,
# builds, then runs either the main job or the whole test suite.
#   scripts/build.sh run    main job: the decode table (writes into out/main)
#   scripts/build.sh fast   the same, built with profile-guided optimisation
#                           (training runs included: about twice the build)
#   scripts/build.sh test   every test
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${PCCX_BUILD_DIR:-$root/build}"
jobs=$(nproc 2>/dev/null || echo 2)
mode="${1:-}"

packages=(build-essential cmake pkg-config libsystemc-dev nlohmann-json3-dev
          libboost-program-options-dev libgtest-dev libbenchmark-dev
          libunicorn-dev   # the AArch64 instruction-set simulator
          libjs-dygraphs)  # the charts of the HTML reports, inlined into each report
if [ "$mode" = test ]; then
  # The firmware programs as AArch64 ELFs, the tests that run them, and the
  # debugger the GDB server's test drives, and the browser the reports'
  # test opens them in.
  packages+=(gcc-aarch64-linux-gnu gdb-multiarch chromium)
fi

# shellcheck source=SCRIPTDIR/lib/install_missing.sh
source "$root/scripts/lib/install_missing.sh"
# shellcheck source=SCRIPTDIR/lib/pgo_build.sh
source "$root/scripts/lib/pgo_build.sh"

configure_and_build() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$build" -j "$jobs"
}

run_main_job() {
  exe="$(cd "$build" && pwd)/platform/app/pccx-vp"
  # From the repository root, so the tables name the sweep and models by
  # their paths in the repository.
  (cd "$root" && "$exe" decode-table --sweep configs/sweeps/decode-table.json --out out/main)
  echo "pccx-vp: outputs in out/main (decode_table.md, decode_table.csv, decode_table.json, cells/)"
}

case "$mode" in
  run)
    install_missing "${packages[@]}"
    configure_and_build -DPCCX_BUILD_TESTS=OFF -DPCCX_PGO=OFF
    run_main_job
    ;;
  fast)
    install_missing "${packages[@]}"
    pgo_build "$root" "$build"
    run_main_job
    ;;
  test)
    install_missing "${packages[@]}"
    configure_and_build -DPCCX_BUILD_TESTS=ON -DPCCX_PGO=OFF
    ctest --test-dir "$build" -j "$jobs" --output-on-failure
    ;;
  *)
    echo "usage: scripts/build.sh run|fast|test" >&2
    exit 2
    ;;
esac
