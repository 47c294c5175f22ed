/* Test-only capturing uCA HAL (capture_hal.h). */
#include "capture_hal.h"

#include <string.h>

#include "uCA_v1_hal.h"

#define CAPTURE_REGS 64u

typedef struct {
  uint32_t offset;
  uint32_t value;
} reg_entry;

static uint64_t g_issued[CAPTURE_MAX_EVENTS];
static size_t g_issued_n;
static capture_access g_writes[CAPTURE_MAX_EVENTS];
static size_t g_writes_n;
static capture_access g_reads[CAPTURE_MAX_EVENTS];
static size_t g_reads_n;
static reg_entry g_regs[CAPTURE_REGS];
static size_t g_regs_n;
static int g_wait_result;
static unsigned g_init_calls, g_deinit_calls, g_wait_calls;
static uint32_t g_last_timeout;
static int g_overflow;

void capture_reset(void) {
  g_issued_n = g_writes_n = g_reads_n = g_regs_n = 0;
  memset(g_regs, 0, sizeof g_regs);
  g_wait_result = 0;
  g_init_calls = g_deinit_calls = g_wait_calls = 0;
  g_last_timeout = 0;
  g_overflow = 0;
}

void capture_set_reg(uint32_t offset, uint32_t value) {
  size_t i;
  for (i = 0; i < g_regs_n; ++i) {
    if (g_regs[i].offset == offset) {
      g_regs[i].value = value;
      return;
    }
  }
  if (g_regs_n < CAPTURE_REGS) {
    g_regs[g_regs_n].offset = offset;
    g_regs[g_regs_n].value = value;
    ++g_regs_n;
  } else {
    g_overflow = 1;
  }
}

static uint32_t reg_value(uint32_t offset) {
  size_t i;
  for (i = 0; i < g_regs_n; ++i) {
    if (g_regs[i].offset == offset) return g_regs[i].value;
  }
  return 0;
}

void capture_set_wait_result(int result) {
  g_wait_result = result;
}

size_t capture_issued_count(void) {
  return g_issued_n;
}
uint64_t capture_issued(size_t index) {
  return index < g_issued_n ? g_issued[index] : 0;
}
size_t capture_write_count(void) {
  return g_writes_n;
}
capture_access capture_write(size_t index) {
  capture_access none = {0xFFFFFFFFu, 0};
  return index < g_writes_n ? g_writes[index] : none;
}
size_t capture_read_count(void) {
  return g_reads_n;
}
capture_access capture_read(size_t index) {
  capture_access none = {0xFFFFFFFFu, 0};
  return index < g_reads_n ? g_reads[index] : none;
}
unsigned capture_init_calls(void) {
  return g_init_calls;
}
unsigned capture_deinit_calls(void) {
  return g_deinit_calls;
}
unsigned capture_wait_calls(void) {
  return g_wait_calls;
}
uint32_t capture_last_wait_timeout(void) {
  return g_last_timeout;
}
int capture_overflowed(void) {
  return g_overflow;
}

/* ---- the HAL ---- */

void uca_hal_write32(uint32_t offset, uint32_t val) {
  if (g_writes_n < CAPTURE_MAX_EVENTS) {
    g_writes[g_writes_n].offset = offset;
    g_writes[g_writes_n].value = val;
    ++g_writes_n;
  } else {
    g_overflow = 1;
  }
}

uint32_t uca_hal_read32(uint32_t offset) {
  uint32_t v = reg_value(offset);
  if (g_reads_n < CAPTURE_MAX_EVENTS) {
    g_reads[g_reads_n].offset = offset;
    g_reads[g_reads_n].value = v;
    ++g_reads_n;
  } else {
    g_overflow = 1;
  }
  return v;
}

int uca_hal_init(void) {
  ++g_init_calls;
  return uca_hal_read32(UCA_REG_STATUS) == 0xFFFFFFFFu ? -1 : 0;
}

void uca_hal_deinit(void) {
  ++g_deinit_calls;
}

/* Records the word only (not as two MMIO writes), so write logs show the
 * driver's own register accesses. */
void uca_hal_issue_instr(uint64_t instr) {
  if (g_issued_n < CAPTURE_MAX_EVENTS) {
    g_issued[g_issued_n++] = instr;
  } else {
    g_overflow = 1;
  }
}

uint32_t uca_hal_read_status(void) {
  return uca_hal_read32(UCA_REG_STATUS);
}

int uca_hal_wait_idle(uint32_t timeout_us) {
  ++g_wait_calls;
  g_last_timeout = timeout_us;
  return g_wait_result;
}
