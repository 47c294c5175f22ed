#!/usr/bin/env bash
# Macro benchmark: how fast the platform simulates Gemma 3n E4B decode in
# timing mode, per context (1K, 8K, 32K) and KV format (FP16, INT4), and how
# long the whole main-job decode table takes. Prints one table; figures come
# from each run's speed.json (wall time of the simulation itself, without
# writing outputs; peak RSS from getrusage).
#
#   scripts/bench.sh                 build (Release) if needed, then measure
#   scripts/bench.sh --exe PATH      measure another pccx-vp binary
#   scripts/bench.sh --no-table      skip the main-job decode table
#   scripts/bench.sh --no-prefill    skip the 1K-prompt prefill (about 2 min)
#   scripts/bench.sh --micro         also run the Google Benchmark programs
#   scripts/bench.sh --repeat N      runs per cell, the fastest kept (3): a
#                                    shared machine's wall times scatter
#   scripts/bench.sh --elf PATH      the decode program's AArch64 ELF for the
#                                    firmware-CPU rows (default: the build's
#                                    firmware/aarch64/programs/gemma_decode.elf)
#
# Targets (docs/results/performance.md): sim/wall >= 1.0 for the 32K FP16 token,
# decode table (with its prefill table) within a few minutes, peak RSS <= 256 MiB.
# The prefill row: a whole 1,024-token Gemma 3n E4B prompt in the decode
# program's chunks (every chunk simulated, no sampling), its simulated time
# to first token against its wall time.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${PCCX_BUILD_DIR:-$root/build}"
exe=""
elf=""
table=1
prefill=1
micro=0
repeat=3
while [ $# -gt 0 ]; do
  case "$1" in
    --exe|--repeat|--elf) [ $# -ge 2 ] || { echo "bench.sh: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --exe) exe="$2"; shift 2 ;;
    --elf) elf="$2"; shift 2 ;;
    --no-table) table=0; shift ;;
    --no-prefill) prefill=0; shift ;;
    --micro) micro=1; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    *) echo "usage: scripts/bench.sh [--exe PATH] [--elf PATH] [--no-table] [--no-prefill] [--micro] [--repeat N]" >&2
       exit 2 ;;
  esac
done

case "$repeat" in
  ''|*[!0-9]*|0) echo "bench.sh: --repeat needs a positive whole number, not '$repeat'" >&2; exit 2 ;;
esac

if [ -z "$exe" ]; then
  # shellcheck source=SCRIPTDIR/lib/install_missing.sh
  source "$root/scripts/lib/install_missing.sh"
  install_missing build-essential cmake pkg-config libsystemc-dev nlohmann-json3-dev \
    libboost-program-options-dev libbenchmark-dev libunicorn-dev gcc-aarch64-linux-gnu
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPCCX_BUILD_TESTS=OFF \
    -DPCCX_BUILD_BENCH=ON >/dev/null
  cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
  exe="$build/platform/app/pccx-vp"
fi
[ -x "$exe" ] || { echo "bench.sh: $exe is not an executable" >&2; exit 2; }
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A number from one of our own JSON files (one key per line, as written).
json_number() {
  sed -n "s/^ *\"$2\": \\([-0-9.e+]*\\),\\{0,1\\}\$/\\1/p" "$1" | head -n 1
}

tokens=4
int4=(--set npu.kv.key.kind=int4 --set npu.kv.key.group=0
      --set npu.kv.value.kind=int4 --set npu.kv.value.group=32)

echo "pccx-vp macro benchmark: $(nproc 2>/dev/null || echo '?') cores, $(uname -m)," \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
echo "Gemma 3n E4B decode, timing mode, $tokens tokens per run, default platform," \
  "fastest of $repeat runs"
echo
printf '| %-7s | %-4s | %12s | %12s | %9s | %10s | %12s | %9s |\n' \
  context KV "sim ms/token" "wall s/token" "sim/wall" "DDR tx" "DDR tx/s" "RSS MiB"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' --------- ------ -------------- -------------- \
  ----------- ------------ -------------- -----------
for kv in fp16 int4; do
  for ctx in 1024 8192 32768; do
    extra=()
    [ "$kv" = int4 ] && extra=("${int4[@]}")
    s="" best=""
    for r in $(seq "$repeat"); do
      out="$work/$kv-$ctx-$r"
      (cd "$root" && "$exe" decode --model configs/models/gemma3n-e4b.json --context "$ctx" \
        --tokens "$tokens" --set simulation.mode=timing "${extra[@]}" --out "$out" \
        >"$work/log" 2>&1) || { cat "$work/log" >&2; exit 1; }
      mean=$(sed -n 's/^ *mean of the [0-9]* tokens: \([0-9.]*\) ms\/token.*/\1/p' "$work/log")
      wall=$(json_number "$out/speed.json" wall_time_s)
      if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
        best=$wall s="$out/speed.json"
      fi
    done
    awk -v ctx="$ctx" -v kv="$kv" -v mean="$mean" -v tokens="$tokens" \
      -v wall="$(json_number "$s" wall_time_s)" -v ratio="$(json_number "$s" sim_per_wall)" \
      -v tx="$(json_number "$s" ddr_transactions)" \
      -v txs="$(json_number "$s" ddr_transactions_per_wall_s)" \
      -v rss="$(json_number "$s" peak_rss_mib)" 'BEGIN {
        printf "| %-7s | %-4s | %12.3f | %12.3f | %9.2f | %10d | %12.0f | %9.1f |\n",
               ctx, kv, mean, wall / tokens, ratio, tx, txs, rss }'
  done
