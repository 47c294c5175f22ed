# shellcheck shell=bash
# Sourced by scripts/bench.sh and scripts/lib/pgo_build.sh (not run on its
# own). kv_formats: the `pccx-vp decode` settings of each KV format the
# benchmarks and the training runs use, as in configs/sweeps/decode-table.json.
# shellcheck disable=SC2034  # used by the scripts that source this
declare -A kv_formats=(
  [fp16]=""
  [int8]="--set npu.kv.key.kind=int8 --set npu.kv.key.group=256 --set npu.kv.value.kind=int8 --set npu.kv.value.group=256"
  [int4]="--set npu.kv.key.kind=int4 --set npu.kv.key.group=0 --set npu.kv.value.kind=int4 --set npu.kv.value.group=32"
  [rot3]="--set npu.kv.key.kind=rotated --set npu.kv.key.bits=3 --set npu.kv.key.group=0 --set npu.kv.value.kind=rotated --set npu.kv.value.bits=3 --set npu.kv.value.group=0"
)
