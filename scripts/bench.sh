#!/usr/bin/env bash
# Macro benchmark: how fast the platform simulates Gemma 3n E4B decode in
# timing mode, per context (1K, 8K, 32K) and KV format (FP16, INT4, rotated
# 3-bit), the decode program as its AArch64 ELF against host code, a whole
# 1K-token prefill, the main job's decode and prefill tables, and the peak
# RSS as the decode goes on. Figures come from each run's speed.json (wall
# time of the simulation itself, without writing outputs; peak RSS from
# getrusage). Ends with the targets of docs/results/performance.md, each
# with its measured figure and ratio.
#
#   scripts/bench.sh                 build (Release) if needed, then measure
#   scripts/bench.sh --exe PATH      measure another pccx-vp binary
#   scripts/bench.sh --pgo           build with profile-guided optimisation, as
#                                    scripts/build.sh fast does (training runs
#                                    included: about twice the build)
#   scripts/bench.sh --before PATH   also measure an earlier pccx-vp binary in
#                                    the same run (each repeat runs both, one
#                                    after the other) and print the speedups
#   scripts/bench.sh --before-rev REV  the same with the pccx-vp of git
#                                    revision REV, built (Release) in a
#                                    temporary worktree first
#   scripts/bench.sh --no-table      skip the main-job decode and prefill tables
#   scripts/bench.sh --no-prefill    skip the 1K-prompt prefill (about 2 min)
#   scripts/bench.sh --micro         also run the Google Benchmark programs
#   scripts/bench.sh --repeat N      runs per cell, the fastest kept (3): a
#                                    shared machine's wall times scatter; the
#                                    spread (slowest / fastest) is printed
#   scripts/bench.sh --elf PATH      the decode program's AArch64 ELF for the
#                                    firmware-CPU rows (default: the build's
#                                    firmware/aarch64/programs/gemma_decode.elf)
#
# Targets: sim/wall >= 3.0 for the 32K token (FP16, INT4, rotated); the ELF
# path at least half the host code's sim/wall; the main job at least twice
# as fast as the --before binary; peak RSS <= 256 MiB, not growing with the
# tokens decoded (at most 0.1 MiB a token between 16 and 64 tokens at 32K).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${PCCX_BUILD_DIR:-$root/build}"
exe=""
before=""
before_rev=""
elf=""
table=1
prefill=1
micro=0
pgo=0
repeat=3
while [ $# -gt 0 ]; do
  case "$1" in
    --exe|--repeat|--elf|--before|--before-rev)
      [ $# -ge 2 ] || { echo "bench.sh: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --exe) exe="$2"; shift 2 ;;
    --before) before="$2"; shift 2 ;;
    --before-rev) before_rev="$2"; shift 2 ;;
    --elf) elf="$2"; shift 2 ;;
    --no-table) table=0; shift ;;
    --no-prefill) prefill=0; shift ;;
    --micro) micro=1; shift ;;
    --pgo) pgo=1; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    *) echo "usage: scripts/bench.sh [--exe PATH] [--before PATH | --before-rev REV] [--elf PATH]" \
            "[--no-table] [--no-prefill] [--micro] [--pgo] [--repeat N]" >&2
       exit 2 ;;
  esac
done

case "$repeat" in
  ''|*[!0-9]*|0) echo "bench.sh: --repeat needs a positive whole number, not '$repeat'" >&2; exit 2 ;;
esac
if [ -n "$before" ] && [ -n "$before_rev" ]; then
  echo "bench.sh: --before and --before-rev name the same binary: give one" >&2
  exit 2
fi
if [ -n "$exe" ] && [ "$pgo" = 1 ]; then
  echo "bench.sh: --pgo builds the binary it measures; --exe names one already built: give one" >&2
  exit 2
fi
if [ -n "$before_rev" ] &&
  ! git -C "$root" rev-parse --verify --quiet "$before_rev^{commit}" >/dev/null; then
  echo "bench.sh: --before-rev $before_rev is not a commit of $root" >&2
  exit 2
fi

