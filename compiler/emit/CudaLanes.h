// The CUDA printer's reading of the loop IR (EmitCuda.cpp prints what it finds): a region's nest of
// parallel loops, the serial loops of a warp whose iterations its lanes may share (LaneLoop) and those of
// them that move four floats at a time (VectorLoop), each access with the lane loop it is made in, and the
// floor divisions and moduli worth computing once. Internal to the emit library.
#pragma once

#include "LoopIR.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace moac {

struct ParallelNest {
  std::vector<const LStmt *> loops; // outermost first
  const std::vector<LStmt> *body;   // the innermost loop's statements (the region's, without loops)
};

// The region's perfect nest of parallel loops around its work.
ParallelNest nestOf(const Region &r);

// Whether the iterations of a serial loop are independent but for reductions into scalars from outside
// it, so that lanes may take them (EmitCuda.cpp's opening comment): every store writes an element of its own (its
// γ is affine in the loop's index with a coefficient of known sign), not inside a nested loop; a loaded
// buffer the loop stores into is loaded only at the stored element; a scalar from outside is only
// reduced into, with an associative operation, and not read. At least one store or reduction, or the
// spread gains nothing.
class LaneLoop {
public:
  explicit LaneLoop(const LStmt &loop);
  bool independent();

  // The outer scalars the loop reduces into, with their operation and type.
  std::vector<const LStmt *> reducers;

private:
  bool check(const std::vector<LStmt> &body, int depth);

  const LStmt &loop;
  std::set<Symbol> inside, reductions;
  std::map<size_t, SymExpr> stores;
};

// A lane loop whose lanes take four adjacent iterations at a time, so that each access that moves by one
// element per iteration is one 16-byte load or store of four floats (docs/schedule.md, "CUDA"), or one
// 8-byte load of four bf16 or f16 elements widened to floats: a loop of step 1 over straight-line
// statements, whose every access is either invariant in the loop or an f32 element (or a half-precision
// element loaded) at γ-difference 1 (its offset is `base + var`). The lanes own the same iterations whether the
// vector path or its scalar fallback (a pointer or a base not 16-byte aligned, a group cut by the end) runs.
struct VectorLoop {
  struct Access {
    size_t buffer;
    SymExpr base; // the offset at var = 0
  };
  std::vector<Access> loads, stores; // distinct, in the order the body first makes them
};

std::optional<VectorLoop> vectorLoop(const LStmt &loop, const Kernel &k);

// Calls f for every load and store of the statements with the lane loop it is made in (the outermost
// loop around it whose iterations lanes take, LaneLoop), or null for an access of the whole warp.
void forEachLaneAccess(const std::vector<LStmt> &body,
                       const std::function<void(size_t buffer, const SymExpr &offset, const LStmt *lanes)> &f,
                       const LStmt *lanes = nullptr);

} // namespace moac
