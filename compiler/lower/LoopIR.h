// The loop IR, the Operational Normal Form: how the DNF is computed in memory. Loop nests with their
// kind (parallel, serial), scalar accumulators, loads and stores at γ offsets (64-bit symbolic integer
// expressions over dims and loop indices), buffers with their layout (row-major, or lifted for
// coalescing) and scope (argument or workspace), and for every statement the .moa location it came
// from. Parallelism and layout are data here; only the emitters print pragmas.
#pragma once

#include "AST.h"
#include "Symbolic.h"
#include "Typed.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace moac {

// A buffer's memory layout. Lifted: axis x = `axis` is split by `block` B and the block index moved
// innermost, T([p…, x, y…]) = [p…, x div B, y…, x mod B] (memory-coalescing transformation; the axes p
// before x pick a slab, each slab lifted on its own), so B adjacent lanes that each own a row read
// adjacent addresses at every step along the row.
struct Layout {
  enum Kind { RowMajor, Lifted } kind = RowMajor;
  int64_t block = 1;
  size_t axis = 0;
};

struct Buffer {
  enum Role { Input, Output, Workspace } role;
  std::string name;
  ElemType elem;
  SymVec shape; // logical shape
  Layout layout;
  std::string why;
  // Partials of a split reduction: with a single chunk they are the result itself, so this buffer is
  // `chunks > 1 ? workspace : buffers[aliasOf]`.
  std::optional<size_t> aliasOf;
  Symbol aliasChunks;         // why it exists (a DNF temp, a reduction's partials)
  bool inout = false;         // an `inout` input: the kernel may write it (an update stores into it)
  SymExpr storageElements() const; // π(p)·⌈x/B⌉·B·π(tail) when lifted
  SymExpr offset(const SymVec &index) const; // γ of a logical index under this layout
};

// Rescale: args[0] == −∞ ? 0 : exp(args[0] − args[1]), the guarded factor of the online-softmax monoid
// (psi/Fuse.h), printed as moart_rescalef / moart_rescale.
enum class LExprKind { Float, Int, Load, Var, Unary, Binary, Select, Rescale };

struct LExpr;
using LExprPtr = std::shared_ptr<const LExpr>;

struct LExpr {
  LExprKind kind;
  bool isInt = false;
  double floatValue = 0;
  SymExpr intValue;       // Int
  size_t buffer = 0;      // Load
  SymExpr offset;         // Load
  Symbol var;             // Var
  UnOp unop = UnOp::Neg;  // Unary
  BinOp op = BinOp::Add;  // Binary
  SymExpr lhs, rhs;       // Select: lhs < rhs ? args[0] : args[1]
  std::vector<LExprPtr> args;
};

enum class LoopKind {
  Parallel, // iterations independent: gang+vector (OpenACC), parallel for (OpenMP)
  Serial,   // in order, inside one thread
};

struct LStmt {
  enum Kind { Loop, Decl, Accumulate, Assign, Store, If } kind;
  SourceLoc loc; // the .moa operator this statement computes

  // Loop: for (var = start; var < end; var += step)
  Symbol var;
  SymExpr start, end, step = SymExpr(1);
  LoopKind loopKind = LoopKind::Serial;
  std::vector<LStmt> body;

  // Decl (scalar = value), Accumulate (scalar = op(scalar, value)), Assign (scalar = value)
  Symbol scalar;
  ElemType type = ElemType::F32;
  BinOp op = BinOp::Add;
  LExprPtr value;

  // Store: buffer[offset] = value
  size_t buffer = 0;
  SymExpr offset;

  // If: lhs < rhs ? body : orElse
  SymExpr lhs, rhs;
  std::vector<LStmt> orElse;
};

// A γ-difference report: the change of an access's offset between adjacent vector lanes.
struct Coalescing {
  std::string stage;
  std::string access; // K[γ]
  std::string lane;   // the lane index
  std::string difference; // "1", "dk", "0", or "not affine"
  std::string note;
};

// One parallel region: a perfect nest of `parallelDepth` parallel loops around serial work, or
// (parallelDepth == 0) serial work run by one thread.
struct Region {
  std::string name; // what it computes, e.g. "s" or "m (partials)"
  SourceLoc loc;
  int parallelDepth = 0;
  std::vector<LStmt> body;
  std::optional<Symbol> onlyIfChunks; // run only when this chunk count is above 1 (a combine step)
};

// The chunk count P of a split reduction, computed once at entry from the dims:
// P = clamp(⌈threads / items⌉, 1, ⌈terms / chunk⌉) (moart_chunks in runtime/include/moart/kernel.h).
struct ChunkCount {
  Symbol sym;
  SymExpr items; // the reduction's own index space, π of the array's shape
  SymExpr terms; // the reduction's extent
  std::string of; // the array it belongs to
  int64_t threads = 0, chunk = 0; // the schedule's constants
};

struct Kernel {
  std::string name;         // C function name
  std::string fileName;     // .moa source
  std::vector<TDim> dims;
  std::vector<Buffer> buffers; // inputs (declaration order), outputs (`out` order), then workspace
  std::vector<Guard> guards;
  std::vector<ChunkCount> chunkCounts;
  std::vector<Region> stages;
  std::vector<Coalescing> coalescing;
  std::vector<std::string> decisions; // the schedule's choices, in words (for explain and --emit=onf)
  std::vector<size_t> inputs() const;
  std::vector<size_t> outputs() const;
  std::vector<size_t> workspace() const;
};

std::string dumpLoopIR(const Kernel &kernel);

// Calls f for every load and store in the statements, nested ones included.
void forEachAccess(const std::vector<LStmt> &body,
                   const std::function<void(size_t buffer, const SymExpr &offset, bool isStore)> &f);

} // namespace moac
