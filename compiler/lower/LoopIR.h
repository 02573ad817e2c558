// The loop IR, the Operational Normal Form: how the DNF is computed in memory. Loop nests with their
// kind (parallel, serial), scalar accumulators, loads and stores at γ offsets (64-bit symbolic integer
// expressions over dims and loop indices), buffers with their layout (row-major, or lifted for
// coalescing) and scope (argument or workspace), and for every statement the .moa location it came
// from. Parallelism and layout are data here; only the emitters print pragmas.
#pragma once

#include "AST.h"
#include "Dnf.h"
#include "Symbolic.h"
#include "Typed.h"

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
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
  // Why it exists: an array of the DNF (an argument, or a stored temp: `array`, whose DnfArray::why
  // says why the DNF stores it), a split reduction's partials or group results (of buffers[aliasOf]),
  // one member's partial results of a fused group's splits, or the weights exp(e − m) of a fused group
  // whose scores are stored, one per term, written and read by the term's split (lower/LowerFused.h).
  // FusedMaximum, FusedFactors: the splits' maximum M of a fused group whose scores are stored, one per
  // frame element, and each split's factor exp(m_c − M), which its readers multiply its partials by.
  // FusedTile: a tiled split pass's current tile (Schedule::tile terms a split): the scores, then the weights.
  enum Origin { Array, Partials, Groups, FusedPartials, FusedWeights, FusedMaximum, FusedFactors, FusedTile } origin =
      Array;
  size_t array = 0; // Array: the DNF array it holds (DnfProgram::arrays)
  // Partials of a split reduction: with a single chunk they are the result itself, so this buffer is
  // `chunks > 1 ? workspace : buffers[aliasOf]`.
  std::optional<size_t> aliasOf;
  Symbol aliasChunks;
  bool inout = false;         // an `inout` input: the kernel may write it (an update stores into it)
  // `name`: the .moa name of the array it holds, or, for partials and group results, of the split
  // reduction's array (buffers[*aliasOf]), or for fused partials the member's (m, sum_e, o: the array
  // it replaced); the C name is derived from it by emit/CNames.
  std::string group{}; // FusedPartials … FusedFactors: the fused group's name (FusedGroup::name, `online`)
  std::string label() const; // for dumps: m, m_part, m_group, online_o_part, online_weights
  SymExpr storageElements() const; // π(p)·⌈x/B⌉·B·π(tail) when lifted
  SymExpr offset(const SymVec &index) const; // γ of a logical index under this layout
};

// Rescale: args[0] == −∞ ? 0 : exp(args[0] − args[1]), the guarded factor of the online-softmax monoid
// (psi/Fuse.h), printed as moart_rescalef / moart_rescale.
// Where: args[0] != 0 ? args[1] : args[2], the selection of `where` (C's ?:, so only the branch chosen
// is evaluated).
// InF32: args[0], an f32 computation inside an f64 expression (the language computes an operation in the
// wider type of its operands, so `y + exp(x * 0.1)` with x : f32 and y : f64 takes exp(x·0.1) in f32), widened.
enum class LExprKind { Float, Int, Load, Var, Unary, Binary, Select, Rescale, Where, InF32 };

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
  // Inside a parallel iteration, iterations shared by its vector lanes (OpenACC `loop vector`, the
  // enclosing nest then `gang` alone), reductions into scalars from outside combined across the lanes;
  // the other targets run it in order like Serial (CUDA's lanes come from its own analysis).
  Vector,
};

struct LStmt {
  enum Kind { Loop, Decl, Accumulate, Assign, Store, If, Prefetch } kind;
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
  // Prefetch: a hint that the cache line of buffer[offset] will be read soon (MOART_PREFETCH on the CPU
  // targets). It reads and writes nothing, so no analysis counts it as an access (forEachAccess skips it);
  // its offset is always inside the buffer (the lowering guards it).
  size_t buffer = 0;
  SymExpr offset;

  // If: lhs < rhs ? body : orElse; or, when `value` is set (a `where` whose branches reduce), value != 0
  SymExpr lhs, rhs;
  std::vector<LStmt> orElse;
  // If: the body gives the same values where the condition is false (skipping it only saves work, like
  // the online softmax's rescaling by exactly 1): CUDA runs it for a whole warp where any lane's condition
  // holds, so that the lanes never diverge on it (the body's lane loops may then synchronise the warp).
  bool onlySaves = false;
};

// A γ-difference report: the change of an access's offset between adjacent vector lanes (1: coalesced,
// 0: one address for every lane, a broadcast; none: the offset is not affine in the lane).
struct Coalescing {
  size_t region = 0; // Kernel::stages
  size_t buffer = 0;
  SymExpr offset;    // the access's γ, as the region's statement writes it
  bool isStore = false;
  Symbol lane;       // the index adjacent vector lanes differ in
  std::optional<SymExpr> difference;
};

