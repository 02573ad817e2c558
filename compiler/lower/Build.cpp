#include "Build.h"

#include <map>

namespace moac {

LExprPtr makeL(LExpr e) { return std::make_shared<const LExpr>(std::move(e)); }

LStmt loop(Symbol var, SymExpr start, SymExpr end, SymExpr step, LoopKind kind, SourceLoc loc) {
  LStmt s{};
  s.kind = LStmt::Loop;
  s.var = var;
  s.start = std::move(start);
  s.end = std::move(end);
  s.step = std::move(step);
  s.loopKind = kind;
  s.loc = loc;
  return s;
}

LStmt scalarStmt(LStmt::Kind kind, Symbol scalar, ElemType type, LExprPtr value, SourceLoc loc, BinOp op) {
  LStmt s{};
  s.kind = kind;
  s.scalar = scalar;
  s.type = type;
  s.value = std::move(value);
  s.op = op;
  s.loc = loc;
  return s;
}

LStmt store(size_t buffer, SymExpr offset, LExprPtr value, SourceLoc loc) {
  LStmt s{};
  s.kind = LStmt::Store;
  s.buffer = buffer;
  s.offset = std::move(offset);
  s.value = std::move(value);
  s.loc = loc;
  return s;
}

LExprPtr floatConst(double v) {
  LExpr e{};
  e.kind = LExprKind::Float;
  e.floatValue = v;
  return makeL(e);
}

LExprPtr var(Symbol s, bool isInt) {
  LExpr e{};
  e.kind = LExprKind::Var;
  e.var = s;
  e.isInt = isInt;
  return makeL(e);
}

// buffer[offset]
LExprPtr loadAt(size_t buffer, SymExpr offset, bool isInt) {
  LExpr e{};
  e.kind = LExprKind::Load;
  e.buffer = buffer;
  e.offset = std::move(offset);
  e.isInt = isInt;
  return makeL(e);
}

LExprPtr binary(BinOp op, LExprPtr a, LExprPtr b) {
  LExpr e{};
  e.kind = LExprKind::Binary;
  e.op = op;
  e.isInt = a->isInt && b->isInt;
  e.args = {std::move(a), std::move(b)};
  return makeL(e);
}

LExprPtr rescale(LExprPtr a, LExprPtr m) {
  LExpr e{};
  e.kind = LExprKind::Rescale;
  e.args = {std::move(a), std::move(m)};
  return makeL(e);
}

LExprPtr shiftIndex(const LExprPtr &e, Symbol var, const SymExpr &by) {
  const std::map<Symbol, SymExpr> binding{{var, by}};
  LExpr x = *e;
  if (x.kind == LExprKind::Var && x.var == var) {
    x.kind = LExprKind::Int;
    x.isInt = true;
    x.intValue = by;
    return makeL(x);
  }
  x.intValue = x.intValue.substitute(binding);
  x.offset = x.offset.substitute(binding);
  x.lhs = x.lhs.substitute(binding);
  x.rhs = x.rhs.substitute(binding);
  for (LExprPtr &a : x.args)
    a = shiftIndex(a, var, by);
  return makeL(x);
}

} // namespace moac
