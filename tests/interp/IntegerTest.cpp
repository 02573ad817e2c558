// i32 and i64 arrays in the interpreter (docs/language.md §1): an integer input is read as int (int64),
// arithmetic on it is int (or float with a float operand), div and mod floor, an i32 output stores its
// int value when it fits in 32 bits and is an error, never a wrapped value, when it does not. Gathers
// (§7): an index read from an integer array selects by its value, every element checked first.
#include "Interp.h"

using namespace moac;
using namespace moac::test;

TEST_CASE("integer inputs compute in int; with a float operand in f32", "[interp][int]") {
  std::vector<NDArray> out =
      runAll("dim n\nin ids : i32[n]\nin w : i64[n]\nin x : f32[n]\n"
             "out s : i32 = ids * 3 - w\nout q = w div 4\nout r = w mod 4\nout y = x * ids\nout c = +/ ids",
             dims({{"n", 3}}), {array({3}, {1, -2, 7}), array({3}, {-7, 9, 8}), array({3}, {0.5, 0.25, 2})});
  REQUIRE(out.size() == 5);
  CHECK(out[0].elem == ElemType::Int);
  CHECK(out[0].ints == std::vector<int64_t>{10, -15, 13});
  CHECK(out[1].ints == std::vector<int64_t>{-2, 2, 2}); // floor division
  CHECK(out[2].ints == std::vector<int64_t>{1, 1, 0});  // the sign of the divisor
  CHECK(out[3].elem == ElemType::F32);
  CHECK(out[3].data == std::vector<double>{0.5, -0.5, 14});
  CHECK(out[4].ints == std::vector<int64_t>{6});
}

TEST_CASE("an i32 output that does not fit in 32 bits is an error at the output", "[interp][int]") {
  const char *program = "dim n\nin w : i64[n]\nout s : i32 = w * 2\n";
  CHECK(run(program, dims({{"n", 2}}), {array({2}, {1073741823, -1073741824})}).ints ==
        std::vector<int64_t>{2147483646, -2147483648});
  EvalError e = evalError(program, dims({{"n", 2}}), {array({2}, {1, 1073741824})});
  CHECK(std::string(e.what()) == "integer overflow: 2147483648 does not fit in the i32 output 's'");
  CHECK(e.loc.line == 3);
}

TEST_CASE("int is another spelling of i64 in a declaration", "[interp][int]") {
  Checked a = check("dim n\nin w : int[n]\nout s : int = w + 1\n");
  Checked b = check("dim n\nin w : i64[n]\nout s : i64 = w + 1\n");
  REQUIRE(a.program);
  REQUIRE(b.program);
  CHECK(a.program->inputs[0].elem == ElemType::Int);
  CHECK(b.program->inputs[0].elem == ElemType::Int);
}

TEST_CASE("a gather reads the row its index array names", "[interp][int][gather]") {
  // ids[i] is <i> psi ids; <ids[i]> psi E is row ids[i] of E
  NDArray y = run("dim m, V, d\nin ids : i32[m]\nin E : f32[V, d]\nout y = [i < m] ids[i] psi E\n",
                  dims({{"m", 3}, {"V", 4}, {"d", 2}}), {array({3}, {3, 0, 3}), counting({4, 2})});
  CHECK(y.shape == std::vector<int64_t>{3, 2});
  CHECK(y.data == std::vector<double>{6, 7, 0, 1, 6, 7});
  // a block table: token j of sequence b is at page table[b, j div 2], slot j mod 2
  NDArray k = run("dim B, P, pages\nin table : i64[B, pages]\nin K : f32[P, 2]\n"
                  "out k = [b < B, j < pages * 2] <table[b, j div 2], j mod 2> psi K\n",
                  dims({{"B", 1}, {"P", 3}, {"pages", 2}}), {array({1, 2}, {2, 0}), counting({3, 2})});
  CHECK(k.data == std::vector<double>{4, 5, 0, 1});
}

TEST_CASE("an index array with an element outside its axis is an error before anything is computed",
          "[interp][int][gather]") {
  const char *program = "dim m, V, d\nin ids : i32[m]\nin E : f32[V, d]\nout y = [i < m - 1] ids[i] psi E\n";
  // the last id is never used, and still checked: the kernels check every element of an index array
  for (double bad : {-1.0, 4.0}) {
    EvalError e = evalError(program, dims({{"m", 3}, {"V", 4}, {"d", 2}}), {array({3}, {0, 1, bad}), counting({4, 2})});
    CHECK(std::string(e.what()) == "gather index out of range: 'ids' holds " + std::to_string(int(bad)) +
                                       " at element 2, outside [0, V) = [0, 4), the axis it indexes");
    CHECK(e.loc.line == 4);
  }
}