// One parallel region: a perfect nest of `parallelDepth` parallel loops around serial work, or
// (parallelDepth == 0) serial work run by one thread.
struct Region {
  // What it computes: buffers[buffer] (an update when that is an input), whole or one pass of its split
  // reduction (regionName prints "s", "m (partials)", "update K (combine)").
  size_t buffer = 0;
  // Splits: the split pass of the fused group whose maxima buffers[buffer] holds.
  // Factors: a fused group's splits' maximum and each split's factor exp(m_c − M) (stored scores).
  enum Part { Whole, Partials, Combine, CombineGroups, Splits, Factors } part = Whole;
  SourceLoc loc;
  int parallelDepth = 0;
  std::vector<LStmt> body;
  std::optional<Symbol> onlyIfChunks; // run only when this chunk count is above 1 (a combine step)
  // CUDA, a split pass: one warp takes `packing` adjacent values of the frame index `packed` together,
  // each on 32 / packing of its lanes (Decision::PackedFrame); packing 1 is one value a warp.
  Symbol packed{};
  int64_t packing = 1;
  // CUDA, a split pass: the rows its pipelined row loop keeps loaded ahead (Decision::RowsAhead; 0 elsewhere).
  int64_t ahead = 0;
  // CUDA, a split pass: its row loop may run on the tensor cores, sixteen rows a tile (Decision::TensorTiles).
  bool tiles = false;
  // CUDA, a tiled split pass: a second kernel whose warps take this many values of `packed` (0: none), which
  // the launcher runs where every pack of that many adjacent values reads the same rows (Decision::WiderPack).
  int64_t widerPacking = 0;
};

// The chunk count P of a split reduction, computed once at entry from the dims:
// P = clamp(⌈threads / items⌉, 1, ⌈terms / chunk⌉) (moart_chunks in runtime/include/moart/kernel.h).
struct ChunkCount {
  Symbol sym;
  SymExpr items; // the reduction's own index space, π of the array's shape
  SymExpr terms; // the reduction's extent
  size_t of = 0; // the buffer whose split reduction it counts (Splits: the fused group's maxima)
  // P over the terms, Q over the P partials, or the splits of a fused group
  enum Level { Chunks, Groups, Splits } level = Chunks;
  // the schedule's constants; threads 0: the device's (CUDA: 32 warps per SM, asked at run time, or
  // 32 / pack for a split pass whose warps take `pack` frame values: Region::packing)
  int64_t threads = 0, chunk = 0;
  int64_t pack = 1;
  // CUDA, the splits of a split pass that is also printed as a kernel of `packing` values of frame index `var`
  // a warp (Region::widerPacking): the launcher runs that kernel where every `packing` adjacent values of `var`
  // in [0, end) agree on each of `divisions` (the floor divisions its loads depend on `var` through, of `var`
  // and the dims only), and P then counts that kernel's frames, `items`, instead (Decision::WiderPack). The
  // layout function and the launcher make the one test (CPrinter::widerTests), so the workspace, the split
  // pass and the combine agree on P.
  struct Wider {
    Symbol var;
    SymExpr end;
    int64_t packing = 0;
    std::vector<SymExpr> divisions;
    SymExpr items;
  };
  std::optional<Wider> wider;
};

// A choice the lowering made that the loop nests alone do not explain (printed by dumpLoopIR and
// `moac explain`, docs/schedule.md).
struct Decision {
  enum Kind {
    LiftedRows,      // buffers[buffer] is read along its rows by one lane per row: stored lifted (its Layout)
    UpdateUnchanged, // the update of buffers[buffer] changes no element: no stage
    UpdateRows,      // the update of buffers[buffer] writes only rows [start, end), the others stay in place
    TermsAlongRows,  // stages[region] (partials) runs its term loop outside `inner`'s loop (CPU targets)
    FusedSplits,     // stages[region] runs the fused group of buffers[buffer] (its maxima) split-K
    StoredScores,    // ...reading the group's stored scores twice a split: maximum, then weights (no rescaling)
    InterleavedSum,  // the inline sum or product over `inner` (at `loc`) adds into `lanes` accumulators
    PackedFrame,     // CUDA: stages[region]'s warps take `lanes` values of frame index `inner` together
    RowsShared,      // stages[region]'s loop over frame index `inner` runs inside the split loop (same rows)
    RowsAhead,       // CUDA: stages[region]'s warps keep `lanes` rows of their moving loads in flight
    TensorTiles,     // CUDA: stages[region]'s row loop over `inner` runs 16 rows a step on the tensor cores
    WiderPack,       // CUDA: stages[region] also as a kernel of `lanes` values of frame index `inner` a warp
    SiblingLoops,    // stages[region]'s reductions at `locs` over `inner` in [start, end) share one loop
    RowTiles,        // stages[region]'s split loop over `inner` takes `lanes` terms a step (CPU targets)
    PrefetchRows,    // stages[region]'s whole tiles prefetch the rows `lanes` terms of `inner` ahead (CPU targets)
  } kind;
  size_t buffer = 0;
  size_t region = 0;
  Symbol inner{};
  SymExpr start{}, end{};
  int64_t lanes = 0; // InterleavedSum; PackedFrame, WiderPack: the values a warp takes; StoredScores: chains; RowTiles: terms;
                     // PrefetchRows: the terms ahead
  BinOp op = BinOp::Add;   // InterleavedSum: + or ×
  SourceLoc loc{};         // InterleavedSum: the reduction's operator
  std::vector<SourceLoc> locs{}; // SiblingLoops: the reductions' operators, in the loop's order
};

