/* npy.c - NumPy's .npy files (format 1.0, 2.0 and 3.0; docs/runtime.md).
 *
 * A .npy file is the magic "\x93NUMPY", a major and a minor version byte, the
 * length of the header (u16 little-endian in 1.0, u32 in 2.0 and 3.0), the
 * header - a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * padded with spaces and a newline to a multiple of 64 bytes - and the
 * elements. Only what a moart_array is can be read: little-endian f4, f8, f2,
 * u2 (bf16 bit patterns), i8 and i4 in C (row-major) order. Everything else is refused with a message that
 * says how to save it from numpy. The dict is parsed strictly, as numpy's own
 * reader does: the three keys, each once, and nothing else. */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_SIZE 6
#define NPY_ALIGN 64             /* numpy pads the header to this */
#define NPY_MAX_HEADER (1 << 16) /* far more than 8 extents need */

static const char *descr_of(moart_dtype dtype) {
  /* numpy has no bfloat16: a bf16 array is its bit patterns, '<u2' (docs/runtime.md) */
  return dtype == MOART_F32    ? "<f4"
         : dtype == MOART_F64  ? "<f8"
         : dtype == MOART_F16  ? "<f2"
         : dtype == MOART_BF16 ? "<u2"
         : dtype == MOART_I32  ? "<i4"
                               : "<i8";
}

moart_status moart_internal_write_npy(FILE *f, const moart_array *a) {
  char header[512], prefix[10];
  int used, k;
  size_t total;
  used = snprintf(header, sizeof header,
                  "{'descr': '%s', 'fortran_order': False, 'shape': (",
                  descr_of(a->dtype));
  for (k = 0; k < a->rank; ++k)
    used += snprintf(header + used, sizeof header - (size_t)used, "%s%lld",
                     k ? ", " : "", (long long)a->shape[k]);
  used += snprintf(header + used, sizeof header - (size_t)used, "%s), }",
                   a->rank == 1 ? "," : "");
  /* spaces, then the newline, up to the next multiple of 64 bytes */
  total = ((10 + (size_t)used + 1 + NPY_ALIGN - 1) / NPY_ALIGN) * NPY_ALIGN;
  while (10 + (size_t)used + 1 < total)
    header[used++] = ' ';
  header[used++] = '\n';
  memcpy(prefix, NPY_MAGIC, NPY_MAGIC_SIZE);
  prefix[6] = 1;
  prefix[7] = 0;
  prefix[8] = (char)(used & 0xff);
  prefix[9] = (char)(used >> 8);
  if (fwrite(prefix, 1, 10, f) != 10 ||
      fwrite(header, 1, (size_t)used, f) != (size_t)used ||
      !moart_internal_write_elements(f, (const unsigned char *)a->data,
                                     (size_t)a->count,
                                     moart_dtype_size(a->dtype)))
    return MOART_ERR_IO;
  return MOART_OK;
}

/* A cursor over the header's dict literal. */
typedef struct cursor {
  const char *p, *end;
} cursor;

static void skip_space(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n'))
    ++c->p;
}

/* Consume character ch (after spaces); 1 if it was there. */
static int eat(cursor *c, char ch) {
  skip_space(c);
  if (c->p < c->end && *c->p == ch) {
    ++c->p;
    return 1;
  }
  return 0;
}

