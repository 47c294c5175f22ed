#!/usr/bin/env bash
# Runs the libFuzzer harnesses (docs/development/fuzzing.md).
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
# SECONDS per harness (default 60); HARNESS among memh_reader, config_loader,
# instruction_words, dma_descriptors and boundary_property (default: all).
# boundary_property is the property test of the host's checks
# (tests/app/test_boundary_property.cpp), run from the regular build in
# ${PCCX_BUILD_DIR:-build} (built by scripts/build.sh test). The others build with clang in
# ${PCCX_FUZZ_BUILD_DIR:-build-fuzz}. Each harness works on a scratch copy of
# its seeds (tests/fuzz/seeds/<harness>), so the repository's corpus never
# grows by itself. A crash, timeout, leak or out-of-memory input is copied to
# tests/fuzz/seeds/<harness>/regress-<sha1> and the script exits nonzero.
# Environment: PCCX_FUZZ_TIMEOUT (seconds per input, default 20),
# PCCX_FUZZ_RSS_MB (default 2048), PCCX_FUZZ_JOBS (build jobs, default nproc).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${PCCX_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${PCCX_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
per_input="${PCCX_FUZZ_TIMEOUT:-20}"
rss_mb="${PCCX_FUZZ_RSS_MB:-2048}"
all=(memh_reader config_loader instruction_words dma_descriptors boundary_property)

seconds="${1:-60}"
[ $# -gt 0 ] && shift
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")
for h in "${harnesses[@]}"; do
  case " ${all[*]} " in
    *" $h "*) ;;
    *) echo "fuzz.sh: unknown harness '$h' (one of: ${all[*]})" >&2; exit 2 ;;
  esac
done
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS] [HARNESS...]" >&2
  exit 2
fi

packages=(clang cmake pkg-config libsystemc-dev nlohmann-json3-dev
          libboost-program-options-dev libgtest-dev libunicorn-dev)
# shellcheck source=SCRIPTDIR/lib/install_missing.sh
source "$root/scripts/lib/install_missing.sh"
install_missing "${packages[@]}"

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# Only the harnesses and what they link: no test suites, no benchmarks.
# Warnings stay warnings: -Werror is for the gcc build that CI runs.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DPCCX_FUZZ=ON -DPCCX_WERROR=OFF \
  -DPCCX_BUILD_BENCH=OFF -DPCCX_TEST_SUITES= "${launcher[@]}" >/dev/null
targets=()
libfuzzer=()
for h in "${harnesses[@]}"; do
  [ "$h" = boundary_property ] && continue
  targets+=(--target "fuzz_$h")
  libfuzzer+=("$h")
done
[ ${#targets[@]} -gt 0 ] && cmake --build "$build" -j "$jobs" "${targets[@]}"

# SystemC runs every SC_THREAD on its own coroutine stack and switches
# stacks without telling ASan. Fake stacks for use-after-return do not
# survive those switches, so that one check is off; everything else stays on.
# The kernel's own objects (processes, events, the simcontext) live until exit
# by design; the suppressions name only libsystemc.
export ASAN_OPTIONS="detect_stack_use_after_return=0:detect_leaks=1:abort_on_error=1:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rows=()
failed=()
for h in "${libfuzzer[@]}"; do
  work="$scratch/$h"
  mkdir -p "$work/corpus" "$work/artifacts"
  cp "$root/tests/fuzz/seeds/$h/"* "$work/corpus/"
  log="$work/log"
  echo "fuzz.sh: $h for ${seconds}s"
  extra=()
  asan="$ASAN_OPTIONS"
  case "$h" in
    # Once SystemC has run its coroutines, LeakSanitizer reports libFuzzer's
    # own driver allocations (its argument and corpus lists, referenced from
    # main's stack) as leaked, and every per-input leak check reruns the
    # input: the reports are false and the run crawls. Leaks are checked in
    # the harnesses that do not start the kernel.
    instruction_words | dma_descriptors)
      extra+=(-detect_leaks=0)
      asan="$asan:detect_leaks=0"
      ;;
  esac
  rc=0
  ASAN_OPTIONS="$asan" "$build/tests/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout="$per_input" \
    -rss_limit_mb="$rss_mb" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    "${extra[@]}" "$work/corpus" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
  result=ok
  for a in "$work/artifacts/"*; do
    [ -f "$a" ] || continue
    sha=$(sha1sum "$a" | cut -c1-40)
    dest="$root/tests/fuzz/seeds/$h/regress-$sha"
    cp "$a" "$dest"
    kind=$(basename "$a" | cut -d- -f1)
    echo "fuzz.sh: $h: $kind input saved as ${dest#"$root"/}" >&2
    failed+=("${dest#"$root"/}")
    result="$kind"
  done
  if [ "$rc" -ne 0 ] && [ "$result" = ok ]; then
    result="exit-$rc"
    failed+=("$h (exit $rc, no artifact)")
  fi
  if [ "$result" != ok ]; then
    echo "---- last lines of the $h log ----" >&2
    tail -n 40 "$log" >&2
  fi
  rows+=("$(printf '%-18s %8s %12s %9s  %s' "$h" "$seconds" "${execs:-?}" "${rate:-?}" "$result")")
done

# The property test: every generated model and setting is refused (exit 2)
# or decodes (exit 0); its own line gives cases, rate and distinct refusals.
if [[ " ${harnesses[*]} " == *" boundary_property "* ]]; then
  regular="${PCCX_BUILD_DIR:-$root/build}"
  echo "fuzz.sh: boundary_property for ${seconds}s"
  rc=0
  out=$(PCCX_PROPERTY_SECONDS="$seconds" "$regular/tests/app/e2e_tests" \
          --gtest_filter='BoundaryProperty.*' 2>&1) || rc=$?
  echo "$out" | grep -E '^boundary property:|^  refusal:' || true
  line=$(echo "$out" | sed -n 's/^boundary property: \([0-9]*\) cases in .*(\([0-9.]*\) per second).*/\1 \2/p')
  result=ok
  if [ "$rc" -ne 0 ]; then
    result=failed
    failed+=("boundary_property (see its reproducer above)")
    echo "$out" | tail -n 40 >&2
  fi
  rows+=("$(printf '%-18s %8s %12s %9s  %s' boundary_property "$seconds" "${line%% *}" "${line##* }" "$result")")
fi

printf '\n%-18s %8s %12s %9s  %s\n' harness seconds executions exec/s result
for r in "${rows[@]}"; do echo "$r"; done
if [ ${#failed[@]} -gt 0 ]; then
  echo >&2
  for f in "${failed[@]}"; do echo "fuzz.sh: finding: $f" >&2; done
  exit 1
fi
