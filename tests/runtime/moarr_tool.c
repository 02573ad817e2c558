/* moarr_tool.c - a command-line driver of libmoart for the Python cross-check
 * (test_moarr_py.sh). Commands:
 *   fill PATH DTYPE SEED STREAM [EXTENT...]  write moart_fill_uniform's array
 *   check-fill PATH SEED STREAM              does PATH hold exactly that fill?
 *   print PATH NAME                          moart_print_array of PATH
 * Exit status: 0 ok, 1 check failed, 2 usage or file error. */
#include "moart/moart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void) {
  fprintf(stderr,
          "usage: moarr_tool fill PATH f32|f64|i64|i32|bf16|f16 SEED STREAM "
          "[EXTENT...]\n"
          "       moarr_tool check-fill PATH SEED STREAM\n"
          "       moarr_tool print PATH NAME\n");
  return 2;
}

static int parse_dtype(const char *name, moart_dtype *dtype) {
  moart_dtype all[6] = {MOART_F32, MOART_F64, MOART_I64,
                        MOART_BF16, MOART_F16, MOART_I32};
  int k;
  for (k = 0; k < 6; ++k)
    if (strcmp(name, moart_dtype_name(all[k])) == 0) {
      *dtype = all[k];
      return 1;
    }
  return 0;
}

static int report(moart_status status, const char *what) {
  fprintf(stderr, "moarr_tool: %s: %s\n", what, moart_status_string(status));
  return 2;
}

static int fill(int argc, char **argv) {
  int64_t shape[MOART_MAX_RANK];
  moart_array a;
  moart_dtype dtype;
  moart_status status;
  int k, rank = argc - 6;
  if (argc < 6 || rank > MOART_MAX_RANK || !parse_dtype(argv[3], &dtype))
    return usage();
  for (k = 0; k < rank; ++k)
    shape[k] = strtoll(argv[6 + k], NULL, 10);
  status = moart_array_create(&a, dtype, rank, shape);
  if (status == MOART_OK)
    status = moart_fill_uniform(&a, strtoull(argv[4], NULL, 0),
                                strtoull(argv[5], NULL, 0));
  if (status == MOART_OK)
    status = moart_write_array(argv[2], &a);
  moart_array_free(&a);
  return status == MOART_OK ? 0 : report(status, argv[2]);
}

static int check_fill(int argc, char **argv) {
  moart_array got, want;
  moart_status status;
  char err[512];
  int same;
  if (argc != 5)
    return usage();
  status = moart_read_array(argv[2], &got, err, sizeof err);
  if (status != MOART_OK) {
    fprintf(stderr, "moarr_tool: %s\n", err);
    return 2;
  }
  status = moart_array_create(&want, got.dtype, got.rank, got.shape);
  if (status == MOART_OK)
    status = moart_fill_uniform(&want, strtoull(argv[3], NULL, 0),
                                strtoull(argv[4], NULL, 0));
  if (status != MOART_OK) {
    moart_array_free(&got);
    return report(status, argv[2]);
  }
  same = memcmp(got.data, want.data, moart_array_bytes(&got)) == 0;
  if (!same)
    fprintf(stderr, "moarr_tool: %s differs from the C fill\n", argv[2]);
  moart_array_free(&got);
  moart_array_free(&want);
  return same ? 0 : 1;
}

static int print(int argc, char **argv) {
  moart_array a;
  moart_status status;
  char err[512];
  if (argc != 4)
    return usage();
  status = moart_read_array(argv[2], &a, err, sizeof err);
  if (status != MOART_OK) {
    fprintf(stderr, "moarr_tool: %s\n", err);
    return 2;
  }
  status = moart_print_array(stdout, &a, argv[3]);
  moart_array_free(&a);
  return status == MOART_OK ? 0 : report(status, argv[2]);
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "fill") == 0)
    return fill(argc, argv);
  if (argc >= 3 && strcmp(argv[1], "check-fill") == 0)
    return check_fill(argc, argv);
  if (argc >= 3 && strcmp(argv[1], "print") == 0)
    return print(argc, argv);
  return usage();
}
