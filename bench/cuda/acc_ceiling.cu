// The read-only ceiling for the OpenACC benchmarks on an NVIDIA GPU (bench/run --offload=nvptx): the
// 16-byte streaming kernel of ceiling.cu run on the device copy of the drivers' stream buffer, which
// libgomp allocated in the same CUDA context (bench_device_init makes the primary context current before
// libgomp starts, and GCC's nvptx plugin then uses the context it finds). An OpenACC `reduction(^)` loop
// read the same bytes at 150 GB/s on an H200, a thirtieth of what the memory gives, so it could not serve
// as the ceiling there.
#include "ceiling.cu"

extern "C" int bench_device_init(void) { return cudaFree(0) == cudaSuccess ? 0 : 1; }

// Reads `bytes` (a multiple of 16) of device memory at `data` once and waits for it.
extern "C" int bench_device_read(const void *data, int64_t bytes) {
  static float *sink;
  if (!sink && cudaMalloc(&sink, sizeof(float)) != cudaSuccess)
    return 1;
  if (bench_read(data, bytes, sink, 0))
    return 1;
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
