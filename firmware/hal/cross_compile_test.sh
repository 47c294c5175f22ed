#!/bin/sh
# firmware_cross_compile_aarch64: builds the uCA driver, the sim-control
# helpers, the DMA helpers, the KV-cache ring manager, the KV260 bare-metal
# HAL and every firmware program for AArch64 as freestanding code (a program
# is firmware/programs/<name>.c, or every .c file of a folder
# firmware/programs/<name>/), links each program into a static executable
# (unresolved symbols, and symbols two of its files both define, fail the
# link) and checks that the result is an AArch64 ELF executable.
#
# usage: cross_compile_test.sh FIRMWARE_DIR WORK_DIR
# env:   PCCX_AARCH64_CC  cross compiler (default aarch64-linux-gnu-gcc)
set -eu

if [ "$#" -ne 2 ]; then
  echo "usage: $0 FIRMWARE_DIR WORK_DIR" >&2
  exit 2
fi
FW=$1
OUT=$2
CC=${PCCX_AARCH64_CC:-aarch64-linux-gnu-gcc}

if ! command -v "$CC" >/dev/null 2>&1; then
  echo "FAIL: cross compiler '$CC' not found;" \
       "install gcc-aarch64-linux-gnu (apt-get install gcc-aarch64-linux-gnu)" >&2
  exit 1
fi

CFLAGS="-std=c11 -ffreestanding -fno-builtin -nostdlib -O2 -Wall -Wextra -Werror"
LDFLAGS="-nostdlib -static -Wl,-e,_start"

rm -rf "$OUT"
mkdir -p "$OUT/driver" "$OUT/programs"

compile() { # src obj
  echo "CC  $1"
  # shellcheck disable=SC2086
  "$CC" $CFLAGS -I"$FW/include" -c "$1" -o "$2"
}

