// Constructors of loop-IR nodes, shared by the lowering's files (Lower.cpp, LowerFused.cpp).
#pragma once

#include "LoopIR.h"

namespace moac {

LExprPtr makeL(LExpr e);
LStmt loop(Symbol var, SymExpr start, SymExpr end, SymExpr step, LoopKind kind, SourceLoc loc);
LStmt scalarStmt(LStmt::Kind kind, Symbol scalar, ElemType type, LExprPtr value, SourceLoc loc,
                 BinOp op = BinOp::Add);
LStmt store(size_t buffer, SymExpr offset, LExprPtr value, SourceLoc loc);
LExprPtr floatConst(double v);
LExprPtr var(Symbol s, bool isInt);
// buffer[offset]
LExprPtr loadAt(size_t buffer, SymExpr offset, bool isInt);
// a op b, and the guarded rescaling factor a == −∞ ? 0 : exp(a − m) (LExprKind::Rescale)
LExprPtr binary(BinOp op, LExprPtr a, LExprPtr b);
LExprPtr rescale(LExprPtr a, LExprPtr m);
// e with index `var` replaced by `by` in every offset and integer value (a Var of it becomes that value).
LExprPtr shiftIndex(const LExprPtr &e, Symbol var, const SymExpr &by);

} // namespace moac
