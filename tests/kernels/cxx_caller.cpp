// A C++17 program calling two kernels of one program, dsl-examples/decode.moa, built for target c with
// --name=decode_c and for openmp with --name=decode_omp and linked together: both headers are included
// (extern "C", MOART_RESTRICT defined once for both), each kernel is compared with
// softmax(q·Kᵀ/√dk)·V computed here in double. Without distinct names the two would be one symbol.
#include "decode_c.h"
#include "decode_omp.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Kernel = int (*)(int64_t, int64_t, int64_t, const float *, const float *, const float *, float *, void *);
using Workspace = size_t (*)(int64_t, int64_t, int64_t);

// The value the kernels must give, in double.
std::vector<double> attention(int64_t n, int64_t dk, int64_t dv, const std::vector<float> &q,
                              const std::vector<float> &K, const std::vector<float> &V) {
  std::vector<double> s(n), o(dv, 0.0);
  double m = -INFINITY, sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double dot = 0;
    for (int64_t j = 0; j < dk; ++j)
      dot += double(q[j]) * K[i * dk + j];
    s[i] = dot / std::sqrt(double(dk));
    m = std::fmax(m, s[i]);
  }
  for (int64_t i = 0; i < n; ++i)
    sum += s[i] = std::exp(s[i] - m);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < dv; ++j)
      o[j] += s[i] / sum * V[i * dv + j];
  return o;
}

bool run(const char *name, Kernel kernel, Workspace bytes, int64_t n, int64_t dk, int64_t dv) {
  std::vector<float> q(dk), K(n * dk), V(n * dv), o(dv);
  unsigned state = 12345;
  auto next = [&] { return float((state = state * 1103515245u + 12345u) >> 8) / float(1 << 24) - 0.5f; };
  for (auto *a : {&q, &K, &V})
    for (float &x : *a)
      x = next();
  std::vector<unsigned char> storage(bytes(n, dk, dv) + 64);
  void *workspace = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  if (int status = kernel(n, dk, dv, q.data(), K.data(), V.data(), o.data(), workspace); status != 0) {
    std::printf("FAIL %s: status %d\n", name, status);
    return false;
  }
  std::vector<double> want = attention(n, dk, dv, q, K, V);
  double err = 0;
  for (int64_t j = 0; j < dv; ++j)
    err = std::fmax(err, std::fabs(o[j] - want[j]));
  const bool ok = err <= 1e-5;
  std::printf("%s %s n=%lld dk=%lld dv=%lld: max error %.2e\n", ok ? "ok  " : "FAIL", name, (long long)n,
              (long long)dk, (long long)dv, err);
  return ok;
}

} // namespace

int main() {
  bool ok = run("decode_c", decode_c, decode_c_workspace_bytes, 1000, 64, 48);
  ok = run("decode_omp", decode_omp, decode_omp_workspace_bytes, 4096, 32, 16) && ok;
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
