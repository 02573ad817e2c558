#include "Build.h"

#include <map>

#include "Ops.h"

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

std::vector<LStmt> interleavedSum(SymbolTable &symbols, Symbol acc, ElemType type, BinOp op, Symbol index,
                                  const SymExpr &start, const SymExpr &end, const LExprPtr &term, int64_t lanes,
                                  SourceLoc loc, const std::function<LStmt(int64_t ahead)> &inRange) {
  std::vector<LStmt> out;
  const LExprPtr zero = floatConst(identity(op, false));
  std::vector<Symbol> accs{acc};
  for (int64_t j = 1; j < lanes; ++j) {
    accs.push_back(symbols.fresh(acc.hint() + "_lane"));
    out.push_back(scalarStmt(LStmt::Decl, accs.back(), type, zero, loc));
  }
  auto guarded = [&](LStmt s, int64_t ahead) {
    if (!inRange)
      return s;
    LStmt g = inRange(ahead);
    g.body.push_back(std::move(s));
    return g;
  };
  auto termInto = [&](int64_t j) {
    return scalarStmt(LStmt::Accumulate, accs[size_t(j)], type,
                      shiftIndex(term, index, SymExpr::symbol(index) + SymExpr(j)), loc, op);
  };
  const SymExpr whole = start + SymExpr::floorDiv(end - start, SymExpr(lanes)) * SymExpr(lanes);
  if (lanes > 1) {
    LStmt rounds = loop(index, start, whole, lanes, LoopKind::Serial, loc);
    if (inRange) {
      LStmt full = inRange(lanes - 1);
      for (int64_t j = 0; j < lanes; ++j) {
        full.body.push_back(termInto(j));
        full.orElse.push_back(guarded(termInto(j), j));
      }
      rounds.body.push_back(std::move(full));
    } else {
      for (int64_t j = 0; j < lanes; ++j)
        rounds.body.push_back(termInto(j));
    }
    out.push_back(std::move(rounds));
  }
  LStmt rest = loop(index, lanes > 1 ? whole : start, end, 1, LoopKind::Serial, loc);
  rest.body.push_back(guarded(scalarStmt(LStmt::Accumulate, acc, type, term, loc, op), 0));
  out.push_back(std::move(rest));
  if (lanes > 1) {
    std::vector<LExprPtr> level;
    for (Symbol a : accs)
      level.push_back(var(a, false));
    while (level.size() > 1) {
      std::vector<LExprPtr> next;
      for (size_t i = 0; i + 1 < level.size(); i += 2)
        next.push_back(binary(op, level[i], level[i + 1]));
      if (level.size() % 2)
        next.push_back(level.back());
      level = std::move(next);
    }
    out.push_back(scalarStmt(LStmt::Assign, acc, type, level[0], loc));
  }
  return out;
}

} // namespace moac
