// The typed program: the output of shape inference (Shapes.cpp) and the input of every later stage.
// Names are resolved, functions are inlined (one copy per call, as Let chains), comprehension indices
// are fresh symbols, and every node carries its element type and symbolic shape. Integer scalars and
// vectors also carry their symbolic value when it is known (`dk`, `<b, g*hkv div hq>`).
#pragma once

#include "AST.h"
#include "Symbolic.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace moac {

struct Type {
  ElemType elem = ElemType::F32;
  SymVec shape;
  std::optional<SymVec> value; // integer scalars (one entry) and vectors with a known value
  // An integer scalar or vector whose value is not known but whose every entry is known or an element
  // read from an integer `in` array (SymExpr::load): what a gather may use as a ψ index. Arithmetic on it
  // gives no `gather` (a gather index is a plain read, docs/language.md §7).
  std::optional<SymVec> gather = std::nullopt;
  size_t rank() const { return shape.size(); }
};
std::string strType(const Type &t, bool ascii = false); // f32⟨n dk⟩

enum class TKind {
  IntConst,   // an integer scalar with a symbolic value: literal, dim, or comprehension index
  FloatConst, // a float literal
  Input,      // an `in`/`inout` array
  Ref,        // a use of a binding (top-level or let)
  Let,        // let binding = args[0] in args[1] (from inlining a function)
  Vector,     // <a, b, ...>
  Unary,
  Binary,
  Reduce,
  Inner,
  Outer,
  Psi,  // args: index, array
  Rho,  // args: array
  Iota, // args: count
  Tran, // args: array, or perm, array
  Take, // args: count, array
  Drop, // args: count, array
  Cat,
  Reshape, // args: shape, array
  Rav,
  Comprehension, // indices[] bound over args[0]
  Where,         // args: condition (int), value where it is not 0, value where it is 0
};
const char *tkindName(TKind kind);

struct TBinding;

struct TIndex {
  Symbol sym;
  SymExpr extent; // over dims only
  SourceLoc loc;
};

struct TExpr {
  TKind kind;
  SourceLoc loc;
  uint32_t length = 1;
  Type type;
  std::vector<std::unique_ptr<TExpr>> args;

  SymExpr intValue;                // IntConst
  double floatValue = 0;           // FloatConst
  size_t input = 0;                // Input: index into TypedProgram::inputs
  std::string name;                // Input: its name
  const TBinding *ref = nullptr;   // Ref
  std::unique_ptr<TBinding> let;   // Let
  BinOp op = BinOp::Add;           // Binary, Reduce, Inner (f)
  BinOp op2 = BinOp::Mul;          // Inner, Outer (g)
  UnOp unop = UnOp::Neg;           // Unary
  size_t axis = 0;                 // Reduce: the axis reduced along (0: the leading one)
  SymVec gatherIndex;              // Psi whose index reads array data: the index, each load bounded by its axis
  std::vector<TIndex> indices;     // Comprehension

  TExpr(TKind kind, SourceLoc loc, uint32_t length) : kind(kind), loc(loc), length(length) {}
};
using TExprPtr = std::unique_ptr<TExpr>;

struct TBinding {
  std::string name;   // as written (function locals keep their own names)
  std::string origin; // "" at top level, else the inlined call path, e.g. "softmax"
  SourceLoc loc;
  bool isOutput = false;
  std::optional<size_t> updates; // an update of this inout (index into TypedProgram::inputs), written in place
  std::optional<ElemType> storage; // an output's declared type (`out o : bf16 = …`), else value->type.elem
  TExprPtr value;
  ElemType stored() const { return storage.value_or(value->type.elem); }
};

struct TDim {
  std::string name;
  Symbol sym;
  std::optional<int64_t> value; // `dim B = 4`
  SourceLoc loc;
  int64_t least = 1;            // a run-time dim's least value: 1, or what `dim t >= 0` declares
};

struct TInput {
  std::string name;
  ArrayRole role;
  ElemType elem;
  SymVec shape;
  SourceLoc loc;
};

// A shape precondition that could not be decided at compile time, checked when dims are bound.
struct Guard {
  enum Cmp { Eq, Le, Lt } cmp;
  SymExpr lhs, rhs; // over dims only
  SourceLoc loc;
  std::string reason; // "take count within the leading extent"
  std::string str() const;
  bool holds(const std::function<int64_t(Symbol)> &dimValue) const;
};

struct TypedProgram {
  std::string fileName;
  std::vector<TDim> dims;     // declaration order; fixed dims are constants in every shape
  std::vector<TInput> inputs; // declaration order: the kernel's argument order
  std::vector<std::unique_ptr<TBinding>> bindings; // top level, in order; outputs have isOutput
  std::vector<Guard> guards;
};

std::string dumpShapes(const TypedProgram &program, bool ascii = false);

// The index arrays of the program's gathers: each input slot read as an index, with the extents (over
// dims) of the axes it indexes. Every element must lie in [0, least of them) (docs/language.md §7).
std::map<size_t, SymVec> gatherBounds(const TypedProgram &program);

} // namespace moac

namespace moac {
// A typed expression in MoA notation (`(q +.× ⍉K) ÷ √dk`; ASCII `(q +.* tran K) / sqrt(dk)`), with
// bindings by name; used by `moac explain` to show each expression before it is rewritten.
std::string printTExpr(const TExpr &e, bool ascii = false);
} // namespace moac
