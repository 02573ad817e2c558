/* moart/moart.h - the whole moac runtime library (libmoart) in one include.
 *
 * Generated kernels and their drivers include this; the pieces are:
 * status codes, the array descriptor, the lifted layout, seeded fill, error
 * norms, .moarr files and the timer. See docs/runtime.md. */
#ifndef MOART_MOART_H
#define MOART_MOART_H

#include "moart/array.h"
#include "moart/fill.h"
#include "moart/io.h"
#include "moart/kernel.h"
#include "moart/layout.h"
#include "moart/norms.h"
#include "moart/status.h"
#include "moart/timer.h"

#endif /* MOART_MOART_H */
