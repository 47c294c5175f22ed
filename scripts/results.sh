#!/usr/bin/env bash
# Results data (docs/results/data/README.md): runs every study whose figures
# the documentation quotes (the main-job decode table, the weight-port
# what-if, per-layer decodes, the example sweep, the KV accuracy run), copies
# their deterministic outputs into docs/results/data/, prints their sha256,
# then rewrites the pages' generated blocks from them
# (PCCX_UPDATE_DOCS=1 ctest -R ResultsDocs) and checks them once more.
#
#   scripts/results.sh                 pccx-vp from build/, then the pages
#   scripts/results.sh --exe PATH      another pccx-vp binary
#   scripts/results.sh --data-only     only the data; the pages are left alone
#
# env: PCCX_BUILD_DIR  the build folder with the tests (default <repo>/build)
#      PCCX_VP_EXE     the pccx-vp binary (as --exe)
#
# It builds nothing: build first (scripts/build.sh test, or
# cmake --build build). Runs from the repository root, so the outputs name
# the sweep and model files by their repository paths.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${PCCX_BUILD_DIR:-$root/build}"
exe="${PCCX_VP_EXE:-}"
docs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --exe)
      [ $# -ge 2 ] || { echo "results.sh: --exe needs a value" >&2; exit 2; }
      exe="$2"; shift 2 ;;
    --data-only) docs=0; shift ;;
    *) echo "usage: scripts/results.sh [--exe PATH] [--data-only]" >&2; exit 2 ;;
  esac
done

[ -n "$exe" ] || exe="$build/platform/app/pccx-vp"
[ -x "$exe" ] || {
  echo "results.sh: $exe is not an executable; build first (scripts/build.sh test) or give --exe PATH" >&2
  exit 2
}
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")

data="$root/docs/results/data"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

run() {
  echo "+ pccx-vp ${*:2}" >&2
  "$@"
}

# 1. The main job: the decode and prefill tables of docs/results/results.md.
run "$exe" decode-table --sweep configs/sweeps/decode-table.json --out "$work/main" >/dev/null

# 2. The what-if of results.md: the GEMV's weights over all four HP ports.
run "$exe" decode-table --sweep configs/sweeps/decode-weight-ports.json \
  --out "$work/weight-ports" >/dev/null

# 2b. The prefill what-ifs of results.md: the L2 doubled (a longer chunk,
#     simulated), and the plan's bound at other chunk lengths and half the
#     GEMM's activation buffer.
run "$exe" decode-table --sweep configs/sweeps/prefill-l2.json --out "$work/prefill-l2" >/dev/null
mkdir -p "$work/prefill-plan"
for c in 1 15 64 191; do
  run "$exe" prefill-plan --model configs/models/gemma3n-e4b.json --prompt-tokens 1024 \
    --chunk "$c" --json "$work/prefill-plan/gemma3n-e4b-1024-chunk$c.json" >/dev/null
done
run "$exe" prefill-plan --model configs/models/gemma3n-e4b.json --prompt-tokens 1024 \
  --chunk 95 --set npu.gemm.act_buffer_bytes=524288 \
  --json "$work/prefill-plan/gemma3n-e4b-1024-chunk95-act512k.json" >/dev/null

# 3. Per-layer decodes of one Gemma 3n E4B token (docs/models/decode.md,
#    results.md "Where the time goes"): L = 1,024 on the default ports, and
#    L = 32,768 with the weights on HP0..HP3 for three KV formats.
mkdir -p "$work/per-layer"
per_layer() {
  local name=$1
  shift
  run "$exe" decode --model configs/models/gemma3n-e4b.json --tokens 1 --per-layer \
    --set simulation.mode=timing --json "$work/per-layer/$name.json" "$@" >/dev/null
}
fp16=(--set npu.kv.key.kind=fp16 --set npu.kv.key.group=0
      --set npu.kv.value.kind=fp16 --set npu.kv.value.group=0)
int4=(--set npu.kv.key.kind=int4 --set npu.kv.key.group=0
      --set npu.kv.value.kind=int4 --set npu.kv.value.group=32)
rot3=(--set npu.kv.key.kind=rotated --set npu.kv.key.bits=3 --set npu.kv.key.group=0
      --set npu.kv.value.kind=rotated --set npu.kv.value.bits=3 --set npu.kv.value.group=0)