if [ -z "$exe" ]; then
  # shellcheck source=SCRIPTDIR/lib/install_missing.sh
  source "$root/scripts/lib/install_missing.sh"
  install_missing build-essential cmake pkg-config libsystemc-dev nlohmann-json3-dev \
    libboost-program-options-dev libbenchmark-dev libunicorn-dev gcc-aarch64-linux-gnu
  if [ "$pgo" = 1 ]; then
    # shellcheck source=SCRIPTDIR/lib/pgo_build.sh
    source "$root/scripts/lib/pgo_build.sh"
    pgo_build "$root" "$build" -DPCCX_BUILD_BENCH=ON >/dev/null
  else
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPCCX_BUILD_TESTS=OFF \
      -DPCCX_BUILD_BENCH=ON -DPCCX_PGO=OFF >/dev/null
  fi
  cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
  exe="$build/platform/app/pccx-vp"
fi
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
[ -x "$exe" ] || { echo "bench.sh: $exe is not an executable" >&2; exit 2; }
exe=$(absolute "$exe")
if [ -n "$before" ]; then
  [ -x "$before" ] || { echo "bench.sh: --before $before is not an executable" >&2; exit 2; }
  before=$(absolute "$before")
fi

work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/before-tree" >/dev/null 2>&1 || true
      rm -rf "$work"' EXIT

if [ -n "$before_rev" ]; then
  # The earlier revision's binary, built as the current one is.
  git -C "$root" worktree add --detach "$work/before-tree" "$before_rev" >/dev/null 2>&1 ||
    { echo "bench.sh: cannot check out $before_rev" >&2; exit 2; }
  echo "building $before_rev (Release) for --before-rev ..." >&2
  cmake -S "$work/before-tree" -B "$work/before-build" -DCMAKE_BUILD_TYPE=Release \
    -DPCCX_BUILD_TESTS=OFF >/dev/null
  cmake --build "$work/before-build" -j "$(nproc 2>/dev/null || echo 2)" --target pccx-vp >/dev/null
  before="$work/before-build/platform/app/pccx-vp"
fi

# A number from one of our own JSON files (one key per line, as written).
json_number() {
  sed -n "s/^ *\"$2\": \\([-0-9.e+]*\\),\\{0,1\\}\$/\\1/p" "$1" | head -n 1
}
# The binaries measured: "after" always, "before" with --before.
kinds=(after)
[ -n "$before" ] && kinds+=(before)
exe_of() { if [ "$1" = after ]; then echo "$exe"; else echo "$before"; fi; }

# run_best NAME ARGS...: runs `pccx-vp decode ARGS --out DIR` $repeat times
# with each binary (interleaved, so both see the same machine) and leaves the
# fastest run's folder in $work/NAME-KIND and its spread (slowest / fastest)
# in $work/NAME-KIND.spread.
run_best() {
  local name=$1 r kind out wall
  shift
  for kind in "${kinds[@]}"; do : >"$work/$name-$kind.walls"; done
  for r in $(seq "$repeat"); do
    for kind in "${kinds[@]}"; do
      out="$work/$name-$kind-$r"
      (cd "$root" && "$(exe_of "$kind")" decode "$@" --out "$out" >"$out.log" 2>&1) ||
        { cat "$out.log" >&2; exit 1; }
      wall=$(json_number "$out/speed.json" wall_time_s)
      echo "$wall $r" >>"$work/$name-$kind.walls"
    done
  done
  for kind in "${kinds[@]}"; do
    r=$(sort -g "$work/$name-$kind.walls" | head -n 1 | cut -d' ' -f2)
    rm -rf "$work/$name-$kind"
    mv "$work/$name-$kind-$r" "$work/$name-$kind"
    mv "$work/$name-$kind-$r.log" "$work/$name-$kind.log"
    sort -g "$work/$name-$kind.walls" |
      awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f\n", hi / lo }' >"$work/$name-$kind.spread"
  done
}
ratio_of() { json_number "$work/$1/speed.json" sim_per_wall; }