# Every driver source and every KV260 back-end source, so a new file cannot
# slip past the freestanding build.
DRIVER_SRCS=$(cd "$FW" && ls uca/*.c sim/*.c dma/*.c kv/*.c ops/*.c hal/kv260/*.c 2>/dev/null || true)
DRIVER_OBJS=""
for src in $DRIVER_SRCS; do
  obj="$OUT/driver/$(basename "$src" .c).o"
  compile "$FW/$src" "$obj"
  DRIVER_OBJS="$DRIVER_OBJS $obj"
done

# ELF header: magic 7f 45 4c 46, EI_CLASS 2 (64-bit), EI_DATA 1 (little
# endian), e_type 2 (ET_EXEC) at 16, e_machine 0xb7 (EM_AARCH64) at 18.
check_elf() { # file
  hdr=$(od -An -tx1 -N20 "$1" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')
  case "$hdr" in
    "7f 45 4c 46 02 01 "*" 02 00 b7 00") echo "ok  $1: ELF64 AArch64 executable" ;;
    *)
      echo "FAIL: $1 is not an AArch64 ELF executable (header: $hdr)" >&2
      return 1
      ;;
  esac
}

link_program() { # name src...
  name=$1
  shift
  elf="$OUT/programs/$name.elf"
  mkdir -p "$OUT/programs/$name"
  objs=""
  for src in "$@"; do
    obj="$OUT/programs/$name/$(basename "$src" .c).o"
    compile "$src" "$obj"
    objs="$objs $obj"
  done
  echo "LD  $elf"
  # shellcheck disable=SC2086
  "$CC" $LDFLAGS -o "$elf" $objs $DRIVER_OBJS -lgcc
  check_elf "$elf"
}

# Built-in link check: references every public driver entry point, so the
# driver links completely even when firmware/programs/ is empty.
cat > "$OUT/driver_link_check.c" <<'PROG'
#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "pccx_kv.h"
#include "pccx_ops.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

int pccx_firmware_main(void) {
  pccx_npu_error err;
  pccx_kv_handle kv;
  pccx_kv_segment seg[2];
  const unsigned split[2] = {PCCX_DMA_HP2, PCCX_DMA_HP3};
  uint64_t slot;
  uint32_t pos;
  if (uca_init() != 0) return 1;
  (void)pccx_kv_configure(&kv, 2, 2, 32, 32, 0x40000000u, 0x100000u);
  (void)pccx_kv_set_sinks(&kv, pccx_kv_sinks(&kv));
  (void)pccx_kv_set_window(&kv, pccx_kv_window(&kv));
  (void)pccx_kv_required_bytes(2, 2, 32, 32, 64);
  if (pccx_kv_init(&kv, 64) != PCCX_KV_OK) return 2;
  (void)pccx_kv_append_token(&kv, &pos);
  (void)pccx_kv_append_slot(&kv, 0, 0, PCCX_KV_K, &slot);
  (void)pccx_kv_slot_addr(&kv, 0, 0, PCCX_KV_V, pos, &slot);
  (void)pccx_kv_slot_of(&kv, pos);
  (void)pccx_kv_evict(&kv, 0);
  (void)pccx_kv_segments(&kv, 1, 1, PCCX_KV_V, seg);
  (void)pccx_kv_stream_position(&kv, 0, &pos);
  (void)pccx_kv_submit_stream(&kv, 1, 0, PCCX_KV_K, PCCX_DMA_HP0, 3, 0);
  (void)pccx_kv_submit_stream_split(&kv, 1, 0, PCCX_KV_K, split, 2, 3, 0);
  (void)(pccx_kv_tokens(&kv) + pccx_kv_valid_tokens(&kv) + pccx_kv_window_start(&kv) +
         pccx_kv_max_tokens(&kv));
  (void)pccx_kv_strerror(pccx_kv_reset(&kv));
  {
    pccx_rmsnorm_ws ws = {0x1000u, 9u, 0x40000000u, 0u};
    (void)pccx_ops_set_cvo_max(pccx_ops_cvo_max());
    (void)pccx_cvo_long(UCA_CVO_EXP, 0x100u, 0x200u, 4096u, 0u, 0u);
    (void)pccx_reduce_sum_long(0x200u, 4096u, 0x300u, 0u);
    pccx_line line;
    pccx_line_start(&line, "x ");
    pccx_line_dec(&line, 42u);
    pccx_line_hex(&line, 0x2Au);
    pccx_simctl_print(line.text);
    (void)pccx_rmsnorm_prepare(&ws, 64u, 0x3586u);
    (void)pccx_rmsnorm(&ws, 0x400u, 0x500u, 0x600u, pccx_rmsnorm_words(64u));
  }
  uca_memset(0, 1, 1, 1, 9);
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, 0x10, 0, 1, 0);
  uca_gemv(0x100, 0x10, UCA_FLAG_FINDEMAX, 1, 2, 4);
  uca_gemm(0x200, 0x10, UCA_FLAG_ACCM, 1, 2, 1);
  uca_cvo(UCA_CVO_EXP, 0x100, 0x300, 16, UCA_CVO_FLAG_SUB_EMAX, 1);
  if (uca_sync(1000) != 0) {
    (void)pccx_npu_read_error(&err);
    pccx_npu_clear_error();
  }
  (void)pccx_uca_take_api_error();
  if (pccx_simctl_present()) {
    pccx_simctl_marker("link-check");
    pccx_simctl_print("cycles");
    (void)pccx_simctl_time_ns();
  }
  (void)pccx_npu_read_counter(PCCX_PERF_CYCLES);
  (void)pccx_npu_retired();
  uca_deinit();
  pccx_simctl_exit(0);
  return 0;
}
PROG
link_program driver_link_check "$OUT/driver_link_check.c"

count=0
for src in "$FW"/programs/*.c; do
  [ -e "$src" ] || continue
  link_program "$(basename "$src" .c)" "$src"
  count=$((count + 1))
done
for dir in "$FW"/programs/*/; do
  [ -d "$dir" ] || continue
  set -- "$dir"*.c
  [ -e "$1" ] || continue
  link_program "$(basename "$dir")" "$@"
  count=$((count + 1))
done

echo "PASS: driver, KV260 HAL and $count firmware program(s) built for AArch64"
