#!/usr/bin/env bash
# The DDR model's figures in docs/models/memory-ddr.md: pccx-vp ddr-bench for
# each access pattern at each speed-bin preset (configs/ddr/), printed as a
# markdown table. "DRAM alone" rows open the path in front of the DRAM (a
# 4096-entry controller queue, one 32 GB/s port, 256 requests in flight) so
# the DRAM's own limits show; the last row is the default platform.
#
#   scripts/ddr-bench-table.sh               uses build/platform/app/pccx-vp
#   scripts/ddr-bench-table.sh --exe PATH
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exe="${PCCX_BUILD_DIR:-$root/build}/platform/app/pccx-vp"
if [ "${1:-}" = "--exe" ]; then
  [ $# -ge 2 ] || { echo "ddr-bench-table.sh: --exe needs a path" >&2; exit 2; }
  exe="$2"
fi
[ -x "$exe" ] || { echo "ddr-bench-table.sh: no pccx-vp at $exe (build first)" >&2; exit 2; }

alone=(--set ddr.controller.queue_entries=4096 --set ddr.hp_bytes_per_cycle=128)
one="port=hp0,size=64,bytes=32MiB,outstanding=256"
# name | extra options | streams
patterns=(
  "sequential 64 B reads|${alone[*]}|--stream $one"
  "sequential 64 B reads, no bank-group interleave|${alone[*]} --set ddr.address_map.preset=row_bank_column|--stream $one"
  "random 64 B reads over 4 GiB|${alone[*]}|--stream $one,pattern=random,bytes=8MiB"
  "8 KiB stride, 64 B reads|${alone[*]}|--stream $one,pattern=strided,stride=8192,bytes=8MiB"
  "sequential 64 B, 10 reads : 1 write|${alone[*]}|--stream $one,reads=0.909090909"
  "sequential 64 B writes|${alone[*]}|--stream $one,reads=0"
  "default path: four HP streams of 4 KiB + ACP at 0.1 GB/s||--stream port=hp0,size=4096,bytes=64MiB,base=0,span=1GiB,outstanding=4 --stream port=hp1,size=4096,bytes=64MiB,base=1GiB,span=1GiB,outstanding=4 --stream port=hp2,size=4096,bytes=64MiB,base=2GiB,span=1GiB,outstanding=4 --stream port=hp3,size=4096,bytes=64MiB,base=3GiB,span=512MiB,outstanding=4 --stream port=acp,size=64,rate=0.1,bytes=256KiB,base=3584MiB,span=512MiB"
)
bins=(2133 2400 3200)
echo "| Pattern | DDR4-2133 | DDR4-2400 | DDR4-3200 |"
echo "|---|---|---|---|"
for p in "${patterns[@]}"; do
  IFS='|' read -r name extra streams <<<"$p"
  row="| $name |"
  for b in "${bins[@]}"; do
    # shellcheck disable=SC2086
    out=$(cd "$root" && "$exe" ddr-bench --config "configs/ddr/ddr4-$b.json" $extra $streams)
    gbps=$(sed -n 's/^delivered \([0-9.]*\) GB\/s (\([0-9.]*\) % .*/\1 GB\/s (\2 %)/p' <<<"$out")
    row="$row $gbps |"
  done
  echo "$row"
done