/* A quoted string ('…' or "…", no escapes) into out; 1 on success. */
static int parse_string(cursor *c, char *out, size_t size) {
  char quote;
  size_t n = 0;
  skip_space(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return 0;
  quote = *c->p++;
  while (c->p < c->end && *c->p != quote && *c->p != '\\') {
    if (n + 1 < size)
      out[n++] = *c->p;
    ++c->p;
  }
  out[n] = '\0';
  if (c->p >= c->end || *c->p != quote)
    return 0;
  ++c->p;
  return 1;
}

/* The shape tuple "(2, 3)", "(3,)" or "()"; on failure a status and why. */
static moart_status parse_shape(cursor *c, moart_array *head,
                                const char **why) {
  int rank = 0;
  if (!eat(c, '(')) {
    *why = "the shape is not a tuple";
    return MOART_ERR_MAGIC;
  }
  while (!eat(c, ')')) {
    unsigned long long extent = 0;
    int digits = 0;
    skip_space(c);
    while (c->p < c->end && isdigit((unsigned char)*c->p)) {
      unsigned d = (unsigned)(*c->p++ - '0');
      if (extent > ((unsigned long long)INT64_MAX - d) / 10) {
        *why = "an extent exceeds int64";
        return MOART_ERR_OVERFLOW;
      }
      extent = extent * 10 + d;
      ++digits;
    }
    if (c->p < c->end && *c->p == 'L') /* Python 2's long */
      ++c->p;
    if (digits == 0) {
      *why = "an extent is not a non-negative integer";
      return MOART_ERR_MAGIC;
    }
    if (rank == MOART_MAX_RANK) {
      *why = "the rank exceeds the maximum of 8";
      return MOART_ERR_RANK;
    }
    head->shape[rank++] = (int64_t)extent;
    if (!eat(c, ',')) {
      if (!eat(c, ')')) {
        *why = "the shape tuple is malformed";
        return MOART_ERR_MAGIC;
      }
      break;
    }
  }
  head->rank = rank;
  return MOART_OK;
}

/* The dtype named by descr, or a refusal saying how to save the array. */
static moart_status dtype_of(const char *descr, moart_dtype *dtype,
                             const char *path, char *err, size_t errlen) {
  static const char *const names[] = {"<f4", "<f8", "<i8",
                                      "<f2", "<u2", "<i4"};
  static const moart_dtype dtypes[] = {MOART_F32, MOART_F64, MOART_I64,
                                       MOART_F16, MOART_BF16, MOART_I32};
  size_t k;
  for (k = 0; k < 6; ++k)
    if (strcmp(descr, names[k]) == 0) {
      *dtype = dtypes[k];
      return MOART_OK;
    }
  if (descr[0] == '>' &&
      (strcmp(descr + 1, "f4") == 0 || strcmp(descr + 1, "f8") == 0 ||
       strcmp(descr + 1, "i8") == 0 || strcmp(descr + 1, "f2") == 0 ||
       strcmp(descr + 1, "u2") == 0 || strcmp(descr + 1, "i4") == 0))
    return moart_internal_fail(
        MOART_ERR_DTYPE, err, errlen, path,
        "big-endian data ('%s') is not supported: save a.astype('<%s')", descr,
        descr + 1);
  return moart_internal_fail(
      MOART_ERR_DTYPE, err, errlen, path,
      "dtype '%s' is not supported (expected '<f4', '<f8', '<i8', '<i4', '<f2' "
      "or '<u2': float32, float64, int64, int32, float16 or bfloat16 bit "
      "patterns)",
      descr);
}

/* The dict literal: 'descr', 'fortran_order' and 'shape', each once. */
static moart_status parse_dict(cursor *c, moart_array *head, const char *path,
                               char *err, size_t errlen) {
  char key[32], descr[64] = "";
  int seen[3] = {0, 0, 0}, fortran = 0;
  const char *why = NULL;
  moart_status status;
  if (!eat(c, '{'))
    return moart_internal_fail(MOART_ERR_MAGIC, err, errlen, path,
                               "malformed .npy header: not a dict");
  while (!eat(c, '}')) {
    int which;
    if (!parse_string(c, key, sizeof key) || !eat(c, ':'))
      return moart_internal_fail(
          MOART_ERR_MAGIC, err, errlen, path,
          "malformed .npy header: expected 'key': value");
    which = strcmp(key, "descr") == 0           ? 0
            : strcmp(key, "fortran_order") == 0 ? 1
            : strcmp(key, "shape") == 0         ? 2
                                                : -1;
    if (which < 0 || seen[which]++)
      return moart_internal_fail(MOART_ERR_MAGIC, err, errlen, path,
                                 "malformed .npy header: %s key '%s'",
                                 which < 0 ? "unexpected" : "repeated", key);
    skip_space(c);
    if (which == 0 && !parse_string(c, descr, sizeof descr))
      return moart_internal_fail(
          MOART_ERR_DTYPE, err, errlen, path,
          "structured dtypes are not supported (expected '<f4', '<f8', '<i8', "
          "'<i4', '<f2' or '<u2')");
    if (which == 1) {
      size_t t = (size_t)(c->end - c->p);
      fortran = t >= 4 && strncmp(c->p, "True", 4) == 0;
      if (!fortran && !(t >= 5 && strncmp(c->p, "False", 5) == 0))
        return moart_internal_fail(
            MOART_ERR_MAGIC, err, errlen, path,
            "malformed .npy header: fortran_order is not True or False");
      c->p += fortran ? 4 : 5;
    }
    if (which == 2 && (status = parse_shape(c, head, &why)) != MOART_OK)
      return moart_internal_fail(status, err, errlen, path,
                                 "malformed .npy header: %s", why);
    if (!eat(c, ',')) {
      if (!eat(c, '}'))
        return moart_internal_fail(
            MOART_ERR_MAGIC, err, errlen, path,
            "malformed .npy header: expected ',' or '}'");
      break;
    }
  }
  skip_space(c);
  if (c->p != c->end || !seen[0] || !seen[1] || !seen[2])
    return moart_internal_fail(
        MOART_ERR_MAGIC, err, errlen, path, "malformed .npy header: %s",
        c->p != c->end ? "bytes after the dict"
                       : "it lacks 'descr', 'fortran_order' or 'shape'");
  if ((status = dtype_of(descr, &head->dtype, path, err, errlen)) != MOART_OK)
    return status;
  /* Of rank 0 and 1 both orders are the same bytes. */
  if (fortran && head->rank > 1)
    return moart_internal_fail(MOART_ERR_LAYOUT, err, errlen, path,
                               "fortran_order arrays are not supported: save "
                               "np.ascontiguousarray(a)");
  return MOART_OK;
}

/* The magic, the version and the header's length; header_len and the size of
 * the prefix before the header. */
static moart_status read_prefix(FILE *f, const char *path, size_t *header_len,
                                long long *prefix_size, char *err,
                                size_t errlen) {
  unsigned char prefix[12];
  size_t got = fread(prefix, 1, 8, f), width, k;
  if (got < 8 && ferror(f))
    return moart_internal_fail(MOART_ERR_IO, err, errlen, path,
                               "read error: %s", strerror(errno));
  if (got < NPY_MAGIC_SIZE || memcmp(prefix, NPY_MAGIC, NPY_MAGIC_SIZE) != 0)
    return moart_internal_fail(MOART_ERR_MAGIC, err, errlen, path,
                               "not a .npy file (bad magic)");
  if (got < 8)
    return moart_internal_fail(MOART_ERR_TRUNCATED, err, errlen, path,
                               "truncated header: %zu of 10 bytes", got);
  if (prefix[6] < 1 || prefix[6] > 3 || prefix[7] != 0)
    return moart_internal_fail(
        MOART_ERR_VERSION, err, errlen, path,
        "unsupported .npy version %u.%u (expected 1.0, 2.0 or 3.0)", prefix[6],
        prefix[7]);
  width = prefix[6] == 1 ? 2 : 4;
  got = fread(prefix + 8, 1, width, f);
  if (got < width)
    return moart_internal_fail(MOART_ERR_TRUNCATED, err, errlen, path,
                               "truncated header: %zu of %zu bytes", 8 + got,
                               8 + width);
  *header_len = 0;
  for (k = width; k > 0; --k)
    *header_len = (*header_len << 8) | prefix[8 + k - 1];
  *prefix_size = 8 + (long long)width;
  if (*header_len > NPY_MAX_HEADER)
    return moart_internal_fail(MOART_ERR_MAGIC, err, errlen, path,
                               "malformed .npy header: %zu bytes long",
                               *header_len);
  return MOART_OK;
}

moart_status moart_internal_read_npy(FILE *f, const char *path,
                                     moart_array *out, char *err,
                                     size_t errlen) {
  long long size = moart_internal_file_size(f), prefix_size = 0;
  size_t header_len = 0, got;
  moart_array head;
  moart_status status;
  char *text;
  cursor c;
  memset(&head, 0, sizeof head);
  status = read_prefix(f, path, &header_len, &prefix_size, err, errlen);
  if (status != MOART_OK)
    return status;
  text = malloc(header_len + 1);
  if (!text)
    return moart_internal_fail(MOART_ERR_NOMEM, err, errlen, path,
                               "cannot allocate %zu bytes", header_len + 1);
  got = fread(text, 1, header_len, f);
  if (got < header_len) {
    free(text);
    return moart_internal_fail(MOART_ERR_TRUNCATED, err, errlen, path,
                               "truncated header: %zu of %zu bytes", got,
                               header_len);
  }
  c.p = text;
  c.end = text + header_len;
  status = parse_dict(&c, &head, path, err, errlen);
  free(text);
  if (status != MOART_OK)
    return status;
  if (moart_shape_count(head.rank, head.shape, moart_dtype_size(head.dtype),
                        &head.count) != MOART_OK)
    return moart_internal_fail(
        MOART_ERR_OVERFLOW, err, errlen, path,
        "extents overflow: the byte size of the elements exceeds int64");
  return moart_internal_read_data(f, path, size,
                                  prefix_size + (long long)header_len, &head,
                                  out, err, errlen);
}