four_ports=(--set 'npu.gemv.weight_fifos=[0,1,2,3]')
per_layer gemma3n-e4b-1024 --context 1024
per_layer gemma3n-e4b-32768-hp0123-fp16 --context 32768 "${four_ports[@]}" "${fp16[@]}"
per_layer gemma3n-e4b-32768-hp0123-int4 --context 32768 "${four_ports[@]}" "${int4[@]}"
per_layer gemma3n-e4b-32768-hp0123-rot3 --context 32768 "${four_ports[@]}" "${rot3[@]}"

# 4. The example sweep of docs/guides/sweeps.md.
run "$exe" sweep --sweep ddr.data_rate_mtps=2400,3200 \
  --sweep 'npu.gemv.weight_fifos=[2,3],[0,1,2,3]' --out "$work/sweep" -- \
  decode --model configs/models/gemma3n-e4b.json --context 1024 --tokens 1

# 5. The accuracy run of docs/reference/kv-formats.md (the defaults).
run "$exe" kv-accuracy --out "$work/kv-accuracy" >/dev/null

# Every file that goes into docs/results/data/, as "source destination".
files=(
  "main/decode_table.csv decode_table.csv"
  "main/decode_table.json decode_table.json"
  "main/decode_table.md decode_table.md"
  "main/prefill_table.csv prefill_table.csv"
  "main/prefill_table.json prefill_table.json"
  "main/prefill_table.md prefill_table.md"
  "weight-ports/decode_table.csv weight-ports/decode_table.csv"
  "weight-ports/decode_table.json weight-ports/decode_table.json"
  "weight-ports/decode_table.md weight-ports/decode_table.md"
  "prefill-l2/prefill_table.json prefill-l2/prefill_table.json"
  "prefill-l2/prefill_table.md prefill-l2/prefill_table.md"
  "prefill-plan/gemma3n-e4b-1024-chunk1.json prefill-plan/gemma3n-e4b-1024-chunk1.json"
  "prefill-plan/gemma3n-e4b-1024-chunk15.json prefill-plan/gemma3n-e4b-1024-chunk15.json"
  "prefill-plan/gemma3n-e4b-1024-chunk64.json prefill-plan/gemma3n-e4b-1024-chunk64.json"
  "prefill-plan/gemma3n-e4b-1024-chunk191.json prefill-plan/gemma3n-e4b-1024-chunk191.json"
  "prefill-plan/gemma3n-e4b-1024-chunk95-act512k.json prefill-plan/gemma3n-e4b-1024-chunk95-act512k.json"
  "per-layer/gemma3n-e4b-1024.json per-layer/gemma3n-e4b-1024.json"
  "per-layer/gemma3n-e4b-32768-hp0123-fp16.json per-layer/gemma3n-e4b-32768-hp0123-fp16.json"
  "per-layer/gemma3n-e4b-32768-hp0123-int4.json per-layer/gemma3n-e4b-32768-hp0123-int4.json"
  "per-layer/gemma3n-e4b-32768-hp0123-rot3.json per-layer/gemma3n-e4b-32768-hp0123-rot3.json"
  "sweep/sweep.csv sweep-ddr-weight-fifos/sweep.csv"
  "sweep/sweep.md sweep-ddr-weight-fifos/sweep.md"
  "kv-accuracy/kv_accuracy.md kv-accuracy/kv_accuracy.md"
  "kv-accuracy/kv_accuracy.json kv-accuracy/kv_accuracy.json"
  "kv-accuracy/kv_formats.csv kv-accuracy/kv_formats.csv"
  "kv-accuracy/kv_rotated.csv kv-accuracy/kv_rotated.csv"
  "kv-accuracy/kv_windows.csv kv-accuracy/kv_windows.csv"
)

# All outputs exist before anything is copied, so a failed run leaves the
# checked-in data as it was.
for f in "${files[@]}"; do
  src=${f%% *}
  [ -f "$work/$src" ] || { echo "results.sh: $src was not written" >&2; exit 1; }
done
dests=()
for f in "${files[@]}"; do
  src=${f%% *}
  dst=${f#* }
  mkdir -p "$(dirname "$data/$dst")"
  cp "$work/$src" "$data/$dst"
  dests+=("$dst")
done

echo "results.sh: docs/results/data/:"
(cd "$data" && sha256sum "${dests[@]}")

if [ "$docs" = 1 ]; then
  # The generated blocks of the pages, rendered from the data just copied;
  # then the same tests again without rewriting, which must pass.
  PCCX_UPDATE_DOCS=1 ctest --test-dir "$build" -R '^ResultsDocs\.' --no-tests=error \
    --output-on-failure
  ctest --test-dir "$build" -R '^ResultsDocs\.' --no-tests=error --output-on-failure
fi
git -C "$root" status --short -- docs
