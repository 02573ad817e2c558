// The dsl-examples, evaluated by the reference interpreter, against attention written out as plain
// loops: softmax(q·Kᵀ/√dk)·V with the textbook max-shifted softmax. Both run in double precision (the
// interpreter's exact evaluation, InterpretOptions::exactFloats, since the examples' inputs are f32) and
// differ only in rounding: each output is a sum of n terms p_l·v with 0 ≤ p_l ≤ 1, |v| < 1, after a dot
// product of dk terms, so the two agree to a few (n + dk)·ε.
#include "Interp.h"

#include <cfloat>
#include <cmath>

using namespace moac;
using namespace moac::test;

namespace {

const InterpretOptions exact{true};

// Deterministic data in (-1, 1), different for each array.
NDArray data(std::vector<int64_t> shape, double phase) {
  NDArray a{std::move(shape), {}};
  int64_t n = 1;
  for (int64_t s : a.shape)
    n *= s;
  for (int64_t i = 0; i < n; ++i)
    a.data.push_back(std::sin(1.7 * double(i) + phase) * 0.9);
  return a;
}

// o[v] = Σ_l softmax(s)_l V[l v], s_l = Σ_j q[j] K[l j] / √dk; q, K, V as flat row-major pointers.
std::vector<double> attend(const double *q, const double *K, const double *V, int n, int dk, int dv) {
  std::vector<double> s(size_t(n), 0.0);
  double mx = -INFINITY;
  for (int l = 0; l < n; ++l) {
    for (int j = 0; j < dk; ++j)
      s[size_t(l)] += q[j] * K[l * dk + j];
    s[size_t(l)] /= std::sqrt(double(dk));
    mx = std::max(mx, s[size_t(l)]);
  }
  double z = 0;
  for (int l = 0; l < n; ++l)
    z += std::exp(s[size_t(l)] - mx);
  std::vector<double> o(size_t(dv), 0.0);
  for (int l = 0; l < n; ++l)
    for (int v = 0; v < dv; ++v)
      o[size_t(v)] += std::exp(s[size_t(l)] - mx) / z * V[l * dv + v];
  return o;
}

void requireClose(const std::vector<double> &got, const std::vector<double> &want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(std::fabs(got[i] - want[i]) <= tol);
  }
}

} // namespace

TEST_CASE("decode attention matches softmax(q Kt / sqrt dk) V", "[interp][attention]") {
  const int n = 5, dk = 3, dv = 2;
  NDArray q = data({dk}, 0.1), K = data({n, dk}, 0.7), V = data({n, dv}, 1.3);
  NDArray o = run(readFile(MOAC_EXAMPLES_DIR "/decode.moa"), dims({{"n", n}, {"dk", dk}, {"dv", dv}}), {q, K, V},
                  exact);
  REQUIRE(o.shape == std::vector<int64_t>{dv});
  requireClose(o.data, attend(q.data.data(), K.data.data(), V.data.data(), n, dk, dv), 8 * (n + dk) * DBL_EPSILON);
}

TEST_CASE("grouped-query attention reads KV head g*hkv div hq for query head g", "[interp][attention]") {
  const int B = 2, hq = 4, n = 5, dk = 3, dv = 2;
  std::string program = readFile(MOAC_EXAMPLES_DIR "/gqa.moa");
  for (int hkv : {1, 2, 4}) {
    INFO("hkv = " << hkv);
    NDArray Q = data({B, hq, dk}, 0.2), K = data({B, hkv, n, dk}, 0.9), V = data({B, hkv, n, dv}, 2.1);
    NDArray O = run(program, dims({{"B", B}, {"hq", hq}, {"hkv", hkv}, {"n", n}, {"dk", dk}, {"dv", dv}}),
                    {Q, K, V}, exact);
    REQUIRE(O.shape == std::vector<int64_t>{B, hq, dv});
    std::vector<double> want;
    for (int b = 0; b < B; ++b)
      for (int g = 0; g < hq; ++g) {
        int h = g * hkv / hq;
        std::vector<double> o = attend(&Q.data[size_t((b * hq + g) * dk)], &K.data[size_t((b * hkv + h) * n * dk)],
                                       &V.data[size_t((b * hkv + h) * n * dv)], n, dk, dv);
        want.insert(want.end(), o.begin(), o.end());
      }
    requireClose(O.data, want, 8 * (n + dk) * DBL_EPSILON);
  }
}

TEST_CASE("gqa with one KV head per query head is decode per head", "[interp][attention]") {
  // hkv = hq: every query head has its own KV head, so each (b, g) is the decode example on its slices.
  const int B = 1, hq = 2, n = 5, dk = 3, dv = 2;
  NDArray Q = data({B, hq, dk}, 0.4), K = data({B, hq, n, dk}, 1.1), V = data({B, hq, n, dv}, 2.5);
  NDArray O = run(readFile(MOAC_EXAMPLES_DIR "/gqa.moa"),
                  dims({{"B", B}, {"hq", hq}, {"hkv", hq}, {"n", n}, {"dk", dk}, {"dv", dv}}), {Q, K, V});
  std::string decode = readFile(MOAC_EXAMPLES_DIR "/decode.moa");
  for (int g = 0; g < hq; ++g) {
    auto slice = [](const NDArray &a, std::vector<int64_t> shape, size_t at) {
      size_t count = 1;
      for (int64_t s : shape)
        count *= size_t(s);
      return NDArray{shape, std::vector<double>(a.data.begin() + long(at * count), a.data.begin() + long((at + 1) * count))};
    };
    NDArray o = run(decode, dims({{"n", n}, {"dk", dk}, {"dv", dv}}),
                    {slice(Q, {dk}, size_t(g)), slice(K, {n, dk}, size_t(g)), slice(V, {n, dv}, size_t(g))});
    CHECK(o.data == std::vector<double>(O.data.begin() + g * dv, O.data.begin() + (g + 1) * dv));
  }
}
