/* Private to the uCA driver (uCA_v1_api.c, pccx_uca_ext.c): the API error
 * latch shared by the encoder and pccx_uca_take_api_error(). Not installed.
 *
 * PCCX_API_FIELD_RANGE belongs in pccx_uca_ext.h next to PCCX_API_BAD_ROUTE;
 * until the shared header carries it, it is defined here with the same
 * value, so either definition may win. */
#ifndef PCCX_UCA_INTERNAL_H
#define PCCX_UCA_INTERNAL_H

#include "pccx_uca_ext.h"

#ifndef PCCX_API_FIELD_RANGE
#define PCCX_API_FIELD_RANGE 2 /* a value does not fit its instruction field */
#endif

/* Records an API error unless one is already pending (the first is kept). */
void pccx_uca_internal_set_api_error(int code);
/* The pending API error (PCCX_API_OK if none); does not clear it. */
int pccx_uca_internal_peek_api_error(void);
/* Returns the pending API error and clears it. */
int pccx_uca_internal_take_api_error(void);

#endif /* PCCX_UCA_INTERNAL_H */
