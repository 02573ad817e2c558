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
  // Where a fused group's scores live (scores=KEY): inline, computed in the split pass once per term and
  // never stored; stored, computed by a parallel pass of their own into an array (one float per term and
  // frame element), which the split pass reads twice: once for its maximum, once for the weights, so
  // nothing is rescaled. auto: stored on OpenACC, whose per-row vector reductions are slow and whose score
  // pass over a lifted K streams coalesced (docs/schedule.md has the measurements), inline elsewhere.
  // Never stored where that would be quadratic (prefill: psi/Fuse.h).
  enum class Scores { Auto, Inline, Stored } scores = Scores::Auto;
  // Work items (frame × splits) the split pass of a fused reduction aims for; each split streams its
  // contiguous rows once. The same on every target, so that C, OpenMP and OpenACC add in the same order
  // (bit-equal); a GPU wants more (splits=N), to be decided by measurement there.
  // On CUDA the default is the device's: the launcher asks for its SM count and aims for 32 warps on
  // each SM (one split per warp), with at least 8 terms a split (fusedSplits returns 0 for "the device's";
  // bench/cuda/NOTES.md has the measurements that chose both).
  int64_t splits = 64;
  bool splitsSet = false, chunkSet = false; // given on the command line: then the same on every target
  // Accumulators of an inline sum or product of floats on the CPU targets (C, OpenMP, OpenACC): term l
  // goes into accumulator l mod lanes, and the lanes are combined pairwise at the end, so that the adds
  // are `lanes` independent chains (a serial chain waits for each add's latency) that the C compiler
  // can also keep in one vector register. The same on those targets, which stay bit-equal; 1 is one
  // chain in index order. CUDA spreads such sums over a warp's lanes instead. 16: two 32-byte vectors of
  // f32 chains (AVX2, MOART_CPU_CLONES) or four 16-byte ones (bench/NOTES.md, 2026-12-07).
  int64_t lanes = 16;
  static constexpr int64_t maxLanes = 64;
  // CUDA: the values of a frame index that one warp of a fused split pass takes together, each on
  // 32 / pack of its lanes, where loads of the term depend on that index only through floor divisions
  // (a GQA group's query heads read the same rows of K and V: lower/LowerFused.cpp). A power of two ≤ 32;
  // 1 is a warp per value. Other targets ignore it. 0, the default: 2 (measured fastest for f32), or 4 where
  // every such load is of a half-precision input (lower/LowerFused.cpp, bench/cuda/NOTES.md).
  int64_t pack = 0;
  // CUDA: the rows of K and V (the moving loads of a pipelined row loop) each warp of a split pass keeps in
  // flight while it computes with the current one; 0 is the lowering's choice from the rows' bytes
  // (lower/LowerFused.cpp, rowsAhead: enough that a SM has about 32 KB of loads outstanding). 1 to 4; other
  // targets ignore it.
  int64_t ahead = 0;
  static constexpr int64_t maxAhead = 4;
  // CUDA: a packed split pass (pack ≥ 4) whose rows of K and V are half precision runs its row loop sixteen
  // rows at a time on the tensor cores (mma=on, emit/CudaMma.cpp); mma=off keeps the lanes' path. Other
  // targets ignore it.
  bool mma = true;
  // CPU and OpenACC: a fused split pass's frame indices that its loads of the terms depend on only through
  // floor divisions, or not at all (a GQA group's query heads), loop inside the split loop, so that a thread
  // reads a split's rows once from memory for all of them, then from its cache (reuse=on); the splits count
  // the other frame elements only. reuse=off keeps the split loop innermost. lower/LowerFused.cpp.
  bool reuse = true;
  // C, OpenMP and OpenACC (inline scores): a fused split pass takes its terms `tile` at a time: the tile's
  // scores first (kept in a buffer of `tile` floats a split), their maximum merged into the running one once,
  // so that every sum is rescaled once a tile instead of once a term, then the weights in a loop of their own,
  // then the tile's rows added to the sums. 1 is the online form term by term. CUDA ignores it.
  // lower/LowerFused.cpp, docs/schedule.md ("Row tiles"), bench/NOTES.md (2026-12-07).
  int64_t tile = 8;
  static constexpr int64_t maxTile = 1024;
  // C, OpenMP and OpenACC, a tiled split pass (tile > 1): each whole tile first prefetches the tile's rows
  // `prefetch` terms ahead, a hint per 64-byte line of every input the pass reads along its terms (the rows
  // of K and V; MOART_PREFETCH: __builtin_prefetch under GCC and Clang), so that the memory system is
  // fetching them while the split computes on nearer rows (the hardware's prefetchers alone left a thread
  // streaming at half the read-only loop's rate, bench/NOTES.md 2026-12-07). 0: none. Where the rows ahead
  // lie outside the input (the last tiles), nothing is prefetched. A hint changes no value.
  int64_t prefetch = 16;
  static constexpr int64_t maxPrefetch = 4096;

  int64_t fusedSplits(Target t) const { return t == Target::Cuda && !splitsSet ? 0 : splits; }
  int64_t fusedChunk(Target t) const { return t == Target::Cuda && !chunkSet ? 8 : chunk; }

  bool storesScores(Target t) const {
    return scores == Scores::Stored || (scores == Scores::Auto && t == Target::OpenACC);
  }

  bool liftInputs(Target t) const {
    return layouts == Layouts::Lifted || (layouts == Layouts::Auto && t == Target::OpenACC);
  }
};

// Parses `key=value,key=value`; returns an error message or nullopt.
std::optional<std::string> parseSchedule(const std::string &text, Schedule &schedule);

} // namespace moac
