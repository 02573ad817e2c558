/* io.c - read and write .moarr array files (format: docs/runtime.md), and
 * .npy files through npy.c when the path ends in .npy.
 *
 * Reading trusts nothing in the file: the header is checked field by field,
 * the element count is overflow-checked, and the file size is compared with
 * the header's promise before any allocation, so a corrupt or hostile file
 * gives a status and a message, never a crash or a huge allocation. */
#define _POSIX_C_SOURCE 200809L

#include "moart/io.h"
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define HEADER_FIXED 16 /* magic, u32 dtype, u32 rank */
#define CHUNK 4096 /* elements byte-swapped at a time on big-endian hosts */

int moart_internal_little_endian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

static void put_le(unsigned char *out, uint64_t value, int bytes) {
  int k;
  for (k = 0; k < bytes; ++k)
    out[k] = (unsigned char)(value >> (8 * k));
}

static uint64_t get_le(const unsigned char *in, int bytes) {
  uint64_t value = 0;
  int k;
  for (k = bytes - 1; k >= 0; --k)
    value = (value << 8) | in[k];
  return value;
}

static void swap_elements(unsigned char *data, size_t count, size_t elem) {
  size_t i, k;
  for (i = 0; i < count; ++i, data += elem)
    for (k = 0; k < elem / 2; ++k) {
      unsigned char t = data[k];
      data[k] = data[elem - 1 - k];
      data[elem - 1 - k] = t;
    }
}

/* Write elements little-endian, swapping a copy on big-endian hosts. */
int moart_internal_write_elements(FILE *f, const unsigned char *data,
                                  size_t count, size_t elem) {
  unsigned char buf[CHUNK * 8];
  if (moart_internal_little_endian())
    return fwrite(data, elem, count, f) == count;
  while (count > 0) {
    size_t n = count < CHUNK ? count : CHUNK;
    memcpy(buf, data, n * elem);
    swap_elements(buf, n, elem);
    if (fwrite(buf, elem, n, f) != n)
      return 0;
    data += n * elem;
    count -= n;
  }
  return 1;
}

static moart_status write_moarr(FILE *f, const moart_array *a) {
  unsigned char header[HEADER_FIXED + 8 * MOART_MAX_RANK];
  size_t header_size = HEADER_FIXED + 8 * (size_t)a->rank;
  int k;
  memcpy(header, MOART_FILE_MAGIC, MOART_FILE_MAGIC_SIZE);
  put_le(header + 8, (uint64_t)a->dtype, 4);
  put_le(header + 12, (uint64_t)a->rank, 4);
  for (k = 0; k < a->rank; ++k)
    put_le(header + HEADER_FIXED + 8 * k, (uint64_t)a->shape[k], 8);
  return fwrite(header, 1, header_size, f) == header_size &&
                 moart_internal_write_elements(
                     f, (const unsigned char *)a->data, (size_t)a->count,
                     moart_dtype_size(a->dtype))
             ? MOART_OK
             : MOART_ERR_IO;
}

int moart_internal_is_npy_path(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && strcmp(path + n - 4, ".npy") == 0;
}

/* A row-major array into a new file at path, as .npy or .moarr; a failed
 * write leaves no file. */
static moart_status write_file(const char *path, const moart_array *a,
                               int npy) {
  moart_status status;
  FILE *f = fopen(path, "wb");
  if (!f)
    return MOART_ERR_IO;
  status = npy ? moart_internal_write_npy(f, a) : write_moarr(f, a);
  if (fclose(f) != 0 || status != MOART_OK) {
    remove(path);
    return status != MOART_OK ? status : MOART_ERR_IO;
  }
  return MOART_OK;
}

/* Any layout: a lifted array is written from a row-major copy. */
static moart_status write_as(const char *path, const moart_array *array,
                             int npy) {
  moart_array copy;
  moart_status status;
  if (!path || !array || (!array->data && array->count))
    return MOART_ERR_ARG;
  if (moart_dtype_size(array->dtype) == 0)
    return MOART_ERR_DTYPE;
  if (array->rank < 0 || array->rank > MOART_MAX_RANK)
    return MOART_ERR_RANK;
  if (moart_array_storage_count(array) < 0)
    return MOART_ERR_LAYOUT;
  if (array->layout.kind == MOART_LAYOUT_ROW_MAJOR)
    return write_file(path, array, npy);
  status = moart_array_create(&copy, array->dtype, array->rank, array->shape);
  if (status == MOART_OK)
    status = moart_array_relayout(array, &copy);
  if (status == MOART_OK)
    status = write_file(path, &copy, npy);
  moart_array_free(&copy);
  return status;
}

moart_status moart_write_array(const char *path, const moart_array *array) {
  return write_as(path, array, path && moart_internal_is_npy_path(path));
}

moart_status moart_write_moarr(const char *path, const moart_array *array) {
  return write_as(path, array, 0);
}

moart_status moart_write_npy(const char *path, const moart_array *array) {
  return write_as(path, array, 1);
}

