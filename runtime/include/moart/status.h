/* moart/status.h - status codes shared by the runtime and by generated kernels.
 *
 * Every fallible moart_ function returns a moart_status; generated kernels
 * return one too (MOART_ERR_SHAPE when a run-time shape guard fails). The
 * numeric values are part of the ABI: they never change, new codes are
 * appended. */
#ifndef MOART_STATUS_H
#define MOART_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum moart_status {
  MOART_OK = 0,
  MOART_ERR_ARG = 1,   /* NULL pointer or argument out of range */
  MOART_ERR_NOMEM = 2, /* allocation failed */
  MOART_ERR_OVERFLOW =
      3,               /* element count or byte size overflows int64/size_t */
  MOART_ERR_DTYPE = 4, /* unknown or unsupported element type */
  MOART_ERR_RANK = 5,  /* rank outside 0..MOART_MAX_RANK */
  MOART_ERR_LAYOUT =
      6, /* layout not usable here (e.g. lifted rank 0, block < 1) */
  MOART_ERR_SHAPE = 7,      /* run-time shape guard failed: extents disagree */
  MOART_ERR_IO = 8,         /* open, read, write or close failed */
  MOART_ERR_MAGIC = 9,      /* not a .moarr file */
  MOART_ERR_VERSION = 10,   /* .moarr file of an unsupported version */
  MOART_ERR_TRUNCATED = 11, /* file ends before the header or the data does */
  MOART_ERR_TRAILING = 12,  /* bytes after the last element */
  MOART_ERR_DEVICE = 13,    /* accelerator missing or offload failed */
  MOART_ERR_TOLERANCE = 14  /* result outside the error tolerance */
} moart_status;

/* A short lower-case description ("shape guard failed"); never NULL. */
const char *moart_status_string(moart_status status);

#ifdef __cplusplus
}
#endif

#endif /* MOART_STATUS_H */
