# shellcheck shell=bash
# Sourced by scripts/build.sh and scripts/bench.sh (not run on its own).
# pgo_build SOURCE BUILD: builds pccx-vp in BUILD with profile-guided
# optimisation: a training build (PCCX_PGO=GENERATE), the training runs
# below, then the same directory rebuilt from their counts (PCCX_PGO=USE).
# Extra arguments go to both configures. About twice the plain build.
#
# The training runs are short versions of what sweeps run: decode tokens in
# timing mode at 32K (FP16, INT4, rotated 3-bit) and 8K (INT8), three
# sampled prefill chunks like the main job's, and a functional decode and
# the AArch64 ELF of the decode program (when built) so those paths are
# trained too. Their outputs go to a scratch folder and are thrown away.

# shellcheck source=SCRIPTDIR/kv_formats.sh
source "$(dirname "${BASH_SOURCE[0]}")/kv_formats.sh"

pgo_build() {
  local src=$1 dir=$2
  shift 2
  local jobs exe scratch
  jobs=$(nproc 2>/dev/null || echo 2)
  # Counts of an earlier training, perhaps of other sources, would be added to.
  [ -d "$dir" ] && find "$dir" -name '*.gcda' -delete
  cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DPCCX_BUILD_TESTS=OFF \
    -DPCCX_PGO=GENERATE "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" --target pccx-vp
  # The decode program's AArch64 ELF, with the cross compiler (test builds install it).
  if command -v aarch64-linux-gnu-gcc >/dev/null; then
    cmake --build "$dir" --target pccx_firmware_aarch64
  fi
  exe="$(cd "$dir" && pwd)/platform/app/pccx-vp"
  scratch=$(mktemp -d)
  echo "pccx-vp: training runs for profile-guided optimisation" >&2
  local model=configs/models/gemma3n-e4b.json timing="--set simulation.mode=timing"
  local int4=${kv_formats[int4]} int8=${kv_formats[int8]} rot3=${kv_formats[rot3]}
  local elf="$dir/firmware/aarch64/programs/gemma_decode.elf" n=0 args
  local runs=(
    "--context 32768 --tokens 2 $timing"
    "--context 32768 --tokens 2 $timing $int4"
    "--context 32768 --tokens 2 $timing $rot3"
    "--context 8192 --tokens 1 $timing $int8"
    "--context 1005 --prompt-tokens 15 --chunk 15 --tokens 0 --ring-cap 1024 $timing"
    "--context 518 --prompt-tokens 14 --chunk 14 --tokens 0 --ring-cap 8192 $timing $int4"
    "--context 32750 --prompt-tokens 10 --chunk 10 --tokens 0 --ring-cap 32768 $timing"
    "--context 64 --tokens 1"
  )
  [ -f "$elf" ] && runs+=("--context 8192 --tokens 1 $timing --firmware $elf")
  for args in "${runs[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086  # the runs' arguments are words
    (cd "$src" && "$exe" decode --model "$model" $args --out "$scratch/run$n" \
      >"$scratch/run$n.log" 2>&1) ||
      { cat "$scratch/run$n.log" >&2; rm -rf "$scratch"; return 1; }
  done
  rm -rf "$scratch"
  cmake -S "$src" -B "$dir" -DPCCX_PGO=USE "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" --target pccx-vp
}