tokens=4
gemma=(--model configs/models/gemma3n-e4b.json)
timing=(--set simulation.mode=timing)
# shellcheck source=SCRIPTDIR/lib/kv_formats.sh
source "$root/scripts/lib/kv_formats.sh"

echo "pccx-vp macro benchmark: $(nproc 2>/dev/null || echo '?') cores, $(uname -m)," \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
echo "binary: $exe"
if [ "$pgo" = 1 ]; then
  echo "build: link-time and profile-guided optimisation (scripts/build.sh fast)"
fi
[ -n "$before" ] && echo "before: $before"
echo "Gemma 3n E4B decode, timing mode, $tokens tokens per run, default platform," \
  "fastest of $repeat runs (spread: slowest / fastest)"
echo
if [ -n "$before" ]; then
  printf '| %-7s | %-4s | %12s | %12s | %9s | %6s | %10s | %7s | %10s | %9s |\n' \
    context KV "sim ms/token" "wall s/token" "sim/wall" spread "before" spread speedup "RSS MiB"
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' --------- ------ -------------- -------------- \
    ----------- -------- ------------ --------- ------------ -----------
else
  printf '| %-7s | %-4s | %12s | %12s | %9s | %6s | %10s | %12s | %9s |\n' \
    context KV "sim ms/token" "wall s/token" "sim/wall" spread "DDR tx" "DDR tx/s" "RSS MiB"
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' --------- ------ -------------- -------------- \
    ----------- -------- ------------ -------------- -----------
fi
for kv in fp16 int4 rot3; do
  for ctx in 1024 8192 32768; do
    # shellcheck disable=SC2086
    run_best "$kv-$ctx" "${gemma[@]}" --context "$ctx" --tokens "$tokens" "${timing[@]}" ${kv_formats[$kv]}
    s="$work/$kv-$ctx-after/speed.json"
    mean=$(sed -n 's/^ *mean of the [0-9]* tokens: \([0-9.]*\) ms\/token.*/\1/p' "$work/$kv-$ctx-after.log")
    if [ -n "$before" ]; then
      awk -v ctx="$ctx" -v kv="$kv" -v mean="$mean" -v tokens="$tokens" \
        -v wall="$(json_number "$s" wall_time_s)" -v ratio="$(ratio_of "$kv-$ctx-after")" \
        -v spread="$(cat "$work/$kv-$ctx-after.spread")" -v b="$(ratio_of "$kv-$ctx-before")" \
        -v bspread="$(cat "$work/$kv-$ctx-before.spread")" \
        -v rss="$(json_number "$s" peak_rss_mib)" 'BEGIN {
          printf "| %-7s | %-4s | %12.3f | %12.3f | %9.2f | %6.2f | %10.2f | %7.2f | %9.2fx | %9.1f |\n",
                 ctx, kv, mean, wall / tokens, ratio, spread, b, bspread, ratio / b, rss }'
    else
      awk -v ctx="$ctx" -v kv="$kv" -v mean="$mean" -v tokens="$tokens" \
        -v wall="$(json_number "$s" wall_time_s)" -v ratio="$(ratio_of "$kv-$ctx-after")" \
        -v spread="$(cat "$work/$kv-$ctx-after.spread")" \
        -v tx="$(json_number "$s" ddr_transactions)" \
        -v txs="$(json_number "$s" ddr_transactions_per_wall_s)" \
        -v rss="$(json_number "$s" peak_rss_mib)" 'BEGIN {
          printf "| %-7s | %-4s | %12.3f | %12.3f | %9.2f | %6.2f | %10d | %12.0f | %9.1f |\n",
                 ctx, kv, mean, wall / tokens, ratio, spread, tx, txs, rss }'
    fi
  done
done

