/* A user's program calling moa_order (tests/names/order.moa) by the names its header gives the
 * parameters: MOA_WORKSPACE_BYTES and MOA_CALL (call.h) are those calls, written from the header's
 * prototypes by c_caller.py, so a header whose names do not say what each parameter carries gives a
 * wrong result here. */
#include <stdlib.h>

#include "caller_support.h"
#include "order.h"

#include "call.h"

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  const int64_t h2 = 3, h = 5; /* x is h2 × h, y has h elements */
  moart_array xin = read_array(argv[1], "x"), want = read_array(argv[1], "y");
  const float *x = (const float *)xin.data;
  float y[5];
  void *workspace = moart_alloc_aligned(MOA_WORKSPACE_BYTES + 64);
  int status = MOA_CALL;
  if (status != 0)
    return fprintf(stderr, "kernel: %s\n", moart_status_string((moart_status)status)), 1;
  int bad = compare("y", y, &want);
  moart_free_aligned(workspace);
  moart_array_free(&xin);
  moart_array_free(&want);
  return bad != 0;
}
