// The schedule: how the ONF maps index spaces onto hardware. Defaults come from the heuristic in
// docs/schedule.md; every knob can be overridden from the command line (`moac compile --schedule
// threads=65536,chunk=256,block=32,layout=auto`).
#pragma once

#include "Target.h"

#include <cstdint>
#include <optional>
#include <string>

namespace moac {

struct Schedule {
  // Work items the parallel loops aim for; a reduction whose own index space is smaller is split into
  // chunks, P = clamp(⌈threads / N⌉, 1, ⌈R / chunk⌉), P partial results per index, then a combine.
  int64_t threads = 65536;
  // The fewest terms one chunk of a split reduction adds up.
  int64_t chunk = 256;
  // Lifting factor of the coalescing layout K ⟨n, dk⟩ → ⟨⌈n/B⌉, dk, B⟩: the SIMD group (warp) width.
  int64_t block = 32;
  // Layout of inputs read along a row by one lane each: auto (lifted on OpenACC, row-major on CPUs),
  // rowmajor (never lift), lifted (always lift).
  enum class Layouts { Auto, RowMajor, Lifted } layouts = Layouts::Auto;
  // The online-softmax rewrite (psi/Fuse.h): on by default; off keeps the unfused DNF (fuse=off).
  bool fuse = true;
  // Work items (frame × splits) the split pass of a fused reduction aims for; each split streams its
  // contiguous rows once. The same on every target, so that C, OpenMP and OpenACC add in the same order
  // (bit-equal); a GPU wants more (splits=N), to be decided by measurement there.
  int64_t splits = 64;

  int64_t fusedSplits(Target) const { return splits; }

  bool liftInputs(Target t) const {
    return layouts == Layouts::Lifted || (layouts == Layouts::Auto && t == Target::OpenACC);
  }
};

// Parses `key=value,key=value`; returns an error message or nullopt.
std::optional<std::string> parseSchedule(const std::string &text, Schedule &schedule);

} // namespace moac
