// i32 and i64 arrays in the interpreter (docs/language.md §1): an integer input is read as int (int64),
// arithmetic on it is int (or float with a float operand), div and mod floor, an i32 output stores its
// int value when it fits in 32 bits and is an error, never a wrapped value, when it does not.
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