/* Record a failure: "path: message" into err, then pass the status through. */
moart_status moart_internal_fail(moart_status status, char *err, size_t errlen,
                                 const char *path, const char *fmt, ...) {
  va_list args;
  int used;
  if (!err || errlen == 0)
    return status;
  used = snprintf(err, errlen, "%s: ", path ? path : "(null)");
  if (used >= 0 && (size_t)used < errlen) {
    va_start(args, fmt);
    vsnprintf(err + used, errlen - (size_t)used, fmt, args);
    va_end(args);
  }
  return status;
}

/* File size in bytes, or -1 when the stream cannot seek (a pipe). */
long long moart_internal_file_size(FILE *f) {
  off_t size;
  if (fseeko(f, 0, SEEK_END) != 0)
    return -1;
  size = ftello(f);
  if (fseeko(f, 0, SEEK_SET) != 0)
    return -1;
  return (long long)size;
}

/* Check the 16 fixed header bytes and the extents; fill in the descriptor
 * (without storage) of the array the file holds. */
static moart_status read_header(FILE *f, const char *path, moart_array *a,
                                char *err, size_t errlen) {
  unsigned char header[HEADER_FIXED], extents[8 * MOART_MAX_RANK];
  size_t got = fread(header, 1, HEADER_FIXED, f), k;
  size_t magic = got < MOART_FILE_MAGIC_SIZE ? got : MOART_FILE_MAGIC_SIZE;
  uint64_t dtype, rank;
  if (got < HEADER_FIXED && ferror(f))
    return moart_internal_fail(MOART_ERR_IO, err, errlen, path,
                               "read error: %s", strerror(errno));
  for (k = 0; k < magic; ++k)
    if (header[k] != (unsigned char)MOART_FILE_MAGIC[k])
      break;
  if (k < magic && k < 5)
    return moart_internal_fail(MOART_ERR_MAGIC, err, errlen, path,
                               "not a .moarr file (bad magic)");
  if (k < magic)
    return moart_internal_fail(
        MOART_ERR_VERSION, err, errlen, path,
        "unsupported .moarr version (bytes 5-7 are %u %u %u, expected 1 0 0)",
        header[5], magic > 6 ? header[6] : 0u, magic > 7 ? header[7] : 0u);
  if (got < HEADER_FIXED)
    return moart_internal_fail(MOART_ERR_TRUNCATED, err, errlen, path,
                               "truncated header: %zu of %d bytes", got,
                               HEADER_FIXED);
  dtype = get_le(header + 8, 4);
  rank = get_le(header + 12, 4);
  if (dtype != MOART_F32 && dtype != MOART_F64 && dtype != MOART_I64 &&
      dtype != MOART_BF16 && dtype != MOART_F16 && dtype != MOART_I32)
    return moart_internal_fail(
        MOART_ERR_DTYPE, err, errlen, path,
        "unknown dtype code %u (expected 1 f32, 2 f64, 3 i64, 4 bf16, 5 f16 "
        "or 6 i32)",
        (unsigned)dtype);
  if (rank > MOART_MAX_RANK)
    return moart_internal_fail(MOART_ERR_RANK, err, errlen, path,
                               "rank %u exceeds the maximum of %d",
                               (unsigned)rank, MOART_MAX_RANK);
  got = fread(extents, 8, (size_t)rank, f);
  if (got < rank)
    return moart_internal_fail(MOART_ERR_TRUNCATED, err, errlen, path,
                               "truncated header: %zu of %u extents", got,
                               (unsigned)rank);
  a->dtype = (moart_dtype)dtype;
  a->rank = (int)rank;
  for (k = 0; k < rank; ++k) {
    uint64_t extent = get_le(extents + 8 * k, 8);
    if (extent > (uint64_t)INT64_MAX)
      return moart_internal_fail(MOART_ERR_OVERFLOW, err, errlen, path,
                                 "extents overflow: extent %zu is %llu", k,
                                 (unsigned long long)extent);
    a->shape[k] = (int64_t)extent;
  }
  if (moart_shape_count(a->rank, a->shape, moart_dtype_size(a->dtype),
                        &a->count) != MOART_OK)
    return moart_internal_fail(
        MOART_ERR_OVERFLOW, err, errlen, path,
        "extents overflow: the byte size of the elements exceeds int64");
  return MOART_OK;
}

/* The data of a stream that cannot seek (a pipe): the header's size cannot
 * be checked against the file before reading, so the buffer grows with the
 * bytes that actually arrive, and a header promising terabytes costs only
 * what was sent. */