# The firmware CPU: the same decode from the decode program's AArch64 ELF on
# the instruction-set simulator, against host code, in this run.
[ -n "$elf" ] || elf="$(dirname "$exe")/../../firmware/aarch64/programs/gemma_decode.elf"
elf_ratio=""
if [ -f "$elf" ]; then
  echo
  echo "Firmware CPU: the decode program as host code and as its AArch64 ELF (FP16 KV)"
  echo
  printf '| %-7s | %-11s | %12s | %9s | %6s | %14s | %14s |\n' \
    context CPU "wall s/token" "sim/wall" spread "CPU instr/token" "ISS instr/s"
  printf '|%s|%s|%s|%s|%s|%s|%s|\n' --------- ------------- -------------- ----------- \
    -------- ---------------- ----------------
  for ctx in 1024 32768; do
    # Host code is the FP16 row above; the ELF runs on the current binary only.
    saved=("${kinds[@]}")
    kinds=(after)
    run_best "elf-$ctx" "${gemma[@]}" --context "$ctx" --tokens "$tokens" "${timing[@]}" \
      --firmware "$elf"
    kinds=("${saved[@]}")
    for kind in host elf; do
      row="fp16-$ctx-after"
      [ "$kind" = elf ] && row="elf-$ctx-after"
      s="$work/$row"
      instr=$(json_number "$s/summary.json" instructions)
      awk -v ctx="$ctx" -v kind="$kind" -v tokens="$tokens" \
        -v wall="$(json_number "$s/speed.json" wall_time_s)" -v ratio="$(ratio_of "$row")" \
        -v spread="$(cat "$s.spread")" -v instr="${instr:-0}" 'BEGIN {
          name = kind == "elf" ? "AArch64 ELF" : "host code"
          per = instr / tokens
          ips = kind == "elf" ? sprintf("%14.0f", instr / wall) : sprintf("%14s", "-")
          printf "| %-7s | %-11s | %12.3f | %9.2f | %6.2f | %14s | %s |\n", ctx, name, wall / tokens,
                 ratio, spread, kind == "elf" ? sprintf("%.0f", per) : "-", ips }'
    done
  done
  elf_ratio=$(awk -v e="$(ratio_of elf-32768-after)" -v h="$(ratio_of fp16-32768-after)" \
    'BEGIN { printf "%.2f", e / h }')
  echo
  echo "(ISS instr/s: the ELF's instructions over the whole run's wall time, NPU and DDR"
  echo " models included)"
fi

# Peak RSS as the decode goes on: the 32K FP16 decode of 16 tokens against
# 64 (one run each: memory does not scatter). The DDR bandwidth series stops
# growing at its window limit (coarsened beyond), about 14 tokens in.
rss_of() {
  (cd "$root" && "$exe" decode "${gemma[@]}" --context 32768 --tokens "$1" "${timing[@]}" \
    --out "$work/rss-$1" >"$work/rss-$1.log" 2>&1) || { cat "$work/rss-$1.log" >&2; exit 1; }
  json_number "$work/rss-$1/speed.json" peak_rss_mib
}
rss16=$(rss_of 16)
rss64=$(rss_of 64)
rss_growth=$(awk -v a="$rss16" -v b="$rss64" 'BEGIN { printf "%.3f", (b - a) / 48 }')
rss_max=$(for f in "$work"/*-after/speed.json "$work"/rss-*/speed.json; do
  json_number "$f" peak_rss_mib; done | sort -g | tail -n 1)
echo
awk -v a="$rss16" -v b="$rss64" -v g="$rss_growth" 'BEGIN {
  printf "Peak RSS, 32K FP16 decode: %.1f MiB after 16 tokens, %.1f MiB after 64 (%s MiB a token)\n",
         a, b, g }'

if [ "$prefill" = 1 ]; then
  echo
  for kind in "${kinds[@]}"; do
    (cd "$root" && "$(exe_of "$kind")" decode "${gemma[@]}" --context 0 --prompt-tokens 1024 \
      --tokens 0 "${timing[@]}" --out "$work/prefill-$kind" >"$work/log" 2>&1) ||
      { cat "$work/log" >&2; exit 1; }
    ttft=$(sed -n 's/.*time to first token \([0-9.]*\) ms.*/\1/p' "$work/log")
    chunk=$(sed -n 's/.*prompt tokens in chunks of \([0-9]*\),.*/\1/p' "$work/log")
    wall=$(json_number "$work/prefill-$kind/speed.json" wall_time_s)
    rss=$(json_number "$work/prefill-$kind/speed.json" peak_rss_mib)
    awk -v k="$kind" -v t="$ttft" -v w="$wall" -v c="$chunk" -v rss="$rss" 'BEGIN {
      printf "1K-prompt prefill (%s; Gemma 3n E4B, FP16 KV, chunks of %d, every chunk simulated): ", k, c
      printf "TTFT %.1f s simulated in %.1f s wall, sim/wall %.2f, peak RSS %.1f MiB\n",
             t / 1e3, w, t / 1e3 / w, rss }'
  done
