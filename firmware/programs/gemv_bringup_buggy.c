/* gemv_bringup_buggy: gemv_bringup with the weight shape written as
 * (M, K, N), the bug docs/guides/user-guide.md tracks down. */
#define GEMV_BRINGUP_BUG 1
#include "gemv_bringup.c"
