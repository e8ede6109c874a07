/*
 * src/internal/tid.h - kept for the sources that ask only for the caller's
 * TID (src/cond.c): identity lives in src/internal/identity.h.
 */
#ifndef FX_INTERNAL_TID_H
#define FX_INTERNAL_TID_H

#include "internal/identity.h"

#endif /* FX_INTERNAL_TID_H */