fi

declare -A table_s=()
if [ "$table" = 1 ]; then
  echo
  for kind in "${kinds[@]}"; do
    start=$(date +%s.%N)
    (cd "$root" && "$(exe_of "$kind")" decode-table --sweep configs/sweeps/decode-table.json \
      --out "$work/table-$kind" >"$work/log" 2>&1) || { cat "$work/log" >&2; exit 1; }
    end=$(date +%s.%N)
    table_s[$kind]=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
    echo "main-job decode and prefill tables ($kind): ${table_s[$kind]} s wall," \
      "prefill_table.csv $(sha256sum "$work/table-$kind/prefill_table.csv" | cut -c1-8)," \
      "decode_table.csv $(sha256sum "$work/table-$kind/decode_table.csv" | cut -c1-8)"
  done
  if [ -n "$before" ]; then
    # A change that only makes the platform faster leaves these tables as
    # they were, to the byte.
    if cmp -s "$work/table-before/decode_table.csv" "$work/table-after/decode_table.csv" &&
      cmp -s "$work/table-before/prefill_table.csv" "$work/table-after/prefill_table.csv"; then
      echo "main-job tables: identical for both binaries"
    else
      echo "main-job tables: the two binaries' tables differ (the change moved simulated results)"
    fi
  fi
fi

# The targets, each with what was measured here and measured / target (a
# ratio of at least 1 meets it).
echo
echo "Targets"
echo
printf '| %-52s | %10s | %9s | %6s | %-3s |\n' target measured target ratio met
printf '|%s|%s|%s|%s|%s|\n' ------------------------------------------------------ \
  ------------ ----------- -------- -----
target_row() {  # NAME MEASURED TARGET DIRECTION(ge|le)
  awk -v n="$1" -v m="$2" -v t="$3" -v d="$4" 'BEGIN {
    if (d == "ge") r = m / t
    else if (m > 0) r = t / m
    else r = -1
    if (r < 0) shown = sprintf("%6s", "inf")
    else shown = sprintf("%6.2f", r)
    met = (r < 0 || r >= 1) ? "yes" : "no"
    printf "| %-52s | %10s | %9s | %s | %-3s |\n", n, m, t, shown, met }'
}
for kv in fp16 int4 rot3; do
  target_row "sim/wall, 32K-context $kv decode token (>=)" "$(awk -v r="$(ratio_of "$kv-32768-after")" \
    'BEGIN { printf "%.2f", r }')" 3.0 ge
done
[ -n "$elf_ratio" ] && target_row "sim/wall, AArch64 ELF / host code at 32K (>=)" "$elf_ratio" 0.5 ge
if [ "$table" = 1 ] && [ -n "$before" ]; then
  target_row "main job, speedup over --before (>=)" \
    "$(awk -v b="${table_s[before]}" -v a="${table_s[after]}" 'BEGIN { printf "%.2f", b / a }')" 2.0 ge
fi
target_row "peak RSS MiB, any row (<=)" "$(printf "%.1f" "$rss_max")" 256 le
target_row "peak RSS growth MiB/token, 16 to 64 tokens (<=)" "$rss_growth" 0.1 le

if [ "$micro" = 1 ]; then
  for b in pccx_bench pccx_bench_ddr pccx_bench_gemv pccx_bench_plan; do
    bin="$(dirname "$exe")/../../tests/bench/$b"
    [ -x "$bin" ] || { echo "bench.sh: $bin not built (PCCX_BUILD_BENCH=ON)" >&2; exit 2; }
    echo
    "$bin"
  done
fi
