/* Minimal bare-metal startup for a pccx firmware program on the KV260 A53
 * (AArch64), linked with -nostdlib -static -Wl,-e,_start:
 *   _start: set SP to a private stack, zero .bss, call pccx_firmware_main(),
 *   keep its return value in kv260_exit_code (for a debugger) and spin.
 * Plus the four memory functions GCC may emit calls to even in freestanding
 * code (struct copies and initialisation). */
#include <stddef.h>
#include <stdint.h>

#include "pccx_firmware.h"

#define KV260_STACK_BYTES 16384

/* In .bss: _start zeroes .bss before it makes the first call, so clearing
 * the stack is harmless. */
__attribute__((aligned(16))) unsigned char kv260_stack[KV260_STACK_BYTES];

volatile int kv260_exit_code;

void kv260_c_entry(void) __attribute__((noreturn, used));

void kv260_c_entry(void) {
  kv260_exit_code = pccx_firmware_main();
  for (;;) {
    __asm__ volatile("wfe");
  }
}

/* __bss_start and _end come from the default GNU ld linker script. */
__asm__(
    ".section .text._start,\"ax\",%progbits\n"
    ".global _start\n"
    ".type _start, %function\n"
    "_start:\n"
    "  adrp x0, kv260_stack\n"
    "  add x0, x0, :lo12:kv260_stack\n"
    "  add x0, x0, #0x4000\n" /* KV260_STACK_BYTES */
    "  mov sp, x0\n"
    "  adrp x1, __bss_start\n"
    "  add x1, x1, :lo12:__bss_start\n"
    "  adrp x2, _end\n"
    "  add x2, x2, :lo12:_end\n"
    "1:\n"
    "  cmp x1, x2\n"
    "  b.hs 2f\n"
    "  strb wzr, [x1], #1\n"
    "  b 1b\n"
    "2:\n"
    "  bl kv260_c_entry\n"
    "3:\n"
    "  wfe\n"
    "  b 3b\n"
    ".size _start, . - _start\n"
    ".text\n");

void* memset(void* dst, int value, size_t n);
void* memcpy(void* restrict dst, const void* restrict src, size_t n);
void* memmove(void* dst, const void* src, size_t n);
int memcmp(const void* a, const void* b, size_t n);

/* The loops must not be turned back into calls to themselves. */
#define KV260_NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

KV260_NO_LIBCALL void* memset(void* dst, int value, size_t n) {
  unsigned char* d = (unsigned char*)dst;
  while (n-- != 0u) {
    *d++ = (unsigned char)value;
  }
  return dst;
}

KV260_NO_LIBCALL void* memcpy(void* restrict dst, const void* restrict src, size_t n) {
  unsigned char* d = (unsigned char*)dst;
  const unsigned char* s = (const unsigned char*)src;
  while (n-- != 0u) {
    *d++ = *s++;
  }
  return dst;
}

KV260_NO_LIBCALL void* memmove(void* dst, const void* src, size_t n) {
  unsigned char* d = (unsigned char*)dst;
  const unsigned char* s = (const unsigned char*)src;
  if (d < s) {
    while (n-- != 0u) {
      *d++ = *s++;
    }
  } else if (d > s) {
    d += n;
    s += n;
    while (n-- != 0u) {
      *--d = *--s;
    }
  }
  return dst;
}

KV260_NO_LIBCALL int memcmp(const void* a, const void* b, size_t n) {
  const unsigned char* x = (const unsigned char*)a;
  const unsigned char* y = (const unsigned char*)b;
  for (; n != 0u; --n, ++x, ++y) {
    if (*x != *y) {
      return *x < *y ? -1 : 1;
    }
  }
  return 0;
}
