/* status.c - the text of each moart_status code. */
#include "moart/status.h"

const char *moart_status_string(moart_status status) {
  switch (status) {
  case MOART_OK:
    return "ok";
  case MOART_ERR_ARG:
    return "invalid argument";
  case MOART_ERR_NOMEM:
    return "out of memory";
  case MOART_ERR_OVERFLOW:
    return "size overflow";
  case MOART_ERR_DTYPE:
    return "unknown or unsupported dtype";
  case MOART_ERR_RANK:
    return "rank out of range";
  case MOART_ERR_LAYOUT:
    return "unsupported layout";
  case MOART_ERR_SHAPE:
    return "shape guard failed";
  case MOART_ERR_IO:
    return "i/o error";
  case MOART_ERR_MAGIC:
    return "not a .moarr or .npy file";
  case MOART_ERR_VERSION:
    return "unsupported .moarr or .npy version";
  case MOART_ERR_TRUNCATED:
    return "truncated file";
  case MOART_ERR_TRAILING:
    return "trailing bytes after data";
  case MOART_ERR_DEVICE:
    return "accelerator unavailable";
  case MOART_ERR_TOLERANCE:
    return "result outside tolerance";
  }
  return "unknown status";
}
