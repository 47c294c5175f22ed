/* Sim-control device: a platform-defined peripheral that only exists on the
 * virtual platform. Firmware uses it to print lines, put markers into the
 * traces and end the run with an exit code. Accesses cost no simulated time.
 *
 * The device sits at PCCX_SIMCTL_OFFSET from the NPU base (0xA0100000 by
 * default), so the helpers reach it through the uCA HAL. */
#ifndef PCCX_SIMCTL_H
#define PCCX_SIMCTL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCCX_SIMCTL_OFFSET 0x00100000u

#define PCCX_SIMCTL_ID 0x00           /* R: PCCX_SIMCTL_MAGIC */
#define PCCX_SIMCTL_PUTC 0x04         /* W: append a byte to the print line; '\n' emits it */
#define PCCX_SIMCTL_MARKER_PUTC 0x08  /* W: append a byte to the marker text */
#define PCCX_SIMCTL_MARKER_EMIT 0x0C  /* W: emit the marker into every trace */
#define PCCX_SIMCTL_EXIT 0x10         /* W: end the run; the value is the exit code */
#define PCCX_SIMCTL_TIME_NS_LO 0x14   /* R: simulated time in ns [31:0] (latches HI) */
#define PCCX_SIMCTL_TIME_NS_HI 0x18   /* R: simulated time in ns [63:32] */
#define PCCX_SIMCTL_COUNTER_PUTC 0x1C /* W: append a byte to the counter name */
#define PCCX_SIMCTL_COUNTER_LO 0x20   /* W: counter value [31:0] */
#define PCCX_SIMCTL_COUNTER_HI 0x24   /* W: counter value [63:32]; records the sample */

#define PCCX_SIMCTL_MAGIC 0x5343544Cu /* "SCTL" */

/* Helpers over the uCA HAL (firmware/sim/pccx_simctl.c). */
int pccx_simctl_present(void);
void pccx_simctl_print(const char* line);
void pccx_simctl_marker(const char* text);
void pccx_simctl_exit(int code);
uint64_t pccx_simctl_time_ns(void);
/* Records `value` for the counter `name` at the current simulated time
 * (a counter track in the run's traces, e.g. "kv tokens"). */
void pccx_simctl_counter(const char* name, uint64_t value);

/* A line of text built without a C library, for pccx_simctl_print: text is
 * always NUL-terminated; what does not fit is cut off. */
typedef struct {
  char text[200];
  unsigned n;
} pccx_line;
/* Empties the line and starts it with `prefix`. */
void pccx_line_start(pccx_line* l, const char* prefix);
void pccx_line_str(pccx_line* l, const char* s);
void pccx_line_dec(pccx_line* l, uint64_t v);
void pccx_line_hex(pccx_line* l, uint64_t v); /* 0x, lower case, no leading zeros */

#ifdef __cplusplus
}
#endif

#endif /* PCCX_SIMCTL_H */
