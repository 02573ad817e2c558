// moac_property_check FILE.moa [DIMS] [SEED]: runs one program through both evaluators and prints where
// they disagree (exit 1) or "agree" (exit 0). DIMS (`n=3,m=2`) and SEED default to the file's
// `# dims:` and `--seed` comments, as build/property-failures/*.moa carry them.
//
// moac_property_check --reduce FILE.moa [DIMS] [SEED]: a line-level reducer for a failing program:
// drops every line (binding, input, function, out) whose removal keeps the same kind of failure, until
// none can go, and prints what is left: a start for minimising by hand.
#include "Property.h"
#include "ProgramGenerator.h"
#include "ReduceLines.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

using namespace moac;

namespace {

// The kind of a failure: its text up to the first digit (the evaluator, the message, not the numbers).
std::string kindOf(const std::string &failure) {
  std::string kind;
  for (char c : failure) {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '\n')
      break;
    kind += c;
  }
  return kind;
}

std::string reduce(const std::string &text, const testgen::DimChoice &dims, uint64_t seed) {
  auto failure = [&](const std::string &t) {
    auto check = property::checkProgram("reduced.moa", t, dims, seed, false);
    return check.failure ? kindOf(*check.failure) : std::string();
  };
  std::string target = failure(text);
  if (target.empty())
    return text;
  return testgen::reduceLines(text, [&](const std::string &t) { return failure(t) == target; });
}

} // namespace

int main(int argc, char **argv) {
  bool reducing = argc > 1 && std::strcmp(argv[1], "--reduce") == 0;
  if (reducing) {
    ++argv;
    --argc;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: moac_property_check [--reduce] FILE.moa [n=3,m=2] [SEED]\n");
    return 2;
  }
  std::string text = property::readFile(argv[1]);
  std::vector<testgen::DimChoice> choices = property::dimsFromComments(text);
  if (argc > 2)
    choices = property::dimsFromComments(std::string("# dims: ") + argv[2]);
  if (choices.empty())
    choices.emplace_back();
  uint64_t seed = 1;
  if (auto at = text.find("--seed "); at != std::string::npos)
    seed = std::strtoull(text.c_str() + at + 7, nullptr, 10);
  if (argc > 3)
    seed = std::strtoull(argv[3], nullptr, 10);
  if (reducing) {
    std::printf("# dims: %s\n%s", testgen::formatDims(choices[0]).c_str(), reduce(text, choices[0], seed).c_str());
    return 0;
  }
  int status = 0;
  for (const auto &dims : choices) {
    property::Check check = property::checkProgram(argv[1], text, dims, seed, false);
    std::printf("dims %s, seed %llu: %s\n", testgen::formatDims(dims).c_str(), (unsigned long long)seed,
                check.failure ? check.failure->c_str() : "agree");
    status |= check.failure ? 1 : 0;
  }
  return status;
}
