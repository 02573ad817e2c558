// moac_testgen_print SEED [COUNT]: prints the generated program of each seed from SEED on, with dims
// for `moac run` in a comment, so that a program can be read or run by hand:
//   build/bin/moac_testgen_print 42 > p.moa && build/bin/moac run p.moa --dims "$(sed -n 's/^# dims: //p' p.moa)"
#include "ProgramGenerator.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: moac_testgen_print SEED [COUNT]\n");
    return 2;
  }
  uint64_t seed = std::strtoull(argv[1], nullptr, 10);
  uint64_t count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  for (uint64_t s = seed; s < seed + count; ++s) {
    moac::testgen::GeneratedProgram p = moac::testgen::generateProgram(s);
    std::printf("%s# dims: %s\n", p.text.c_str(), moac::testgen::formatDims(moac::testgen::chooseDims(p, s)).c_str());
    if (s + 1 < seed + count)
      std::printf("\n");
  }
  return 0;
}
