// The Denotational Normal Form: what ψ-reduction leaves. Every output and every materialised
// intermediate is an array defined over a symbolic index space by a scalar body that reads only
// ψ-selections of inputs and of earlier arrays, with reductions as explicit binders:
//   ⟨i⟩ψ s = (Σ_{j<dk} ⟨j⟩ψ q × ⟨i j⟩ψ K) ÷ √dk
// No transpose, take, drop, cat, reshape or comprehension survives: they became index arithmetic.
#pragma once

#include "AST.h"
#include "Symbolic.h"
#include "Typed.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace moac {

enum class DKind {
  Float,  // a float constant
  Int,    // an integer value: a dim, an index expression, an iota element
  Read,   // ⟨index⟩ψ ARRAY
  Unary,  // f(a)
  Binary, // a op b
  Reduce, // op_{var < extent} body
  Select, // lhs < rhs ? then : else   (from cat's case split on the leading index)
  Fused,  // ⟨frame extra⟩ψ G.member: a result of the fused reduction group G (FusedGroup below)
  Where,  // where(args[0], args[1], args[2]): args[1] where args[0] is not 0, else args[2]
};

struct DExpr;
using DExprPtr = std::shared_ptr<const DExpr>;

struct DExpr {
  DKind kind;
  SourceLoc loc; // the .moa operator this node came from
  double floatValue = 0;
  // Float: the type the program gave the literal (a cat decided at compile time, `0 psi (<0.1> ++ t)`
  // with t : f32, is t's type); nullopt for a literal that takes the type of the operation using it.
  std::optional<ElemType> literalType;
  SymExpr intValue;        // Int
  size_t array = 0;        // Read: index into DnfProgram::arrays
  SymVec index;            // Read
  UnOp unop = UnOp::Neg;   // Unary
  BinOp op = BinOp::Add;   // Binary, Reduce
  Symbol var;              // Reduce
  SymExpr extent;          // Reduce
  SymExpr lhs, rhs;        // Select: lhs < rhs
  std::vector<DExprPtr> args;
  bool isInt = false;  // the value is an integer (Int, and arithmetic over Ints)
  std::string label;   // Reduce: a name for it if it is hoisted into a temp
  size_t group = 0, member = 0; // Fused: DnfProgram::groups[group].members[member], read at `index`
};

DExprPtr dFloat(double v, SourceLoc loc, std::optional<ElemType> type = std::nullopt);
DExprPtr dInt(SymExpr v, SourceLoc loc);
// isInt: the array holds integers (a stored comparison, an index computation).
DExprPtr dRead(size_t array, SymVec index, bool isInt, SourceLoc loc);
DExprPtr dUnary(UnOp op, DExprPtr a, SourceLoc loc);
DExprPtr dBinary(BinOp op, DExprPtr a, DExprPtr b, SourceLoc loc);
DExprPtr dReduce(BinOp op, Symbol var, SymExpr extent, DExprPtr body, SourceLoc loc, std::string label = {});
// Decided at compile time when rhs − lhs is a constant, with dWhere's exception (then `0 < 1` or `0 < 0`).
DExprPtr dSelect(SymExpr lhs, SymExpr rhs, DExprPtr then, DExprPtr otherwise, SourceLoc loc);
DExprPtr dFused(size_t group, size_t member, SymVec index, SourceLoc loc);
// Decided at compile time when the condition is an integer constant, unless the chosen branch is
// literals alone and the other reads an array: that branch stays, as the witness of the type (Dnf.cpp).
DExprPtr dWhere(DExprPtr cond, DExprPtr then, DExprPtr otherwise, SourceLoc loc);

// a and b equal up to the renaming `ren` of a's free symbols into b's (reduction binders are matched as
// they are met, so two copies of one reduction with different fresh binders are equal).
bool sameExpr(const DExprPtr &a, const DExprPtr &b, std::map<Symbol, SymExpr> &ren);
bool sameExpr(const DExprPtr &a, const DExprPtr &b);

