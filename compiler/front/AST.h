// The parse tree of a .moa program, exactly as written: names unresolved, functions not inlined.
// One node type per syntactic category with a Kind enum (LLVM style); every node has a source range.
#pragma once

#include "ElemType.h"
#include "Ops.h"
#include "Source.h"

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace moac {

enum class ExprKind {
  Number,        // 2, 0.5
  Name,          // n, K, x
  Vector,        // <i j>, <i, j+1>
  Unary,         // neg x, exp(x), -x
  Binary,        // a + b, a max b, a div b (elementwise with scalar extension)
  Reduce,        // +/ A, +/[1] A
  Inner,         // A +.* B
  Outer,         // A o.* B
  Psi,           // <i> psi A
  Rho,           // rho A
  Iota,          // iota n
  Tran,          // tran A, <p> tran A (args: [A] or [p, A])
  Take,          // k take A
  Drop,          // k drop A
  Cat,           // A cat B
  Reshape,       // <s> reshape A
  Rav,           // rav A
  Call,          // f(a, b)
  Comprehension, // [i < n, j < m] expr
  Where,         // where(c, a, b): a where c is not 0, else b (elementwise)
};

struct Binder {
  std::string name;
  SourceLoc loc;
  std::unique_ptr<struct Expr> extent;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;       // the operator (or the whole token for leaves): where carets point
  uint32_t length = 1; // bytes underlined at loc
  std::vector<std::unique_ptr<Expr>> args;

  // payload, by kind
  bool isInt = false;     // Number
  int64_t intValue = 0;   // Number
  double floatValue = 0;  // Number
  std::string name;       // Name, Call (callee)
  BinOp op = BinOp::Add;  // Binary, Reduce, Inner (f)
  BinOp op2 = BinOp::Mul; // Inner, Outer (g)
  UnOp unop = UnOp::Neg;  // Unary
  int64_t axis = 0;       // Reduce: the axis `+/[k]` names (0, the leading axis, when none is written)
  bool commas = false;    // Vector: written with commas
  std::vector<Binder> binders; // Comprehension

  Expr(ExprKind kind, SourceLoc loc, uint32_t length = 1) : kind(kind), loc(loc), length(length) {}
};
using ExprPtr = std::unique_ptr<Expr>;

struct DimDecl {
  std::string name;
  SourceLoc loc;
  ExprPtr value; // null: bound at run time
  std::optional<int64_t> least; // `dim t >= 0`: the least value a run-time dim may take (1 when not written)
  SourceLoc leastLoc;
};

// `assume w <= n`: a relation between dims that the shape checker may use and every run checks.
struct AssumeDecl {
  std::string name; // empty: an assumption declares no name
  SourceLoc loc;
  ExprPtr relation; // a comparison (Binary with < <= == >= >) of integer expressions over dims
};

enum class ArrayRole { In, InOut };

struct ArrayDecl {
  ArrayRole role;
  std::string name;
  SourceLoc loc;
  ElemType elem;
  std::vector<ExprPtr> extents; // empty: a scalar
};

struct Binding {
  std::string name;
  SourceLoc loc;
  bool isOutput = false;
  std::optional<ElemType> elem; // `out o : bf16 = e`: the output's storage type (else the value's type)
  SourceLoc elemLoc;
  ExprPtr value;
};

struct FnDecl {
  std::string name;
  SourceLoc loc;
  std::vector<std::string> params;
  std::vector<SourceLoc> paramLocs;
  std::vector<Binding> locals;
  ExprPtr result;
};

// Top-level items in source order.
using Item = std::variant<DimDecl, ArrayDecl, Binding, FnDecl, AssumeDecl>;

struct Program {
  std::string fileName;
  std::vector<Item> items;
  SourceLoc end; // the end of the file: where a program-wide error (no outputs) points
};

// The stable, readable dump behind `--emit=ast` (golden tested).
std::string dumpAst(const Program &program);
std::string exprKindName(ExprKind kind);

} // namespace moac
