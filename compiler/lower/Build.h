// Constructors of loop-IR nodes, shared by the lowering's files (Lower.cpp, LowerFused.cpp).
#pragma once

#include "LoopIR.h"

#include <functional>

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

// The statements that fold term (over `index`) for index in [start, end) into the accumulator `acc`, already
// declared with the identity of op, as `lanes` chains: over the whole rounds of `lanes` terms, term
// start + r·lanes + j goes into accumulator j (acc for j = 0, the others declared here with the identity);
// the remaining terms into acc in order; then acc = the chains combined pairwise, ((a0 ⊕ a1) ⊕ (a2 ⊕ a3))
// ⊕ …. The order of every operation is fixed here, so every target that prints it adds alike.
// inRange(ahead), when given: the If that holds where term index + ahead exists (a range that may run
// past the data): a round whose last term exists runs its terms unguarded, in one block (a GPU thread
// then keeps its loads in flight), the others each term under its own guard, as the remaining terms.
std::vector<LStmt> interleavedSum(SymbolTable &symbols, Symbol acc, ElemType type, BinOp op, Symbol index,
                                  const SymExpr &start, const SymExpr &end, const LExprPtr &term, int64_t lanes,
                                  SourceLoc loc, const std::function<LStmt(int64_t ahead)> &inRange = nullptr);

} // namespace moac
