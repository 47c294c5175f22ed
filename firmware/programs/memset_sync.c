/* memset_sync: fills both shape caches with the shapes of one Gemma 3n
 * decoder layer, then waits for the NPU to drain with uca_sync.
 *
 * 64 MEMSETs are more than CMD_IN holds, so issue runs into backpressure;
 * the retired count read back must match what was issued. Returns 0 on
 * success, 2 when a check fails. */
#include "pccx_firmware.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

#define SLOTS_PER_CACHE 32u

/* Renders "label value" without a C library, so the program stays
 * buildable freestanding for the KV260. */
static void print_value(const char* label, uint64_t value) {
  char line[96];
  unsigned n = 0;
  while (*label && n < 64) line[n++] = *label++;
  line[n++] = ' ';
  char digits[24];
  unsigned d = 0;
  do {
    digits[d++] = (char)('0' + value % 10u);
    value /= 10u;
  } while (value);
  while (d) line[n++] = digits[--d];
  line[n] = '\0';
  pccx_simctl_print(line);
}

int pccx_firmware_main(void) {
  if (uca_init() != 0) {
    pccx_simctl_print("memset_sync: NPU does not answer");
    return 2;
  }
  const uint64_t before = pccx_npu_retired();
  pccx_simctl_marker("memset_sync: fill shape caches");
  for (uint32_t slot = 0; slot < SLOTS_PER_CACHE; ++slot) {
    /* fmap slot: one activation row of 2048 BF16 elements times (slot + 1). */
    uca_memset(0, (uint8_t)slot, 1, 2048, (uint16_t)(slot + 1u));
    /* weight slot (M, N, K): a projection of N outputs over K inputs. */
    uca_memset(1, (uint8_t)slot, 1, (uint16_t)(256u * (slot % 8u + 1u)), 2048);
  }
  pccx_simctl_marker("memset_sync: wait for drain");
  const int rc = uca_sync(1000);
  const uint64_t retired = pccx_npu_retired() - before;
  print_value("memset_sync: uca_sync returned (0 = idle):", (uint64_t)(rc < 0 ? -rc : rc));
  print_value("memset_sync: instructions retired:", retired);
  print_value("memset_sync: simulated ns:", pccx_simctl_time_ns());
  uca_deinit();
  return (rc == 0 && retired == 2u * SLOTS_PER_CACHE) ? 0 : 2;
}
