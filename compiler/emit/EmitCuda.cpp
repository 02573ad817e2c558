// The CUDA printer: the C printer's statements, with each region of the loop IR printed as a __global__
// kernel and its launch on the caller's stream (docs/schedule.md, "CUDA").
//   - A parallel nest is one index space: thread t of the grid (grid-stride) takes the collapsed index t,
//     the innermost loop fastest, so adjacent threads are adjacent iterations of the innermost index —
//     the lanes the γ-differences of `moac explain` are measured along.
//   - The split pass of a fused reduction (Region::Splits) runs one split per warp. Its statements are
//     warp-uniform, except the serial loops whose iterations are independent (a store per iteration to
//     its own element, a reduction into a scalar from outside): those are spread over the 32 lanes, a
//     reduction combined with a butterfly of shuffles. The dot product of a score and the update of a
//     weighted sum along a row are such loops, so a warp reads a row of K and of V with coalesced loads.
//   - So does a region that combines partial results: where its work is a loop over a chunk count (P
//     splits or chunks, thousands on a GPU) that lanes may take, one warp computes each result — or, with
//     fewer results than the device has warps (decode: dv of them), a whole block of up to 32 warps
//     (moa_width threads, chosen at the launch), its reductions exchanged through shared memory.
//   - A region of one thread is a kernel of one thread.
// The launcher checks the dims and the pointers like every target and launches the kernels in order.
#include "CudaPrinter.h"

#include <set>

