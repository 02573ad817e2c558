/* moart/io.h - .moarr array files and a readable text dump.
 *
 * A .moarr file is little-endian: the 8 magic bytes "MOARR\x01\0\0", u32 dtype,
 * u32 rank, rank x u64 extents, then the elements in logical row-major order
 * (never lifted). docs/runtime.md specifies it byte by byte.
 *
 * A path ending in ".npy" is read and written as NumPy's .npy instead: format
 * 1.0 to 3.0 read, 1.0 written, little-endian '<f4', '<f8' or '<i8' in C
 * order (what np.save writes for float32, float64 and int64 arrays). */
#ifndef MOART_IO_H
#define MOART_IO_H

#include <stddef.h>
#include <stdio.h>

#include "moart/array.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MOART_FILE_MAGIC "MOARR\x01\0\0"
#define MOART_FILE_MAGIC_SIZE 8
#define MOART_FILE_VERSION 1

/* Write array (any layout) to path, replacing the file: .npy when path ends
 * in ".npy", else .moarr. */
moart_status moart_write_array(const char *path, const moart_array *array);
/* The same in the format named, whatever the extension (a temporary file). */
moart_status moart_write_moarr(const char *path, const moart_array *array);
moart_status moart_write_npy(const char *path, const moart_array *array);

/* Read path (.npy when it ends in ".npy", else .moarr) into *out, a new
 * row-major array the caller frees with
 * moart_array_free. On failure *out is all zero and, when err is not NULL and
 * errlen > 0, err holds a one-line message naming the file and the problem. */
moart_status moart_read_array(const char *path, moart_array *out, char *err,
                              size_t errlen);

/* Print "name : f32[2, 3]", then the logical elements one row of the last
 * axis per line, separated by one space: %.9g for f32, %.17g for f64, %lld
 * for i64. A rank-0 array prints its value on one line. */
moart_status moart_print_array(FILE *stream, const moart_array *array,
                               const char *name);

#ifdef __cplusplus
}
#endif

#endif /* MOART_IO_H */
