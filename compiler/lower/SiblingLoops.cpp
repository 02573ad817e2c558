#include "SiblingLoops.h"

#include "Build.h"

#include <optional>
#include <set>

namespace moac {

namespace {

// The scalars a serial loop folds its terms into, or none where it is not such a loop.
std::set<Symbol> reducedBy(const LStmt &s) {
  std::set<Symbol> out;
  if (s.kind != LStmt::Loop || s.loopKind != LoopKind::Serial || s.body.empty())
    return {};
  for (const LStmt &t : s.body) {
    if (t.kind != LStmt::Accumulate)
      return {};
    out.insert(t.scalar);
  }
  return out;
}

bool same(const LExprPtr &a, const LExprPtr &b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind || a->isInt != b->isInt || a->floatValue != b->floatValue ||
      !(a->intValue == b->intValue) || a->buffer != b->buffer || !(a->offset == b->offset) || a->var != b->var ||
      a->unop != b->unop || a->op != b->op || !(a->lhs == b->lhs) || !(a->rhs == b->rhs) ||
      a->args.size() != b->args.size())
    return false;
  for (size_t i = 0; i < a->args.size(); ++i)
    if (!same(a->args[i], b->args[i]))
      return false;
  return true;
}

void rescalings(const LExprPtr &e, std::vector<LExprPtr> &out) {
  if (e->kind == LExprKind::Rescale)
    out.push_back(e);
  for (const LExprPtr &a : e->args)
    rescalings(a, out);
}

LExprPtr replace(const LExprPtr &e, const LExprPtr &what, const LExprPtr &by) {
  if (same(e, what))
    return by;
  LExpr x = *e;
  for (LExprPtr &a : x.args)
    a = replace(a, what, by);
  return makeL(x);
}

// A rescaling factor that terms of two of the fused statements of one type compute alike, declared once at
// the top in that type.
void shareFactors(LStmt &loop, SymbolTable &symbols) {
  std::vector<LStmt> declared;
  for (size_t i = 0; i < loop.body.size(); ++i) {
    std::vector<LExprPtr> mine;
    rescalings(loop.body[i].value, mine);
    for (const LExprPtr &f : mine) {
      bool shared = false;
      for (size_t j = i + 1; j < loop.body.size(); ++j) {
        if (loop.body[j].type != loop.body[i].type)
          continue;
        std::vector<LExprPtr> theirs;
        rescalings(loop.body[j].value, theirs);
        for (const LExprPtr &g : theirs)
          shared |= same(f, g);
      }
      if (!shared)
        continue;
      Symbol factor = symbols.fresh("factor");
      LExprPtr use = var(factor, false);
      for (size_t j = i; j < loop.body.size(); ++j)
        if (loop.body[j].type == loop.body[i].type)
          loop.body[j].value = replace(loop.body[j].value, f, use);
      declared.push_back(scalarStmt(LStmt::Decl, factor, loop.body[i].type, f, loop.body[i].loc));
    }
  }
  loop.body.insert(loop.body.begin(), std::make_move_iterator(declared.begin()),
                   std::make_move_iterator(declared.end()));
}

} // namespace

std::vector<FusedSiblings> fuseSiblingReductions(std::vector<LStmt> &body, SymbolTable &symbols) {
  std::vector<FusedSiblings> out;
  for (LStmt &s : body)
    for (std::vector<LStmt> *inner : {&s.body, &s.orElse})
      for (FusedSiblings &f : fuseSiblingReductions(*inner, symbols))
        out.push_back(std::move(f));
  for (size_t i = 0; i < body.size(); ++i) {
    std::set<Symbol> folded = reducedBy(body[i]);
    if (folded.empty())
      continue;
    std::optional<FusedSiblings> record;
    for (;;) {
      LStmt &a = body[i];
      size_t j = i + 1;
      while (j < body.size() && body[j].kind == LStmt::Decl && !readsVar(body[j].value, folded))
        ++j;
      if (j == body.size())
        break;
      LStmt &b = body[j];
      std::set<Symbol> bFolded = reducedBy(b);
      bool fusable = !bFolded.empty() && b.start == a.start && b.end == a.end && b.step == a.step;
      for (const LStmt &t : b.body)
        fusable = fusable && !readsVar(t.value, folded) && !folded.count(t.scalar);
      for (const LStmt &t : a.body) // A's terms must not see B's scalars change under them
        fusable = fusable && !readsVar(t.value, bFolded);
      if (!fusable)
        break;
      if (!record)
        record = FusedSiblings{a.var, a.start, a.end, {a.body.front().loc}};
      record->folded.push_back(b.body.front().loc);
      for (LStmt &t : b.body) {
        t.value = shiftIndex(t.value, b.var, SymExpr::symbol(a.var));
        a.body.push_back(std::move(t));
      }
      folded.insert(bFolded.begin(), bFolded.end());
      // the declarations between move before the loop (they read none of its scalars), then B goes
      std::vector<LStmt> between(std::make_move_iterator(body.begin() + long(i) + 1),
                                 std::make_move_iterator(body.begin() + long(j)));
      LStmt fused = std::move(body[i]);
      body.erase(body.begin() + long(i), body.begin() + long(j) + 1);
      body.insert(body.begin() + long(i), std::make_move_iterator(between.begin()),
                  std::make_move_iterator(between.end()));
      i += between.size();
      body.insert(body.begin() + long(i), std::move(fused));
    }
    if (record) {
      shareFactors(body[i], symbols);
      out.push_back(std::move(*record));
    }
  }
  return out;
}

} // namespace moac
