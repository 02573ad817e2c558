// The Denotational Normal Form: what ψ-reduction leaves. Every output and every materialised
// intermediate is an array defined over a symbolic index space by a scalar body that reads only
// ψ-selections of inputs and of earlier arrays, with reductions as explicit binders:
//   ⟨i⟩ψ s = (Σ_{j<dk} ⟨j⟩ψ q × ⟨i j⟩ψ K) ÷ √dk
// No transpose, take, drop, cat, reshape or comprehension survives: they became index arithmetic.
#pragma once

#include "AST.h"
#include "Symbolic.h"
#include "Typed.h"

#include <map>
#include <memory>
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
};

struct DExpr;
using DExprPtr = std::shared_ptr<const DExpr>;

struct DExpr {
  DKind kind;
  SourceLoc loc; // the .moa operator this node came from
  double floatValue = 0;
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
};

DExprPtr dFloat(double v, SourceLoc loc);
DExprPtr dInt(SymExpr v, SourceLoc loc);
DExprPtr dRead(size_t array, SymVec index, SourceLoc loc);
DExprPtr dUnary(UnOp op, DExprPtr a, SourceLoc loc);
DExprPtr dBinary(BinOp op, DExprPtr a, DExprPtr b, SourceLoc loc);
DExprPtr dReduce(BinOp op, Symbol var, SymExpr extent, DExprPtr body, SourceLoc loc);
DExprPtr dSelect(SymExpr lhs, SymExpr rhs, DExprPtr then, DExprPtr otherwise, SourceLoc loc);

// Replaces free symbols (index variables) by expressions; reduction binders are never captured since
// every binder is a fresh symbol.
DExprPtr substitute(const DExprPtr &e, const std::map<Symbol, SymExpr> &bindings);
bool containsReduce(const DExprPtr &e);
// Free symbols (dims and index variables; reduction binders excluded), sorted.
std::vector<Symbol> freeSymbols(const DExprPtr &e);

// Printing in MoA notation: `Σ_{j<dk} (⟨j⟩ψ q × ⟨i j⟩ψ K)`, ASCII `sum_{j<dk} (<j> psi q * <i j> psi K)`.
struct DnfPrinter {
  const struct DnfProgram &program;
  bool ascii = false;
  std::map<Symbol, std::string> names; // display names for index symbols (default: the symbol's name)
  std::string expr(const DExprPtr &e) const;
  std::string index(const SymVec &idx) const;
  std::string sym(const SymExpr &e) const;
  std::string definition(size_t array) const; // ⟨i⟩ψ s = …
};
std::string dumpDnf(const DnfProgram &program, bool ascii = false);

enum class Storage { Input, Temp, Output };

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
};

// One step of the derivation, for `moac explain`.
struct TraceStep {
  std::string rule;   // the ψ-rule's name, e.g. "psi-transpose"
  std::string before; // ⟨j l⟩ψ ⍉K
  std::string after;  // ⟨l j⟩ψ K
  std::string note;   // "Kᵀ is never formed", or empty
  int depth = 0;
};

// The derivation of one definition: how its DNF came about, rule by rule.
struct TraceBlock {
  std::string title;  // "s — stored", "e — inlined where it is used"
  std::vector<TraceStep> steps;
  std::string result; // the definition it ends in, in MoA notation
};

struct DnfProgram {
  std::string fileName;
  std::vector<TDim> dims;
  std::vector<DnfArray> arrays; // inputs first (declaration order), then temps and outputs in the
                                // order they are computed
  std::vector<Guard> guards;
  std::vector<TraceBlock> trace; // in the order the definitions were completed: dependencies first
  std::vector<size_t> outputs; // indices into arrays, in `out` order
  std::vector<size_t> order;   // temps and outputs in the order they are computed
};

} // namespace moac
