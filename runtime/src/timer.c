/* timer.c - monotonic wall-clock seconds for benchmark drivers. */
#define _POSIX_C_SOURCE 200809L

#include "moart/timer.h"

#include <time.h>

double moart_now_seconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
