/* print.c - a readable, stable text dump of an array for golden files and
 * debugging: "name : f32[2, 3]", then one row of the last axis per line. */
#include "moart/io.h"

#include "moart/kernel.h"

#include <inttypes.h>

static void print_element(FILE *stream, const moart_array *a, int64_t at) {
  switch (a->dtype) {
  case MOART_F32:
    fprintf(stream, "%.9g", (double)((const float *)a->data)[at]);
    break;
  case MOART_F64:
    fprintf(stream, "%.17g", ((const double *)a->data)[at]);
    break;
  case MOART_I64:
    fprintf(stream, "%" PRId64, ((const int64_t *)a->data)[at]);
    break;
  case MOART_I32:
    fprintf(stream, "%" PRId32, ((const int32_t *)a->data)[at]);
    break;
  case MOART_BF16: /* every bf16 and f16 value is printed exactly in 9 digits */
    fprintf(stream, "%.9g",
            (double)moart_bf16_to_f32(((const uint16_t *)a->data)[at]));
    break;
  case MOART_F16:
    fprintf(stream, "%.9g",
            (double)moart_f16_to_f32(((const uint16_t *)a->data)[at]));
    break;
  }
}

moart_status moart_print_array(FILE *stream, const moart_array *array,
                               const char *name) {
  int64_t row, i;
  int k;
  if (!stream || !array || (!array->data && array->count))
    return MOART_ERR_ARG;
  if (moart_dtype_size(array->dtype) == 0)
    return MOART_ERR_DTYPE;
  if (array->rank < 0 || array->rank > MOART_MAX_RANK)
    return MOART_ERR_RANK;
  if (moart_array_storage_count(array) < 0)
    return MOART_ERR_LAYOUT;
  fprintf(stream, "%s : %s[", name ? name : "array",
          moart_dtype_name(array->dtype));
  for (k = 0; k < array->rank; ++k)
    fprintf(stream, "%s%" PRId64, k ? ", " : "", array->shape[k]);
  fputs("]\n", stream);
  row = array->rank ? array->shape[array->rank - 1] : 1;
  for (i = 0; i < array->count; ++i) {
    print_element(stream, array, moart_array_offset(array, i));
    fputc(i % row == row - 1 ? '\n' : ' ', stream);
  }
  return ferror(stream) ? MOART_ERR_IO : MOART_OK;
}
