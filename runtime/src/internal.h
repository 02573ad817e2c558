/* internal.h - helpers shared by the runtime's .c files; not installed. */
#ifndef MOART_INTERNAL_H
#define MOART_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "moart/array.h"
#include "moart/status.h"

#if defined(__GNUC__)
#define MOART_PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define MOART_PRINTF_LIKE(fmt, args)
#endif

/* Byte-generic pack (unpack = 0) or unpack (unpack = 1) between a row-major
 * buffer of batch slabs, each of n rows of rowlen elements, and its lifted
 * form with block B (each slab lifted on its own, one after the other). */
void moart_internal_lift(const void *src, void *dst, int64_t batch, int64_t n,
                         int64_t rowlen, int64_t block, size_t elem_size,
                         int unpack);

/* 1 on a little-endian host. */
int moart_internal_little_endian(void);

/* Array files (io.c, npy.c). */

/* Record a failure: "path: message" into err (when err is not NULL and
 * errlen > 0), then pass the status through. */
moart_status moart_internal_fail(moart_status status, char *err, size_t errlen,
                                 const char *path, const char *fmt, ...)
    MOART_PRINTF_LIKE(5, 6);
/* File size in bytes, or -1 when the stream cannot seek (a pipe). */
long long moart_internal_file_size(FILE *f);
/* 1 when path names a .npy file (it ends in ".npy"), else 0 (.moarr). */
int moart_internal_is_npy_path(const char *path);
/* Write count elements of elem bytes little-endian; 1 on success. */
int moart_internal_write_elements(FILE *f, const unsigned char *data,
                                  size_t count, size_t elem);
/* After a header of header_size bytes describing head (dtype, rank, shape,
 * count; no storage): the elements into a new row-major *out, checked against
 * the file's size (size, -1 for a pipe) before anything is allocated. */
moart_status moart_internal_read_data(FILE *f, const char *path, long long size,
                                      long long header_size,
                                      const moart_array *head, moart_array *out,
                                      char *err, size_t errlen);
/* The .npy format (npy.c): a row-major array a, and a file opened at its
 * start. */
moart_status moart_internal_write_npy(FILE *f, const moart_array *a);
moart_status moart_internal_read_npy(FILE *f, const char *path,
                                     moart_array *out, char *err,
                                     size_t errlen);

#endif /* MOART_INTERNAL_H */
