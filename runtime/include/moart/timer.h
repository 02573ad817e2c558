/* moart/timer.h - a monotonic wall clock for benchmark drivers.
 *
 * Seconds since an arbitrary fixed point (CLOCK_MONOTONIC): only differences
 * between two readings mean anything. Tests never use it - speed lives in
 * benchmarks. */
#ifndef MOART_TIMER_H
#define MOART_TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

double moart_now_seconds(void);

#ifdef __cplusplus
}
#endif

#endif /* MOART_TIMER_H */
