/* Sim-control helpers (pccx_simctl.h) over the uCA HAL. Freestanding. */
#include "pccx_simctl.h"

#include <stddef.h>
#include <stdint.h>

#include "uCA_v1_hal.h"

static void simctl_write(uint32_t reg, uint32_t value) {
  uca_hal_write32(PCCX_SIMCTL_OFFSET + reg, value);
}

static uint32_t simctl_read(uint32_t reg) {
  return uca_hal_read32(PCCX_SIMCTL_OFFSET + reg);
}

int pccx_simctl_present(void) {
  return simctl_read(PCCX_SIMCTL_ID) == PCCX_SIMCTL_MAGIC ? 1 : 0;
}

void pccx_simctl_print(const char* line) {
  char last = '\0';
  if (line != NULL) {
    for (; *line != '\0'; ++line) {
      last = *line;
      simctl_write(PCCX_SIMCTL_PUTC, (uint32_t)(unsigned char)last);
    }
  }
  if (last != '\n') {
    simctl_write(PCCX_SIMCTL_PUTC, (uint32_t)'\n');
  }
}

void pccx_simctl_marker(const char* text) {
  if (text != NULL) {
    for (; *text != '\0'; ++text) {
      simctl_write(PCCX_SIMCTL_MARKER_PUTC, (uint32_t)(unsigned char)*text);
    }
  }
  simctl_write(PCCX_SIMCTL_MARKER_EMIT, 1u);
}

void pccx_simctl_counter(const char* name, uint64_t value) {
  if (name != NULL) {
    for (; *name != '\0'; ++name) {
      simctl_write(PCCX_SIMCTL_COUNTER_PUTC, (uint32_t)(unsigned char)*name);
    }
  }
  /* LO first: writing HI records the sample. */
  simctl_write(PCCX_SIMCTL_COUNTER_LO, (uint32_t)value);
  simctl_write(PCCX_SIMCTL_COUNTER_HI, (uint32_t)(value >> 32));
}

void pccx_simctl_exit(int code) {
  simctl_write(PCCX_SIMCTL_EXIT, (uint32_t)code);
}

uint64_t pccx_simctl_time_ns(void) {
  /* LO first: reading LO latches HI. */
  uint32_t lo = simctl_read(PCCX_SIMCTL_TIME_NS_LO);
  uint32_t hi = simctl_read(PCCX_SIMCTL_TIME_NS_HI);
  return ((uint64_t)hi << 32) | (uint64_t)lo;
}

void pccx_line_str(pccx_line* l, const char* s) {
  while (*s && l->n + 1u < sizeof l->text) l->text[l->n++] = *s++;
  l->text[l->n] = '\0';
}

void pccx_line_start(pccx_line* l, const char* prefix) {
  l->n = 0;
  l->text[0] = '\0';
  pccx_line_str(l, prefix);
}

static void put_digits(pccx_line* l, const char* digits, unsigned d) {
  while (d && l->n + 1u < sizeof l->text) l->text[l->n++] = digits[--d];
  l->text[l->n] = '\0';
}

void pccx_line_dec(pccx_line* l, uint64_t v) {
  char digits[24];
  unsigned d = 0;
  do {
    digits[d++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v);
  put_digits(l, digits, d);
}

void pccx_line_hex(pccx_line* l, uint64_t v) {
  char digits[16];
  unsigned d = 0;
  do {
    digits[d++] = "0123456789abcdef"[v & 0xFu];
    v >>= 4;
  } while (v);
  pccx_line_str(l, "0x");
  put_digits(l, digits, d);
}