static moart_status read_stream(FILE *f, const char *path,
                                const moart_array *head, moart_array *out,
                                char *err, size_t errlen) {
  size_t elem = moart_dtype_size(head->dtype);
  size_t want = (size_t)head->count * elem, have = 0, cap = 0, piece;
  unsigned char *buf = NULL, *grown;
  moart_status status;
  while (have < want) {
    if (have == cap) {
      cap = cap ? cap * 2 : (size_t)1 << 16;
      if (cap > want)
        cap = want;
      grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        return moart_internal_fail(MOART_ERR_NOMEM, err, errlen, path,
                                   "cannot allocate %zu bytes", cap);
      }
      buf = grown;
    }
    piece = fread(buf + have, 1, cap - have, f);
    have += piece;
    if (piece == 0)
      break;
  }
  if (have < want) {
    int io_error = ferror(f);
    free(buf);
    if (io_error)
      return moart_internal_fail(MOART_ERR_IO, err, errlen, path,
                                 "read error: %s", strerror(errno));
    return moart_internal_fail(MOART_ERR_TRUNCATED, err, errlen, path,
                               "truncated data: %zu of %lld elements present",
                               have / elem, (long long)head->count);
  }
  if (fgetc(f) != EOF) {
    free(buf);
    return moart_internal_fail(MOART_ERR_TRAILING, err, errlen, path,
                               "trailing bytes after the data");
  }
  status = moart_array_create(out, head->dtype, head->rank, head->shape);
  if (status != MOART_OK) {
    free(buf);
    return moart_internal_fail(status, err, errlen, path,
                               "cannot allocate %zu bytes", want);
  }
  if (want > 0)
    memcpy(out->data, buf, want);
  free(buf);
  if (!moart_internal_little_endian())
    swap_elements((unsigned char *)out->data, (size_t)out->count, elem);
  return MOART_OK;
}

/* The elements of an array whose header (header_size bytes, describing head)
 * has been read from f: checked against the file's size (or, for a pipe,
 * against the bytes that arrive) before anything is allocated. */
moart_status moart_internal_read_data(FILE *f, const char *path, long long size,
                                      long long header_size,
                                      const moart_array *head, moart_array *out,
                                      char *err, size_t errlen) {
  size_t elem = moart_dtype_size(head->dtype), got;
  long long data_size = (long long)head->count * (long long)elem;
  moart_status status;
  if (size >= 0 && size - header_size < data_size)
    return moart_internal_fail(
        MOART_ERR_TRUNCATED, err, errlen, path,
        "truncated data: %lld bytes of elements expected, %lld present",
        data_size, size - header_size);
  if (size >= 0 && size - header_size > data_size)
    return moart_internal_fail(
        MOART_ERR_TRAILING, err, errlen, path,
        "%lld trailing bytes after the %lld bytes of elements",
        size - header_size - data_size, data_size);
  if (size < 0)
    return read_stream(f, path, head, out, err, errlen);
  status = moart_array_create(out, head->dtype, head->rank, head->shape);
  if (status != MOART_OK)
    return moart_internal_fail(status, err, errlen, path,
                               "cannot allocate %lld bytes", data_size);
  got = fread(out->data, elem, (size_t)out->count, f);
  if (got < (size_t)out->count && ferror(f))
    return moart_internal_fail(MOART_ERR_IO, err, errlen, path,
                               "read error: %s", strerror(errno));
  if (got < (size_t)out->count)
    return moart_internal_fail(MOART_ERR_TRUNCATED, err, errlen, path,
                               "truncated data: %zu of %lld elements present",
                               got, (long long)out->count);
  if (fgetc(f) != EOF)
    return moart_internal_fail(MOART_ERR_TRAILING, err, errlen, path,
                               "trailing bytes after the data");
  if (!moart_internal_little_endian())
    swap_elements((unsigned char *)out->data, (size_t)out->count, elem);
  return MOART_OK;
}

static moart_status read_file(FILE *f, const char *path, moart_array *out,
                              char *err, size_t errlen) {
  long long size = moart_internal_file_size(f);
  moart_array head;
  moart_status status;
  memset(&head, 0, sizeof head);
  status = read_header(f, path, &head, err, errlen);
  if (status != MOART_OK)
    return status;
  return moart_internal_read_data(f, path, size, HEADER_FIXED + 8LL * head.rank,
                                  &head, out, err, errlen);
}

moart_status moart_read_array(const char *path, moart_array *out, char *err,
                              size_t errlen) {
  moart_status status;
  FILE *f;
  if (err && errlen > 0)
    err[0] = '\0';
  if (!out)
    return moart_internal_fail(MOART_ERR_ARG, err, errlen, path,
                               "no output array given");
  memset(out, 0, sizeof *out);
  if (!path)
    return moart_internal_fail(MOART_ERR_ARG, err, errlen, path,
                               "no path given");
  f = fopen(path, "rb");
  if (!f)
    return moart_internal_fail(MOART_ERR_IO, err, errlen, path,
                               "cannot open: %s", strerror(errno));
  status = moart_internal_is_npy_path(path)
               ? moart_internal_read_npy(f, path, out, err, errlen)
               : read_file(f, path, out, err, errlen);
  fclose(f);
  if (status != MOART_OK)
    moart_array_free(out);
  return status;
}
