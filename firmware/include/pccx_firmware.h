/* Entry point of a firmware program run on the virtual platform.
 *
 * A program defines pccx_firmware_main(); its return value is the run's exit
 * code unless the program ends the run earlier through the sim-control
 * device. Built as a shared object, the symbol is looked up by this name.
 * Built into pccx-vp, each program is compiled with
 * -Dpccx_firmware_main=pccx_fw_<name> so many can live in one executable. */
#ifndef PCCX_FIRMWARE_H
#define PCCX_FIRMWARE_H

#ifdef __cplusplus
extern "C" {
#endif

int pccx_firmware_main(void);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_FIRMWARE_H */
