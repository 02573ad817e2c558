// moart_maxf and moart_minf on a CUDA device against the same functions on the host (moart/kernel.h):
// the device takes a branch-free path, the host the branches; for every pair of the values below (±0,
// ±Inf, NaNs of both signs and two payloads, subnormals, ±1, ±FLT_MAX) they must give the same bits, a
// NaN result only as a NaN (a + b: its payload is the device's and the host's own choice).
// Exit 0: all agree; 1: a mismatch (printed); 77: no CUDA device here (built, not run).
//   nvcc -std=c++17 -I runtime/include tests/cuda/extrema.cu -o extrema && ./extrema
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

#include "moart/kernel.h"

namespace {

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

__global__ void extrema(const float *values, int count, float *maxima, float *minima) {
  const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= count * count)
    return;
  const float a = values[i / count], b = values[i % count];
  maxima[i] = moart_maxf(a, b);
  minima[i] = moart_minf(a, b);
}

} // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device here: built, not run\n");
    return 77;
  }
  const float values[] = {0.0f, -0.0f, INFINITY, -INFINITY, fromBits(0x7fc00000u), fromBits(0xffc00000u),
                          fromBits(0x7f800001u), fromBits(0x00000001u), fromBits(0x80000001u), FLT_MIN,
                          1.0f, -1.0f, 1.5f, FLT_MAX, -FLT_MAX};
  const int count = (int)(sizeof values / sizeof values[0]), pairs = count * count;
  float *device = nullptr;
  if (cudaMalloc(&device, sizeof(float) * (size_t)(count + 2 * pairs)) != cudaSuccess)
    return 1;
  float maxima[sizeof values / sizeof values[0] * sizeof values / sizeof values[0]];
  float minima[sizeof maxima / sizeof maxima[0]];
  cudaMemcpy(device, values, sizeof values, cudaMemcpyHostToDevice);
  extrema<<<(pairs + 127) / 128, 128>>>(device, count, device + count, device + count + pairs);
  if (cudaMemcpy(maxima, device + count, sizeof maxima, cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(minima, device + count + pairs, sizeof minima, cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::printf("FAIL: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  cudaFree(device);
  int failures = 0;
  for (int i = 0; i < pairs; ++i) {
    const float a = values[i / count], b = values[i % count];
    const float host[2] = {moart_maxf(a, b), moart_minf(a, b)}, got[2] = {maxima[i], minima[i]};
    for (int f = 0; f < 2; ++f) {
      const bool same = std::isnan(host[f]) ? std::isnan(got[f]) : bitsOf(host[f]) == bitsOf(got[f]);
      if (!same && ++failures <= 10)
        std::printf("FAIL: moart_%s(%08x, %08x): device %08x, host %08x\n", f ? "minf" : "maxf", bitsOf(a), bitsOf(b),
                    bitsOf(got[f]), bitsOf(host[f]));
    }
  }
  std::printf("%s: %d pairs, %d mismatches\n", failures ? "FAIL" : "PASS", pairs, failures);
  return failures ? 1 : 0;
}