namespace moac {

namespace {

constexpr int threadsPerBlock = 256;
constexpr int warpThreadsPerBlock = 128; // four warps: four splits a block
constexpr int64_t maxBlocks = int64_t(1) << 20; // grid-stride beyond this

} // namespace

// Whether the work of each iteration has a loop over a chunk count that lanes may take.
bool CudaPrinter::spreadsChunks(const std::vector<LStmt> &body) const {
  for (const LStmt &s : body) {
    if (s.kind == LStmt::If && (spreadsChunks(s.body) || spreadsChunks(s.orElse)))
      return true;
    if (s.kind != LStmt::Loop)
      continue;
    bool overChunks = false;
    for (const ChunkCount &c : k.chunkCounts)
      overChunks |= s.end.dependsOn(c.sym);
    if (overChunks && LaneLoop(s).independent())
      return true;
  }
  return false;
}

// The kernel's parameters: every dim and chunk count (a kernel need not read each: `(void)`), then the
// buffers it touches. Inputs it only reads are const and __restrict__; a partials buffer may be its own
// result (one chunk), so written buffers are not.
std::string CudaPrinter::params(const std::set<size_t> &used) const {
  std::vector<std::string> out;
  for (const TDim &d : k.dims)
    if (!d.value)
      out.push_back("int64_t " + cn.dim(d.sym));
  for (const ChunkCount &c : k.chunkCounts)
    out.push_back("int64_t " + cn.dim(c.sym));
  for (size_t b : used) {
    const Buffer &buf = k.buffers[b];
    bool readOnly = buf.role == Buffer::Input && !buf.inout;
    out.push_back(fmt::format("{}{} *{}{}", readOnly ? "const " : "", cType(buf.elem), readOnly ? "__restrict__ " : "",
                              cn.buffer(b)));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

std::string CudaPrinter::args(const std::set<size_t> &used) const {
  std::vector<std::string> out;
  for (const TDim &d : k.dims)
    if (!d.value)
      out.push_back(cn.dim(d.sym));
  for (const ChunkCount &c : k.chunkCounts)
    out.push_back(cn.dim(c.sym));
  for (size_t b : used)
    out.push_back(cn.buffer(b));
  return fmt::format("{}", fmt::join(out, ", "));
}

// The nest's iteration count, Π (end − start), a packed split pass's packed index counting its packs (as
// the kernel's moa_extent does).
std::string CudaPrinter::total(const ParallelNest &nest, const Region &r, bool warps) {
  std::string out;
  for (const LStmt *l : nest.loops) {
    std::string extent = integer(l->end - l->start);
    if (warps && r.packing > 1 && l->var == r.packed)
      extent = fmt::format("((({}) + {}) / {})", extent, r.packing - 1, r.packing);
    out += fmt::format("{}{}", out.empty() ? "" : " * ", extent);
  }
  return out.empty() ? "1" : out;
}

// The kernel of a region, printed into `kernels`: a thread an iteration of its parallel nest, a warp one
// (`warps`), or, for a combine printed `wide`, a block one (its moa_width threads, the block's).
void CudaPrinter::kernelOf(const Region &r, const ParallelNest &nest, const std::string &kernel, bool warps,
                           bool wide, const std::set<size_t> &used, ElemType t, const char *note) {
  const int threads = warps ? warpThreadsPerBlock : threadsPerBlock;
  std::string host = std::move(body);
  body.clear();
  line(fmt::format("/* {}{} */", commentText(regionName(k, r)), note));
  // a split pass: as many warps resident on an SM as its split count aims for (a register budget), of which
  // a packed pass, whose lanes each hold `packing` groups of a row, aims for 1 / packing (moart_cuda_splits)
  std::string bounds = r.part == Region::Splits ? fmt::format("{}, MOART_CUDA_SPLIT_WARPS_PER_SM / {}", threads,
                                                              r.packing * threads / 32)
                       : wide                   ? "32 * MOART_CUDA_COMBINE_WARPS"
                                                : std::to_string(threads);
  line(fmt::format("__global__ void __launch_bounds__({}) {}({}) {{", bounds, kernel, params(used)));
  for (const TDim &d : k.dims)
    if (!d.value)
      line(fmt::format("(void){};", cn.dim(d.sym)));
  for (const ChunkCount &c : k.chunkCounts)
    line(fmt::format("(void){};", cn.dim(c.sym)));
  line("moart_cuda_start_next();");
  line("moart_cuda_wait_previous(); /* the kernel before it has finished: its stores are seen */");
  std::set<Symbol> known;
  for (const TDim &d : k.dims)
    known.insert(d.sym);
  for (const ChunkCount &c : k.chunkCounts)
    known.insert(c.sym);
  hoisted.clear();
  hoist(r.body, known);
  if (nest.loops.empty()) {
    for (const LStmt &s : r.body)
      stmt(s, t);
  } else {
    kernelNest(r, nest, warps, wide, t, std::move(known));
  }
  line("}");
  line("");
  hoisted.clear();
  kernels += body;
  body = std::move(host);
}

// A kernel's grid-stride loop over its parallel nest: each iteration's indices, the divisions that depend
// on them computed once, then the nest's statements (a warp's, or a thread's).
void CudaPrinter::kernelNest(const Region &r, const ParallelNest &nest, bool warps, bool wide, ElemType t,
                             std::set<Symbol> known) {
  // a packed split pass: the packed loop's extent counts packs of `packing` values
  packed = warps && r.packing > 1;
  lanes = packed ? int(32 / r.packing) : 32;
  packedVar = r.packed;
  tiles = r.tiles;
  ahead = r.ahead;
  combine = wide;
  threadIndex(r, nest, warps);
  for (const LStmt *l : nest.loops)
    known.insert(l->var);
  auto perIteration = hoist(*nest.body, known);
  warpBody = nest.body;
  for (const LStmt &s : *nest.body)
    warps ? warpStmt(s, t) : stmt(s, t);
  for (const auto &key : perIteration) // their locals end with the iteration
    hoisted.erase(key);
  line("}");
  packed = combine = tiles = false;
  lanes = 32;
  ahead = 0;
}

// The nest's extents and iteration count, the loop that gives each thread (a warp, a block) its iterations
// in turn, and the nest's indices of an iteration, the innermost fastest (a packed index: its pack's value
// for this lane group, or the last one again where the pack is cut short).
void CudaPrinter::threadIndex(const Region &r, const ParallelNest &nest, bool warps) {
  auto isPacked = [&](const LStmt *l) { return packed && l->var == r.packed; };
  for (size_t d = 0; d < nest.loops.size(); ++d) {
    std::string extent = integer(nest.loops[d]->end - nest.loops[d]->start);
    line(fmt::format("const int64_t moa_extent{} = {};", d,
                     isPacked(nest.loops[d]) ? fmt::format("(({}) + {}) / {}", extent, r.packing - 1, r.packing)
                                             : extent));
  }
  std::string count;
  for (size_t d = 0; d < nest.loops.size(); ++d)
    count += fmt::format("{}moa_extent{}", d ? " * " : "", d);
  line(fmt::format("const int64_t moa_total = {};", count));
  if (packed) {
    line(fmt::format("const int moa_lane = (int)(threadIdx.x & {}u); /* a value's lanes: {} of the warp's */",
                     lanes - 1, lanes));
    line(fmt::format("const int moa_pack = (int)((threadIdx.x & 31u) / {}u); /* the value of the pack */", lanes));
  }
  if (combine) {
    line("__shared__ long long moa_scratch[32]; /* the warps' sums of a result's reductions */");
    line("const int moa_width = (int)blockDim.x;");
    line("const int moa_lane = (int)threadIdx.x;");
    line("for (int64_t moa_t = blockIdx.x; moa_t < moa_total; moa_t += gridDim.x) {");
  } else if (warps) {
    if (!packed)
      line("const int moa_lane = (int)(threadIdx.x & 31u);");
    line("for (int64_t moa_t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; moa_t < moa_total;"
         " moa_t += ((int64_t)gridDim.x * blockDim.x) >> 5) {");
  } else {
    line("for (int64_t moa_t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; moa_t < moa_total;"
         " moa_t += (int64_t)gridDim.x * blockDim.x) {");
  }
  line("int64_t moa_rest = moa_t;");
  for (size_t d = nest.loops.size(); d-- > 0;) {
    const LStmt &l = *nest.loops[d];
    std::string index = d == 0 ? "moa_rest" : fmt::format("moa_rest % moa_extent{}", d);
    if (isPacked(&l)) {
      // a group past the extent (a last pack cut short) computes the last value again and stores nothing
      std::string extent = integer(l.end - l.start);
      line(fmt::format("const int64_t moa_value = {} * ({}) + moa_pack;", r.packing, index));
      line(fmt::format("const bool moa_live = moa_value < {};", extent));
      line(fmt::format("const int64_t {} = {} + (moa_live ? moa_value : {} - 1);", name(l.var), integer(l.start),
                       extent));
    } else {
      line(fmt::format("const int64_t {} = {} + {};", name(l.var), integer(l.start), index));
    }
    if (d > 0)
      line(fmt::format("moa_rest /= moa_extent{};", d));
  }
}

// A kernel's launch on the caller's stream, allowed to begin before the kernel ahead of it ends (a
// programmatic dependent launch: moart_cuda_launch_config; each kernel waits for the one before it first).
// A failed launch is the launcher's cudaGetLastError at its end, as for any launch.
void CudaPrinter::launch(const std::string &kernel, const std::string &blocks, const std::string &threads,
                         const std::set<size_t> &used) {
  line("{");
  line("cudaLaunchAttribute moa_attribute;");
  line(fmt::format("const cudaLaunchConfig_t moa_config = moart_cuda_launch_config({}, {}, stream, &moa_attribute);",
                   blocks, threads));
  line(fmt::format("(void)cudaLaunchKernelEx(&moa_config, {}, {});", kernel, args(used)));
  line("}");
}

void CudaPrinter::region(const Region &r) {
  const std::string kernel = fmt::format("{}_stage{}", k.name, stages++);
  const ParallelNest nest = nestOf(r);
  const bool warps = !nest.loops.empty() && (r.part == Region::Splits || spreadsChunks(*nest.body));
  // a warp region runs four warps a block, except a combine with fewer results than the device has warps:
  // a block a result then, of as many warps as spread the results over every SM (moa_width threads,
  // moart_cuda_combine_width, chosen at the launch), or one warp a block where that is one warp
  const int threads = warps ? warpThreadsPerBlock : threadsPerBlock;
  const bool fewWarps = warps && r.part != Region::Splits;
  std::set<size_t> used;
  forEachAccess(r.body, [&](size_t b, const SymExpr &, bool) { used.insert(b); });
  const ElemType t = regionType(r);
  floatType = t == ElemType::Int ? ElemType::F32 : t;
  kernelOf(r, nest, kernel, warps, false, used, t);
  // the same split pass with more values a warp, chosen at the launch (widerTest); its lanes' path runs only
  // where the warp's vote rejects the tiles (rows misaligned, dk or dv not a multiple of 8 or above 128), never
  // for heads on different rows (the launcher's test): one row ahead, so that the 32 / 8 lanes a head do not
  // hold four rows of K and V (spills)
  std::optional<Region> wider;
  const std::string widerKernel = fmt::format("{}_pack{}", kernel, r.widerPacking);
  if (r.widerPacking) {
    wider = r;
    wider->packing = r.widerPacking;
    wider->widerPacking = 0;
    wider->ahead = 1;
    const bool wasLocated = locate;
    locate = false;
    kernelOf(*wider, nest, widerKernel, warps, false, used, t,
             fmt::format(": {} values a warp", wider->packing).c_str());
    locate = wasLocated;
  }
  if (fewWarps) { // the same statements again, located once (explain --html links the first kernel's)
    const bool wasLocated = locate;
    locate = false;
    kernelOf(r, nest, kernel + "_wide", warps, true, used, t, ": a block a result");
    kernelOf(r, nest, kernel + "_thin", false, false, used, t, ": a thread a result");
    locate = wasLocated;
  }
  // the chunk counts whose partials the combine reads: few of them, a thread a result reads them in turn
  std::set<Symbol> counts;
  if (fewWarps)
    for (const LStmt &s : *nest.body)
      for (const ChunkCount &c : k.chunkCounts)
        if (s.kind == LStmt::Loop && s.end.dependsOn(c.sym))
          counts.insert(c.sym);
  std::vector<std::string> few;
  for (Symbol c : counts)
    few.push_back(fmt::format("{} <= MOART_CUDA_THIN_COMBINE", name(c)));

  // the launch
  line("");
  line(fmt::format("/* {} */", commentText(regionName(k, r))));
  if (r.onlyIfChunks)
    line(fmt::format("if ({} > 1) {{", name(*r.onlyIfChunks)));
  line("{");
  const int per = warps ? threads / 32 : threads;
  line(fmt::format("const int64_t moa_total = {};", nest.loops.empty() ? "1" : total(nest, r, warps)));
  if (fewWarps) {
    // the partials a result reads: its chunk counts' largest (one, in every program so far)
    std::string partials;
    for (Symbol c : counts)
      partials = partials.empty() ? name(c) : fmt::format("moart_maxi({}, {})", partials, name(c));
    line(fmt::format("const int moa_width = moart_cuda_combine_width(moa_total, {});",
                     partials.empty() ? "1" : partials));
    if (!few.empty()) {
      line(fmt::format("if ({}) {{", fmt::join(few, " && ")));
      line(fmt::format("const int64_t moa_blocks = (moa_total + {}) / {};", threadsPerBlock - 1, threadsPerBlock));
      line("if (moa_total > 0)");
      launch(kernel + "_thin", fmt::format("moa_blocks < INT64_C({}) ? moa_blocks : INT64_C({})", maxBlocks, maxBlocks),
             std::to_string(threadsPerBlock), used);
      line("} else");
    }
    line("if (moa_width > 32) {");
    launch(kernel + "_wide", fmt::format("moa_total < INT64_C({}) ? moa_total : INT64_C({})", maxBlocks, maxBlocks),
           "moa_width", used);
    line("} else {");
    line(fmt::format("const int moa_per = moa_total < moart_cuda_device_warps() ? 1 : {};", per));
    line("const int64_t moa_blocks = (moa_total + moa_per - 1) / moa_per;");
  } else if (wider) {
    // the test the chunk counts made (CPrinter::widerTests): the split count is the wider kernel's where it passed
    std::string test;
    for (const ChunkCount &c : k.chunkCounts)
      if (c.wider && c.wider->var == r.packed && c.of == r.buffer)
        test = widerName(c);
    if (test.empty())
      throw std::logic_error(fmt::format("emit: the wider kernel of {} has no test", regionName(k, r)));
    line(fmt::format("const int64_t moa_blocks = (({} ? {} : moa_total) + {}) / {};", test, total(nest, *wider, warps),
                     per - 1, per));
    line(fmt::format("if (moa_total > 0 && {})", test));
    launch(widerKernel,
           fmt::format("moa_blocks < INT64_C({}) ? moa_blocks : INT64_C({})", maxBlocks, maxBlocks),
           std::to_string(threads), used);
    line("else");
  } else {
    line(fmt::format("const int64_t moa_blocks = (moa_total + {}) / {};", per - 1, per));
  }
  line("if (moa_total > 0)");
  launch(kernel, fmt::format("moa_blocks < INT64_C({}) ? moa_blocks : INT64_C({})", maxBlocks, maxBlocks),
         nest.loops.empty() ? "1" : fewWarps ? "32 * moa_per" : std::to_string(threads), used);
  if (fewWarps)
    line("}");
  line("}");
  if (r.onlyIfChunks)
    line("}");
}

EmittedKernel emitCuda(const Kernel &kernel, const EmitInputs &inputs) { return CudaPrinter(kernel).print(inputs); }

} // namespace moac
