// The CUDA printer (EmitCuda.cpp's opening comment says what it prints), in four files: EmitCuda.cpp
// prints each region as its kernels and their launch, CudaWarp.cpp the statements of a warp (lane loops,
// 16-byte vector loops), CudaHeld.cpp the registers a warp holds across a serial loop (held elements,
// prefetched and pipelined loads), CudaMma.cpp such a loop on the tensor cores, sixteen rows a step. What
// it reads in the loop IR is CudaLanes.h's. Internal to the emit library.
#pragma once

#include "CPrinter.h"
#include "CudaLanes.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace moac {

class CudaPrinter final : public CPrinter {
public:
  explicit CudaPrinter(const Kernel &k) : CPrinter(k, sequentialPolicy(), Target::Cuda) {}

private:
  // EmitCuda.cpp: the kernels and their launches
  void region(const Region &r) override;
  void kernelOf(const Region &r, const ParallelNest &nest, const std::string &kernel, bool warps, bool wide,
                const std::set<size_t> &used, ElemType t, const char *note = "");
  void kernelNest(const Region &r, const ParallelNest &nest, bool warps, bool wide, ElemType t,
                  std::set<Symbol> known);
  void threadIndex(const Region &r, const ParallelNest &nest, bool warps);
  std::string params(const std::set<size_t> &used) const;
  std::string args(const std::set<size_t> &used) const;
  void launch(const std::string &kernel, const std::string &blocks, const std::string &threads,
              const std::set<size_t> &used);
  std::string total(const ParallelNest &nest, const Region &r, bool warps);
  bool spreadsChunks(const std::vector<LStmt> &body) const;

  // CudaWarp.cpp: a warp's statements
  void warpStmt(const LStmt &s, ElemType t);
  void laneLoop(const LStmt &s, LaneLoop &spread, ElemType t);
  std::string identity(const LStmt &reducer) const;
  bool lanePrivate(size_t buffer, const LStmt &loop, const SymExpr &offset) const;
  void vectorLaneLoop(const LStmt &s, const VectorLoop &v, ElemType t);
  std::string alignedTest(const LStmt &s, const VectorLoop &v);
  void vectorGroup(const LStmt &s, const VectorLoop &v, ElemType t, int group);

  // CudaHeld.cpp: registers held across a warp's serial loop
  void holdAcross(const LStmt &loop, ElemType t);
  void warpBlock(const std::vector<LStmt> &body, ElemType t);
  bool pipeline(const LStmt &loop, ElemType t);
  // A lane loop of a pipelined loop, with the Ifs around it in the loop's body.
  struct PipeLanes {
    const LStmt *loop;
    VectorLoop v;
    std::vector<const LStmt *> guards;
  };
  // A load a pipelined loop keeps in registers: {buffer, base}, the lane loop that makes it and whether it
  // moves with the loop.
  struct PipeStream {
    size_t buffer;
    SymExpr base;
    const PipeLanes *lanes;
    bool moves;
    SymExpr step;                  // the offset's change from one iteration to the next
    // per slot, per group: a moving stream's rows loaded ahead (slot 0 the next iteration's, slot d the
    // one d after it); an invariant stream's one slot, the loop's
    std::vector<std::vector<std::string>> regs{};
    std::string offset{}; // moves: the local pointer to the lane's first group of the last row loaded
  };
  std::optional<std::vector<PipeLanes>> pipelinedLanes(const LStmt &loop) const;
  bool pipeStreams(const LStmt &loop, const std::vector<PipeLanes> &found, std::vector<PipeStream> &streams,
                   std::vector<std::string> &tests);
  std::string pipeLoad(const LStmt &loop, const PipeStream &st, int group, const SymExpr &at);
  void loadAhead(const LStmt &loop, const std::vector<PipeLanes> &found, const std::vector<PipeStream> &streams,
                 const SymExpr &at, const std::string &inRange, size_t slot);
  int rowsAhead() const;
  // CudaMma.cpp: a pipelined loop on the tensor cores, sixteen rows a tile
  struct MmaPlan {
    const std::vector<LStmt> *body = nullptr; // the row's statements, inside its guards
    std::vector<SymExpr> bounds;             // the guards' bounds on the row (l < n)
    const LStmt *dot = nullptr;               // acc += q[…] * K[…]: the score's lane loop
    const LStmt *weighted = nullptr;          // o = o + weight * V[…]: the weighted sum's
    const LStmt *rescaling = nullptr;         // if (next != m): the sums and o times a factor
    Symbol acc{}, max{}, score{}, next{};     // next = max(m, score), m = next
    const PipeStream *query = nullptr, *keys = nullptr, *values = nullptr;
    LExprPtr weight;
    std::pair<size_t, SymExpr> sum; // the held buffer of the weighted sum
    // scalars computed for each score (of a row and value), once a value (of the maximum), and the sums the
    // loop carries (s = s + x)
    std::set<Symbol> perElement, perSlot, sums;
  };
  std::optional<MmaPlan> mmaPlan(const LStmt &loop, const std::vector<PipeStream> &streams) const;
  bool warpUniform(Symbol s) const;
  bool mmaTiles(const LStmt &loop, ElemType t, int n, const std::vector<PipeStream> &streams);
  void pipelinedLoop(const LStmt &loop, ElemType t, int n, const std::vector<PipeLanes> &found,
                     std::vector<PipeStream> &streams);

