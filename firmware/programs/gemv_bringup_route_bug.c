/* gemv_bringup_route_bug: gemv_bringup with its MEMCPYs encoded as the
 * upstream uCA_v1_api.c encodes them, the bug docs/guides/user-guide.md
 * finds through the driver lint. */
#define GEMV_BRINGUP_ROUTE_BUG 1
#include "gemv_bringup.c"
