/* Links against the CUDA kernel moac generated at build time (tests/consumer-cuda/CMakeLists.txt). Prints
 * the workspace size of decode at n = 4096, dk = dv = 64; with the argument `run` and a CUDA device, runs
 * the kernel on ones (every output is then 1) and checks it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "decode.h"

int main(int argc, char **argv) {
  const int64_t n = 4096, dk = 64, dv = 64;
  size_t bytes = moa_decode_workspace_bytes(n, dk, dv);
  if (bytes == SIZE_MAX) {
    fprintf(stderr, "decode-cuda-link: the kernel refuses n=4096, dk=dv=64\n");
    return 1;
  }
  printf("workspace %zu bytes\n", bytes);
  if (argc < 2 || strcmp(argv[1], "run") != 0)
    return 0;
  float *q, *K, *V, *o, *ws;
  float host[64];
  if (cudaMalloc((void **)&q, dk * 4) || cudaMalloc((void **)&K, n * dk * 4) || cudaMalloc((void **)&V, n * dv * 4) ||
      cudaMalloc((void **)&o, dv * 4) || cudaMalloc((void **)&ws, bytes ? bytes : 64))
    return 77;
  cudaMemset(q, 0, dk * 4);
  cudaMemset(K, 0, n * dk * 4);
  for (int i = 0; i < 64; ++i)
    host[i] = 1.0f;
  for (int64_t r = 0; r < n; ++r)
    cudaMemcpy(V + r * dv, host, dv * 4, cudaMemcpyHostToDevice);
  if (moa_decode(n, dk, dv, q, K, V, o, ws, 0) != 0 || cudaDeviceSynchronize() != cudaSuccess)
    return 1;
  cudaMemcpy(host, o, dv * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    if (fabsf(host[i] - 1.0f) > 1e-6f) {
      fprintf(stderr, "o[%d] = %g, not 1\n", i, host[i]);
      return 1;
    }
  printf("ran: o = 1\n");
  return 0;
}