  const std::vector<LStmt> *warpBody = nullptr; // the statements of a warp's iteration
  // The lanes one value of the warp's iteration runs on: 32, or in a packed split pass (Region::packing)
  // 32 / packing, the group of moa_lane; then only live groups (moa_live: a value inside its extent) store.
  int lanes = 32;
  bool packed = false;
  Symbol packedVar{}; // the packed frame index (Region::packed)
  bool tiles = false; // the region's Region::tiles
  // A combine (EmitCuda.cpp's opening comment): a result's lanes are moa_width threads, a warp or a block.
  bool combine = false;
  std::string laneStep() const { return combine ? "moa_width" : std::to_string(lanes); }
  std::string widthArg() const { return lanes == 32 ? "" : fmt::format(", {}", lanes); }
  // A lane's groups of four in a held lane loop: 128 / (4 · lanes), so that they cover 128 iterations.
  int groups() const { return 32 / lanes; }
  // The offset of a lane's group from the loop's start: 4 · moa_lane, + 4 · lanes · group.
  std::string groupStart(int group) const {
    return group ? fmt::format("4 * moa_lane + {}", 4 * lanes * group) : "4 * moa_lane";
  }
  int vectorLoops = 0; // numbers their alignment tests
  // A lane's group of four elements of a buffer as it is loaded (vectorLoop): f32 as a float4 (16 bytes);
  // bf16 and f16 as the uint2 of their bit patterns (8 bytes), widened to a float4 where it is read, so
  // that a load issued ahead does not wait for its data where it is issued.
  bool half(size_t buffer) const { return isHalf(k.buffers[buffer].elem); }
  const char *groupType(size_t buffer) const { return half(buffer) ? "uint2" : "float4"; }
  std::string groupZero(size_t buffer) const {
    return half(buffer) ? "make_uint2(0u, 0u)" : "make_float4(0.0f, 0.0f, 0.0f, 0.0f)";
  }
  // The group's load at the element `element` (`B[offset]`), as loaded, and a loaded group as floats.
  std::string groupLoad(size_t buffer, const std::string &element) const {
    return fmt::format("*(const {} *)&{}", groupType(buffer), element);
  }
  std::string widened(size_t buffer, const std::string &loaded) const {
    if (!half(buffer))
      return loaded;
    return fmt::format("{}({})", k.buffers[buffer].elem == ElemType::BF16 ? "moart_cuda_bf16x4" : "moart_cuda_f16x4",
                       loaded);
  }
  // The run-time test that the buffer's pointer is aligned for its groups' loads: 16 or 8 bytes.
  std::string groupAligned(size_t buffer) const {
    return fmt::format("((uintptr_t){} & {}u) == 0", cn.buffer(buffer), half(buffer) ? 7 : 15);
  }
  // Registers that hold a group as loaded from a half-precision buffer (warpBlock's prefetches): the
  // statements read them widened.
  std::map<std::string, size_t> loadedHalf;
  // The elements held in registers across a serial loop of a warp (holdAcross): {buffer, base} → the lane's
  // float4 for each of its groups, whether holding was possible at run time (warp-uniform), and whether the
  // lane owns each group.
  struct Held {
    std::vector<std::string> regs;
    std::string possible;
    std::vector<std::string> owns;
  };
  std::map<std::pair<size_t, SymExpr>, Held> held;
  const Held *heldBy(const VectorLoop &v) const;
  int heldCount = 0, prefetchCount = 0;
  // The loads of read-only inputs that a held lane loop makes, issued at the start of the statements that
  // hold the loop (prefetch): {buffer, base} → the lane's float4 for each of its groups.
  std::map<std::pair<size_t, SymExpr>, std::vector<std::string>> prefetched;
  // While a pipelined loop's body prints (pipeline): each lane loop's groups that the lane owns.
  std::map<const LStmt *, std::vector<std::string>> piped;
  int pipeCount = 0;
  int64_t ahead = 0; // the region's Region::ahead while its kernel prints
  // While a pipelined loop prints: the local bound that its loads ahead test (its end and the lane loops'
  // guards folded into one), or empty where they test the guards themselves.
  std::string stop;

  int stages = 0;
};

} // namespace moac
