/* no_entry: a shared object without pccx_firmware_main (the entry point is
 * misspelt), which pccx-vp must refuse as bad input. */
int pccx_firmware_entry(void);

int pccx_firmware_entry(void) {
  return 0;
}
