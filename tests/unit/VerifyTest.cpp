// Unit tests of the libTooling self-check (CVerify.h): Clang's diagnostics on deliberately broken C, and
// the way back from a generated line to the .moa line in its `/* decode.moa:N */` comment.
#include "CVerify.h"

#include <catch2/catch.hpp>

using namespace moac;

namespace {

// Shaped like EmitC's output: a statement may wrap, and carries its .moa line on its last line.
const char *kernel = R"(#include <math.h>
#include <stdint.h>

int moa_k(int64_t n, const float *restrict x, float *o) {
  float acc = 0.0f; /* decode.moa:8 */
  for (int64_t i = 0; i < n; ++i) {
    acc = acc +
          x[i]; /* decode.moa:9 */
  }
  o[0] = sqrtf(acc); /* decode.moa:10 */
  return 0;
}
)";

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

VerifyInput input(const std::string &source) {
  VerifyInput in;
  in.fileName = "k.c";
  in.source = source;
  return in;
}

} // namespace

TEST_CASE("verifyC: generated-style C passes cleanly", "[verify]") {
  CHECK(verifyC(input(kernel)).empty());
}

TEST_CASE("verifyC: the kernel is parsed as C whatever the output is named", "[verify]") {
  // `moac compile --verify-output -o /dev/null` or `-o kernel` used to make Clang treat it as a linker input
  for (const char *name : {"null", "kernel", "k.txt"}) {
    VerifyInput in = input(kernel);
    in.fileName = name;
    INFO(name);
    CHECK(verifyC(in).empty());
  }
}

TEST_CASE("verifyC: an undeclared name is an error at its line and column", "[verify]") {
  VerifyInput in = input(replaced(kernel, "x[i]; /*", "x[i] * y; /*"));
  std::vector<CDiagnostic> diags = verifyC(in);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].file == "k.c");
  CHECK(diags[0].line == 8);
  CHECK(diags[0].col == 18);
  CHECK(diags[0].severity == "error");
  CHECK(diags[0].message == "use of undeclared identifier 'y'");
}

TEST_CASE("verifyC: -Wall -Wextra warnings are reported too", "[verify]") {
  std::vector<CDiagnostic> diags = verifyC(input(replaced(kernel, "  return 0;", "  int unused = 1;\n  return 0;")));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].severity == "warning");
  CHECK(diags[0].message == "unused variable 'unused'");
}

TEST_CASE("verifyC: a missing sibling header is a fatal error; given in memory, it is found", "[verify]") {
  std::string source = std::string("#include \"k.h\"\n") + kernel;
  std::vector<CDiagnostic> diags = verifyC(input(source));
  REQUIRE(!diags.empty());
  CHECK(diags[0].severity == "fatal error");
  CHECK(diags[0].message == "'k.h' file not found");
  VerifyInput in = input(source);
  in.siblings.push_back({"k.h", "int moa_k(void);\n"});
  diags = verifyC(in);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message == "conflicting types for 'moa_k'");
  in.siblings[0].second = "#include <stdint.h>\nint moa_k(int64_t n, const float *restrict x, float *o);\n";
  CHECK(verifyC(in).empty());
}

TEST_CASE("verifyC: OpenMP pragmas are parsed for openmp; OpenACC pragmas pass for openacc", "[verify]") {
  std::string omp = replaced(kernel, "  for (int64_t i", "#pragma omp parallel for reduction(+ : acc)\n  for (int64_t i");
  VerifyInput in = input(omp);
  in.target = Target::OpenMP;
  CHECK(verifyC(in).empty());
  in.source = replaced(kernel, "  for (int64_t i", "#pragma omp parallel for reduction(+ acc)\n  for (int64_t i");
  CHECK(!verifyC(in).empty());
  in.source = replaced(kernel, "  for (int64_t i", "#pragma acc parallel loop gang vector\n  for (int64_t i");
  in.target = Target::OpenACC;
  CHECK(verifyC(in).empty());
  in.target = Target::C; // without -Wno-unknown-pragmas, -Wall warns
  CHECK(!verifyC(in).empty());
}

TEST_CASE("moaLineOf: the comment ending the statement, a loop's body, nothing for unannotated code", "[verify]") {
  std::string text = kernel;
  CHECK(!moaLineOf(text, 4)); // the signature, no statement of the program
  CHECK(moaLineOf(text, 5)->line == 8);
  CHECK(moaLineOf(text, 5)->file == "decode.moa");
  CHECK(moaLineOf(text, 6)->line == 9); // a loop header: the first statement of its body
  CHECK(moaLineOf(text, 7)->line == 9); // a wrapped statement: the comment on its last line
  CHECK(moaLineOf(text, 10)->line == 10);
  CHECK(!moaLineOf(text, 11)); // return 0;
  CHECK(!moaLineOf(text, 99));
}

TEST_CASE("verifyReport: names the .moa line and its source, then Clang's diagnostic with a caret", "[verify]") {
  VerifyInput in = input(replaced(kernel, "x[i]; /*", "x[i] * y; /*"));
  SourceManager sources;
  std::string program;
  for (int line = 1; line <= 10; ++line)
    program += "line " + std::to_string(line) + "\n";
  uint32_t id = sources.add("dsl-examples/decode.moa", program);
  std::string report = verifyReport(verifyC(in), in, &sources.file(id));
  CHECK(report == "dsl-examples/decode.moa:9: the C generated from this line does not pass clang -fsyntax-only\n"
                  "  line 9\n"
                  "k.c:8:18: error: use of undeclared identifier 'y'\n"
                  "            x[i] * y; /* decode.moa:9 */\n"
                  "                   ^\n");
  // Another program (a different base name): the comment's name, and no source line.
  uint32_t other = sources.add("other.moa", program);
  CHECK(verifyReport(verifyC(in), in, &sources.file(other)).rfind("decode.moa:9: the C generated", 0) == 0);
}