done

# The firmware CPU: the same decode from the decode program's AArch64 ELF on
# the instruction-set simulator, against host code, in this run.
[ -n "$elf" ] || elf="$(dirname "$exe")/../../firmware/aarch64/programs/gemma_decode.elf"
if [ -f "$elf" ]; then
  echo
  echo "Firmware CPU: the decode program as host code and as its AArch64 ELF (FP16 KV)"
  echo
  printf '| %-7s | %-11s | %12s | %9s | %14s | %14s |\n' \
    context CPU "wall s/token" "sim/wall" "CPU instr/token" "ISS instr/s"
  printf '|%s|%s|%s|%s|%s|%s|\n' --------- ------------- -------------- ----------- \
    ---------------- ----------------
  for ctx in 1024 32768; do
    for kind in host elf; do
      fw=()
      [ "$kind" = elf ] && fw=(--firmware "$elf")
      best="" s=""
      for r in $(seq "$repeat"); do
        out="$work/cpu-$kind-$ctx-$r"
        (cd "$root" && "$exe" decode --model configs/models/gemma3n-e4b.json --context "$ctx" \
          --tokens "$tokens" --set simulation.mode=timing "${fw[@]}" --out "$out" \
          >"$work/log" 2>&1) || { cat "$work/log" >&2; exit 1; }
        wall=$(json_number "$out/speed.json" wall_time_s)
        if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
          best=$wall s="$out"
        fi
      done
      instr=$(json_number "$s/summary.json" instructions)
      awk -v ctx="$ctx" -v kind="$kind" -v tokens="$tokens" -v wall="$best" \
        -v ratio="$(json_number "$s/speed.json" sim_per_wall)" -v instr="${instr:-0}" 'BEGIN {
          name = kind == "elf" ? "AArch64 ELF" : "host code"
          per = instr / tokens
          ips = kind == "elf" ? sprintf("%14.0f", instr / wall) : sprintf("%14s", "-")
          printf "| %-7s | %-11s | %12.3f | %9.2f | %14s | %s |\n", ctx, name, wall / tokens,
                 ratio, kind == "elf" ? sprintf("%.0f", per) : "-", ips }'
    done
  done
  echo
  echo "(ISS instr/s: the ELF's instructions over the whole run's wall time, NPU and DDR"
  echo " models included; the ELF path's sim/wall target is half the host code's or more)"
fi

if [ "$prefill" = 1 ]; then
  echo
  (cd "$root" && "$exe" decode --model configs/models/gemma3n-e4b.json --context 0 \
    --prompt-tokens 1024 --tokens 0 --set simulation.mode=timing --out "$work/prefill" \
    >"$work/log" 2>&1) || { cat "$work/log" >&2; exit 1; }
  ttft=$(sed -n 's/.*time to first token \([0-9.]*\) ms.*/\1/p' "$work/log")
  chunk=$(sed -n 's/.*prompt tokens in chunks of \([0-9]*\),.*/\1/p' "$work/log")
  wall=$(json_number "$work/prefill/speed.json" wall_time_s)
  rss=$(json_number "$work/prefill/speed.json" peak_rss_mib)
  awk -v t="$ttft" -v w="$wall" -v c="$chunk" -v rss="$rss" 'BEGIN {
    printf "1K-prompt prefill (Gemma 3n E4B, FP16 KV, chunks of %d, every chunk simulated): ", c
    printf "TTFT %.1f s simulated in %.1f s wall, sim/wall %.2f, peak RSS %.1f MiB\n",
           t / 1e3, w, t / 1e3 / w, rss }'
fi

if [ "$table" = 1 ]; then
  echo
  start=$(date +%s.%N)
  (cd "$root" && "$exe" decode-table --sweep configs/sweeps/decode-table.json \
    --out "$work/table" >"$work/log" 2>&1) || { cat "$work/log" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN {
    printf "main-job decode and prefill tables: %.1f s wall\n", e - s }'
fi

if [ "$micro" = 1 ]; then
  for b in pccx_bench pccx_bench_ddr pccx_bench_gemv pccx_bench_plan; do
    bin="$(dirname "$exe")/../../tests/bench/$b"
    [ -x "$bin" ] || { echo "bench.sh: $bin not built (PCCX_BUILD_BENCH=ON)" >&2; exit 2; }
    echo
    "$bin"
  done
fi
