#!/usr/bin/env bash
# pccx-vp sanitizer run (docs/development/sanitizers.md): installs missing Debian
# packages, builds everything with AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer (PCCX_SANITIZE=address;undefined), runs every
# test suite, then prints every sanitizer report any process wrote and fails
# if there is one.
#   scripts/sanitize.sh
# env: PCCX_SANITIZE_BUILD_DIR  build folder (default <repo>/build-asan)
#      PCCX_JOBS                parallel build and test jobs (default nproc)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${PCCX_SANITIZE_BUILD_DIR:-$root/build-asan}"
jobs="${PCCX_JOBS:-$(nproc 2>/dev/null || echo 2)}"
supp="$root/scripts/sanitize"

packages=(build-essential cmake pkg-config libsystemc-dev nlohmann-json3-dev
          libboost-program-options-dev libgtest-dev libunicorn-dev
          gcc-aarch64-linux-gnu)  # the firmware cross-compile test

# shellcheck source=SCRIPTDIR/lib/install_missing.sh
source "$root/scripts/lib/install_missing.sh"

install_missing "${packages[@]}"

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DPCCX_SANITIZE=address;undefined" -DPCCX_BUILD_TESTS=ON -DPCCX_BUILD_BENCH=OFF \
  -UPCCX_TEST_SUITES "${launcher[@]}"
build=$(cd "$build" && pwd)

# Every process the build and the tests start (the test executables, the
# pccx-vp runs the end-to-end tests and the sweeps spawn, the test discovery
# during the build) inherits these. A report goes to a file in $reports
# (<tool>.<pid>), never only to a stream a test may capture and ignore, and
# ends the process with an abort, so its exit status shows it too.
reports="$build/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
# SystemC runs each thread on its own coroutine stack: ASan cannot follow
# those stack switches for use-after-return bookkeeping.
# LeakSanitizer is off unless PCCX_DETECT_LEAKS=1: a run that ends with a
# SystemC thread still parked (firmware stopped by a bus error, a unit in
# the middle of an instruction) never unwinds that coroutine stack, and
# LeakSanitizer does not scan coroutine stacks, so everything those frames
# still own is reported as leaked (docs/development/sanitizers.md).
leaks="${PCCX_DETECT_LEAKS:-0}"
export ASAN_OPTIONS="detect_leaks=$leaks:detect_stack_use_after_return=0:halt_on_error=1:\
abort_on_error=1:disable_coredump=1:check_initialization_order=1:strict_init_order=1:\
detect_odr_violation=2:strict_string_checks=1:log_path=$reports/asan:log_exe_name=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:\
log_path=$reports/ubsan:log_exe_name=1"
ulimit -c 0

# Prints every file in $reports and fails if one holds a finding. The one
# thing that is not a finding is ASan's notice that it ignores a no-return
# call (an exception thrown) on a stack it does not know: SystemC runs its
# threads on coroutine stacks it does not announce to ASan. The notice is
# printed too; a report following it would still count.
scan_reports() {
  local findings=0 notices=0 f
  for f in "$reports"/*; do
    [ -e "$f" ] || continue
    echo "==== sanitizer output: $f"
    cat "$f"
    if grep -v -e 'WARNING: ASan is ignoring requested __asan_handle_no_return' \
        -e '^False positive error reports may follow$' \
        -e '^For details see https://github.com/google/sanitizers/issues/189$' "$f" | grep -q .; then
      findings=$((findings + 1))
    else
      notices=$((notices + 1))
    fi
  done
  echo "pccx-vp: sanitizer output files: $findings with findings, $notices with the stack-switch notice only"
  [ "$findings" -eq 0 ]
}

t0=$(date +%s)
build_rc=0
cmake --build "$build" -j "$jobs" || build_rc=$?
t1=$(date +%s)
if [ "$build_rc" -ne 0 ]; then
  scan_reports || true
  echo "pccx-vp: sanitized build failed" >&2
  exit "$build_rc"
fi

test_rc=0
ctest --test-dir "$build" -j "$jobs" --output-on-failure || test_rc=$?
t2=$(date +%s)

report_rc=0
scan_reports || report_rc=1
echo "pccx-vp: sanitized build $((t1 - t0)) s, tests $((t2 - t1)) s"
if [ "$report_rc" -ne 0 ]; then
  echo "pccx-vp: sanitizer reports above (in $reports)" >&2
  exit 1
fi
if [ "$test_rc" -ne 0 ]; then
  echo "pccx-vp: tests failed under the sanitizers" >&2
  exit "$test_rc"
fi
echo "pccx-vp: every test passed under ASan and UBSan$([ "$leaks" = 1 ] && echo " and LSan"); no sanitizer reports"
