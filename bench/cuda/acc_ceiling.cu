// The read-only ceiling for the OpenACC benchmarks on an NVIDIA GPU (bench/run --offload=nvptx): the
// 16-byte streaming kernel of ceiling.cu run on the device copy of the drivers' stream buffer, which
// libgomp allocated in the same CUDA context (bench_device_init makes the primary context current before
// libgomp starts, and GCC's nvptx plugin then uses the context it finds). An OpenACC `reduction(^)` loop
// read the same bytes at 150 GB/s on an H200, a thirtieth of what the memory gives, so it could not serve
// as the ceiling there.
#include "ceiling.cu"

extern "C" int bench_device_init(void) { return cudaFree(0) == cudaSuccess ? 0 : 1; }

// Reads `bytes` (a multiple of 16) of device memory at `data` once; returns the seconds it took (CUDA
// events around the kernel), or -1.
extern "C" double bench_device_read(const void *data, int64_t bytes) {
  static float *sink;
  static cudaEvent_t start, stop;
  if (!sink && (cudaMalloc(&sink, sizeof(float)) != cudaSuccess || cudaEventCreate(&start) != cudaSuccess ||
                cudaEventCreate(&stop) != cudaSuccess))
    return -1;
  float ms = 0;
  if (cudaEventRecord(start, 0) != cudaSuccess || bench_read(data, bytes, sink, 0) ||
      cudaEventRecord(stop, 0) != cudaSuccess || cudaEventSynchronize(stop) != cudaSuccess ||
      cudaEventElapsedTime(&ms, start, stop) != cudaSuccess)
    return -1;
  return ms * 1e-3;
}
