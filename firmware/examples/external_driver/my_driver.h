/* my_driver: the project's own implementation of the few uCA v1 API and
 * sim-control functions hello.c uses. Their declarations come from the
 * installed pccx-vp headers; this header only marks the entry point for
 * export (the object is built with hidden visibility). */
#ifndef MY_DRIVER_H
#define MY_DRIVER_H

#define MY_EXPORT __attribute__((visibility("default")))

#endif /* MY_DRIVER_H */
