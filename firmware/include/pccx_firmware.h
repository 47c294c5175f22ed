/* Entry point of a firmware program run on the virtual platform.
 *
 * A program defines pccx_firmware_main(); its return value is the run's exit
 * code unless the program ends the run earlier through the sim-control
 * device. Built as a shared object, the symbol is looked up by this name.
 * Built into pccx-vp, each program is compiled with
 * -Dpccx_firmware_main=pccx_fw_<name> so many can live in one executable.
 *
 * The declaration below carries default visibility, so a program that
 * includes this header exports its entry point even when the object is
 * built with -fvisibility=hidden; PCCX_FIRMWARE_EXPORT marks anything else
 * a program wants the platform to see. The platform, in turn, exports to a
 * firmware object exactly the uCA HAL (uca_hal_init, uca_hal_deinit,
 * uca_hal_write32, uca_hal_read32, uca_hal_issue_instr, uca_hal_read_status,
 * uca_hal_wait_idle) and the host-memory calls (pccx_host_write,
 * pccx_host_read); its exit and _exit end the run, not pccx-vp, when the
 * firmware calls them. */
#ifndef PCCX_FIRMWARE_H
#define PCCX_FIRMWARE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PCCX_FIRMWARE_EXPORT __attribute__((visibility("default")))
#else
#define PCCX_FIRMWARE_EXPORT
#endif

PCCX_FIRMWARE_EXPORT int pccx_firmware_main(void);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_FIRMWARE_H */