// Replaces free symbols (index variables) by expressions; reduction binders are never captured since
// every binder is a fresh symbol.
DExprPtr substitute(const DExprPtr &e, const std::map<Symbol, SymExpr> &bindings);
bool containsReduce(const DExprPtr &e);
// The walker: calls f for e and every node below it, each node before its arguments and the arguments
// left to right (a node shared by two parents is met once per parent).
void forEachNode(const DExprPtr &e, const std::function<void(const DExpr &)> &f);
// The arrays e reads (its Read nodes' ids); none for a null e.
std::set<size_t> arraysRead(const DExprPtr &e);
// The mutator: e with each argument replaced by f(position, argument), called left to right; every other
// field is kept, and e itself is returned when no argument changed (unchanged subtrees stay shared).
DExprPtr mapArgs(const DExprPtr &e, const std::function<DExprPtr(size_t, const DExprPtr &)> &f);
// A copy of e whose reduction binders are new symbols of the current NameScope, outer ones first: a
// binding's template inlined into another definition, or a subexpression hoisted into a temp, is spelled
// in the names of the definition it now belongs to (symbols of one scope never show in another). Each
// new binder's range is recorded in `ranges` when given.
DExprPtr freshBinders(SymbolTable &symbols, const DExprPtr &e, std::map<Symbol, SymExpr> *ranges = nullptr);

// The hints for an array's own indices, axis by axis (the last repeats).
constexpr const char *indexHints[] = {"i", "j", "k", "p", "q", "r"};
inline const char *indexHint(size_t axis) { return indexHints[std::min(axis, std::size(indexHints) - 1)]; }
// Free symbols (dims and index variables; reduction binders excluded), sorted.
std::vector<Symbol> freeSymbols(const DExprPtr &e);

// A reduction's range as printed: `l<n`, and `l≤i` (ASCII `l<=i`) for a triangular range l < i + 1 over an
// index i (not a dim: `l<t + 1` stays as written). print writes a symbolic expression.
std::string rangeText(const std::string &var, const SymExpr &extent, const std::vector<TDim> &dims, bool ascii,
                      const std::function<std::string(const SymExpr &)> &print);

// Printing in MoA notation: `Σ_{j<dk} (⟨j⟩ψ q × ⟨i j⟩ψ K)`, ASCII `sum_{j<dk} (<j> psi q * <i j> psi K)`.
struct DnfPrinter {
  const struct DnfProgram &program;
  bool ascii = false;
  std::map<Symbol, std::string> names; // display names for index symbols (default: the symbol's name)
  std::string expr(const DExprPtr &e) const;
  std::string index(const SymVec &idx) const;
  std::string sym(const SymExpr &e) const;
  std::string range(const std::string &var, const SymExpr &extent) const; // l<n; l≤i for l < i + 1 (triangular)
  std::string definition(size_t array) const; // ⟨i⟩ψ s = …
};

// The float type an expression computes in by the language's rules (docs/language.md): a read computes in
// its array's compute type (f32 for f32, bf16 and f16 arrays, f64 for f64), a literal adapts to the other
// operand, an operation of f32 and f64 is f64, a reduction is its term's type. nullopt for an integer or an
// expression of literals alone (the enclosing type decides).
std::optional<ElemType> floatTypeOf(const DExpr &e, const DnfProgram &program);
std::string dumpDnf(const DnfProgram &program, bool ascii = false);
// Readable names for one definition: its own indices i, j, k, …, then the reduction binders of its bodies.
std::map<Symbol, std::string> displayNames(const struct DnfProgram &p, const std::vector<Symbol> &own,
                                           const std::vector<DExprPtr> &bodies);
// The derivation's notation for a selection: `⟨i j⟩ψ K`, the operand parenthesised unless it is one word.
std::string psiText(const SymVec &idx, const std::string &operand);

// Update: the new value of an inout, stored in the inout's own buffer (its leading rows).
enum class Storage { Input, Temp, Output, Update };

struct DnfArray {
  std::string name;
  Storage storage;
  ElemType elem;
  SymVec shape;              // the index space; for temps inside comprehensions it starts with the
                             // comprehension indices the value depends on
  std::vector<Symbol> index; // one symbol per axis (empty for inputs)
  DExprPtr body;             // null for inputs
  SourceLoc loc;
  std::string why;           // temps: why it is materialised
  bool inout = false;        // inputs: declared `inout` (the kernel may write it)
  std::optional<size_t> updates; // Update: the input array it overwrites
  // Temps: the value comes from literals, dims, indices and integers only (floatTypeOf is nullopt): like
  // the literal it is, it is stored in f64 and takes the type of the operation that reads it, as in the
  // reference (`(x - (+/ <0.5>)) * y` with x : f32 subtracts in f32).
  bool constant = false;
};