// A gather's index array (docs/language.md §7): before any stage, every element of buffers[buffer] must
// lie in [0, bound), the extent of an axis it indexes (one check per axis: the least bound decides). A
// kernel whose array holds another value returns MOART_ERR_SHAPE and writes nothing.
struct IndexCheck {
  size_t buffer = 0;
  SymExpr bound;
};

struct Kernel {
  std::string name;         // C function name
  std::string fileName;     // .moa source
  std::vector<TDim> dims;
  std::vector<Buffer> buffers; // inputs (declaration order), outputs (`out` order), then workspace
  std::vector<Guard> guards;
  std::vector<IndexCheck> indexChecks;
  std::vector<ChunkCount> chunkCounts;
  std::vector<Region> stages;
  std::vector<Coalescing> coalescing;
  std::vector<Decision> decisions;
  std::vector<size_t> inputs() const;
  std::vector<size_t> outputs() const;
  std::vector<size_t> workspace() const;
};

// The printers: the loop IR's own records in words. `dnf` is the program the kernel was lowered from
// (a stored temp's reason is the DNF's).
std::string dumpLoopIR(const Kernel &kernel, const DnfProgram &dnf);
std::string regionName(const Kernel &kernel, const Region &region);       // "m (partials)"
std::string describeDecision(const Kernel &kernel, const Decision &decision);
std::string describeAccess(const Kernel &kernel, const Coalescing &access); // "load K[…]"
std::string describeDifference(const Coalescing &access);                  // "dk", "not affine", "data-dependent"
// "coalesced", "the same address in every lane (broadcast)", or "" for any other difference
std::string describeLanes(const Coalescing &access);

// Whether `offset` depends on `var` only through the numerators of floor divisions (⌊hkv·g / hq⌋): then
// adjacent values of var often make the same access.
bool onlyThroughDivisions(const SymExpr &offset, Symbol var);
// The floor divisions ⌊a / b⌋ of the inputs' load offsets in `body` whose dividend depends on `var`: where
// each load depends on var only through such divisions (onlyThroughDivisions), values of var on which they
// all agree read the same elements. Each once, in the order first met.
std::vector<SymExpr> divisionsOf(const Kernel &k, const std::vector<LStmt> &body, Symbol var);

// The read-only inputs a region loads at offsets that move with `term` (a split's rows of K and V), in order of
// first load.
std::vector<size_t> movingInputs(const Kernel &k, const Region &region, Symbol term);

// Whether the region loads along `term` at least one read-only input and only half-precision ones (bf16, f16).
bool halfPrecisionRows(const Kernel &k, const Region &region, Symbol term);

// The bytes a warp of a CUDA split pass loads a term: 32 lanes' groups of four of each input its statements
// read along `term` (a row of K and of V; 16 bytes a group in f32, 8 in bf16 or f16, whatever the packing);
// `names` gets those inputs' names.
int64_t rowBytes(const Kernel &k, const Region &region, Symbol term, std::vector<std::string> *names = nullptr);

// The reductions of a loop into scalars declared outside it: its Accumulate statements at any depth whose
// scalar it does not declare, the first of each scalar, in order.
std::vector<const LStmt *> outerReductions(const LStmt &loop);
// Whether the statements hold a vector loop (LoopKind::Vector), nested ones included.
bool hasVectorLoop(const std::vector<LStmt> &body);
// Whether the expression (none: false) reads a scalar in `vars` (a Var of it), at any depth.
bool readsVar(const LExprPtr &e, const std::set<Symbol> &vars);

// The floor divisions and moduli of an expression whose operands use only `known` symbols, innermost
// first (so that an outer one can be computed from an inner one's value): what a printer may compute once,
// before statements in which those symbols do not change, as {div?, lhs, rhs}.
void invariantAtoms(const SymExpr &e, const std::set<Symbol> &known, std::vector<std::tuple<bool, SymExpr, SymExpr>> &out);

// Calls f for every load and store in the statements, nested ones included.
void forEachAccess(const std::vector<LStmt> &body,
                   const std::function<void(size_t buffer, const SymExpr &offset, bool isStore)> &f);

// The integer walkers: calls f for every integer expression statement `s` evaluates itself (bounds,
// condition, offsets, its value's integer values), not its body's, and, with the divisor flag, for every
// expression an LExpr divides by; then the same for every statement, nested ones included, each
// statement's own before its body's.
void forEachOwnInteger(const LStmt &s, const std::function<void(const SymExpr &, bool divisor)> &f);
void forEachInteger(const std::vector<LStmt> &body, const std::function<void(const SymExpr &, bool divisor)> &f);

} // namespace moac
