/* my_driver: the project's own implementation of the few uCA v1 API and
 * sim-control functions hello.c uses. Their declarations come from the
 * installed pccx-vp headers; the entry point is exported by the declaration
 * in pccx_firmware.h (the object is built with hidden visibility). */
#ifndef MY_DRIVER_H
#define MY_DRIVER_H

#endif /* MY_DRIVER_H */