// Sets `constant` for a temp whose value is `value` (see DnfArray::constant) and stores it in f64 then.
void markConstant(DnfArray &temp, const DExpr &value, const DnfProgram &program);

// A read of an inout inside its own update at another element than the one written (`(1 drop K) cat k`):
// with the rows written in parallel in place it would need a copy of the input.
struct UpdateConflict {
  size_t update; // the Update array
  SymVec read;   // the index read, over the update's own index symbols
  SourceLoc loc;
};

// One step of the derivation, for `moac explain`.
struct TraceStep {
  std::string rule;   // the ψ-rule's name, e.g. "psi-transpose"
  std::string before; // ⟨j l⟩ψ ⍉K
  std::string after;  // ⟨l j⟩ψ K
  std::string note;   // "Kᵀ is never formed", or empty
  int depth = 0;
  SourceLoc loc;      // the .moa operator (or binding) the rule was applied to: explain --html links it
};

// The derivation of one definition: how its DNF came about, rule by rule.
struct TraceBlock {
  std::string title;  // "s — stored", "e — inlined where it is used"
  std::vector<TraceStep> steps;
  std::string result; // the definition it ends in, in MoA notation
};

// A fused online-softmax reduction (the rule `online softmax`, psi/Fuse.cpp, docs/dnf.md): over each
// element f of the frame and the terms l < extent, with the scores e_l = score (over frame and var),
//   member 0:  M = max_l e_l
//   member j:  S_j⟨x⟩ = Σ_l exp(e_l − M) · weight_j   (weight over frame, var and the member's extra indices x)
// all computed in one pass over l with the associative monoid
//   (m, S) ⊕ (m′, S′) = (max(m, m′), S·e^{m−M} + S′·e^{m′−M}),
// so that every e_l is computed once and never stored. Arrays read its members with DKind::Fused.
struct FusedMember {
  std::string name;            // the array it replaced (m, sum_e, o)
  std::vector<Symbol> extra;   // the member's own indices after the frame (o's feature index)
  SymVec extraShape;
  DExprPtr weight;             // null for the max (member 0); dFloat(1) for a normaliser
};
struct FusedGroup {
  std::string name;
  std::vector<Symbol> frame;   // the indices every member shares (GQA's batch and head)
  SymVec frameShape;
  Symbol var;                  // the term index l
  SymExpr extent;
  DExprPtr score;              // e_l
  std::vector<FusedMember> members;
  ElemType elem = ElemType::F32;
  SourceLoc loc;
};
// Whether an expression reads a member of a fused group, and which groups it reads.
std::vector<size_t> groupsRead(const DExprPtr &e);

// The part of an update that changes its inout. The update's value is stored in the inout's own
// buffer, so elements whose value is the inout's element at the same index need no store:
//   1. the whole body is that identity read: nothing is written (body null);
//   2. `i < a ? identity : E` on the leading index (an append, (t take K) cat k): rows [a, s₀) get E;
//   3. `i < a ? E : identity`: rows [0, a) get E;
//   4. otherwise every row is written (in place: the update may read its inout only at the element written).
struct WrittenRows {
  DExprPtr body;      // the value of the rows written; null when none is
  SymExpr start, end; // the leading index's range (0, 1 for a scalar)
};
WrittenRows writtenRows(const DnfArray &update);

// A name for a new array: `base`, else the first of base_2, base_3, … not in `taken`; it is added to `taken`.
std::string uniqueName(std::set<std::string> &taken, const std::string &base);

struct DnfProgram {
  std::string fileName;
  std::vector<TDim> dims;
  std::vector<DnfArray> arrays; // inputs first (declaration order), then temps and outputs in the
                                // order they are computed
  std::vector<Guard> guards;
  std::vector<TraceBlock> trace; // in the order the definitions were completed: dependencies first
  std::vector<size_t> outputs; // indices into arrays, in `out` order
  std::vector<size_t> order;   // temps, updates and outputs in the order they are computed
  std::vector<size_t> updates; // Update arrays in program order
  std::vector<UpdateConflict> conflicts; // reported by reportUpdateConflicts; the program is invalid
  std::vector<FusedGroup> groups; // fused reductions (psi/Fuse.h), each computed before its first reader
};

} // namespace moac
