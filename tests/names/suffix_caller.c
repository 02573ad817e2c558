/* A user's program calling moa_suffix (tests/names/suffix.moa: dims h2, h, x1 and inputs x, w) by the
 * names its header gives the parameters, as order_caller.c does. */
#include <stdlib.h>

#include "caller_support.h"
#include "suffix.h"

#include "call.h"

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  const int64_t h2 = 3, h = 5, x1 = 4; /* x is h2 × h, w has x1 elements, y has h */
  moart_array xin = read_array(argv[1], "x"), win = read_array(argv[1], "w"), want = read_array(argv[1], "y");
  const float *x = (const float *)xin.data, *w = (const float *)win.data;
  float y[5];
  void *workspace = moart_alloc_aligned(MOA_WORKSPACE_BYTES + 64);
  int status = MOA_CALL;
  if (status != 0)
    return fprintf(stderr, "kernel: %s\n", moart_status_string((moart_status)status)), 1;
  int bad = compare("y", y, &want);
  moart_free_aligned(workspace);
  moart_array_free(&xin);
  moart_array_free(&win);
  moart_array_free(&want);
  return bad != 0;
}
