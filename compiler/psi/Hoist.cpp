#include "Hoist.h"

#include <algorithm>

#include <fmt/format.h>

namespace moac {

namespace {

using Binders = std::vector<std::pair<Symbol, SymExpr>>;
// The select branches around an expression: `lhs < rhs` holds in the then branch and fails in the else.
struct Branch {
  SymExpr lhs, rhs;
  bool then;
};
using Branches = std::vector<Branch>;

class Hoister {
public:
  Hoister(SymbolTable &symbols, DnfProgram &out, std::set<std::string> &names)
      : symbols(symbols), out(out), names(names) {}
  void schedule(size_t id, std::vector<size_t> &computed);

private:
  DExprPtr makeTemp(const DExprPtr &e, const Binders &binders, const Binders &deps, const Branches &guards,
                    const std::string &base, const char *why, ElemType elem);
  DExprPtr hoistTranscendentals(const DExprPtr &e, Binders &binders, ElemType elem);
  DExprPtr hoistReductions(const DExprPtr &e, Binders &binders, ElemType elem);

  SymbolTable &symbols;
  DnfProgram &out;
  std::set<std::string> &names;
  std::vector<size_t> created; // temps made by the current hoisting pass
  Branches branches;            // the select branches around the expression being hoisted
};

// The enclosing binders (the array's own indices, then outer reductions' variables) that e uses, and in
// `guards` the select branches around e whose condition uses one of them: a temp is computed over the
// whole range of its binders, and a read such as ⟨i − n⟩ψ B in cat's else branch is in range only
// where that branch's condition holds, so the temp keeps the condition (and the binders it uses).
static Binders dependencies(const DExprPtr &e, const Binders &binders, const Branches &branches,
                            Branches &guards) {
  std::vector<Symbol> free = freeSymbols(e);
  std::set<Symbol> used;
  for (const auto &b : binders)
    if (std::binary_search(free.begin(), free.end(), b.first))
      used.insert(b.first);
  std::vector<bool> taken(branches.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < branches.size(); ++k) {
      std::vector<Symbol> syms = (branches[k].rhs - branches[k].lhs).symbols();
      // A condition over dims only (2 < n, from <2> psi (A cat B)) decides the branch for every binder.
      bool overDims = std::none_of(binders.begin(), binders.end(), [&](const auto &b) {
        return std::find(syms.begin(), syms.end(), b.first) != syms.end();
      });
      if (taken[k] ||
          (!overDims && std::none_of(syms.begin(), syms.end(), [&](Symbol s) { return used.count(s) > 0; })))
        continue;
      taken[k] = changed = true;
      for (const auto &b : binders)
        if (std::find(syms.begin(), syms.end(), b.first) != syms.end())
          used.insert(b.first);
    }
  }
  // A binder whose range is over an enclosing one (l < i + 1) needs that one too: the temp's axis for l
  // has i + 1 elements at each i.
  for (size_t k = binders.size(); k-- > 0;)
    if (used.count(binders[k].first))
      for (const auto &b : binders)
        if (binders[k].second.dependsOn(b.first))
          used.insert(b.first);
  guards.clear();
  for (size_t k = 0; k < branches.size(); ++k)
    if (taken[k])
      guards.push_back(branches[k]);
  Binders deps;
  for (const auto &b : binders)
    if (used.count(b.first))
      deps.push_back(b);
  return deps;
}

// Stores e in a new temp indexed by the binders it depends on and returns the read that replaces it.
DExprPtr Hoister::makeTemp(const DExprPtr &e, const Binders &binders, const Binders &deps,
                              const Branches &guards, const std::string &base, const char *why, ElemType elem) {
  DnfArray temp;
  // A temp's name must not be spelled like a program name or an index (checked, not reserved: the
  // update check's ψ-reduction and the pipeline's name their temps alike).
  temp.name = base;
  for (int n = 2; names.count(temp.name) || symbols.used(temp.name); ++n)
    temp.name = fmt::format("{}_{}", base, n);
  names.insert(temp.name);
  temp.storage = Storage::Temp;
  // The temp holds e in e's own type: an f32 reduction (or exp) inside an f64 expression stays f32, as the
  // reference computes it (an f64 temp would accumulate in f64: no overflow where the reference's f32 has one).
  std::optional<ElemType> own = floatTypeOf(*e, out);
  temp.elem = e->isInt ? ElemType::Int : elem == ElemType::F64 && own == ElemType::F32 ? ElemType::F32 : elem;
  markConstant(temp, *e, out);
  NameScope definitionNames(symbols); // the temp is a definition of its own (see PsiReducer::analyse)
  std::map<Symbol, SymExpr> rename;
  SymVec readIndex, ownIndex;
  for (const auto &[sym, extent] : deps) {
    Symbol own = symbols.fresh(indexHint(temp.index.size()));
    rename[sym] = SymExpr::symbol(own);
    temp.index.push_back(own);
    temp.shape.push_back(extent.substitute(rename));
    readIndex.push_back(SymExpr::symbol(sym));
    ownIndex.push_back(SymExpr::symbol(own));
  }
  DExprPtr guarded = e;
  for (size_t k = guards.size(); k-- > 0;) {
    const Branch &g = guards[k];
    DExprPtr zero = e->isInt ? dInt(SymExpr(0), e->loc) : dFloat(0, e->loc);
    guarded = g.then ? dSelect(g.lhs, g.rhs, guarded, zero, e->loc)
                     : dSelect(g.lhs, g.rhs, zero, guarded, e->loc);
  }
  temp.body = substitute(freshBinders(symbols, guarded), rename);
  temp.loc = e->loc;
  temp.why = why;
  std::string unused;
  for (const auto &b : binders)
    if (std::find(deps.begin(), deps.end(), b) == deps.end())
      unused += (unused.empty() ? "" : ", ") + b.first.name();
  std::string before = DnfPrinter{out, false, {}}.expr(e);
  std::string name = temp.name;
  std::string definition = psiText(ownIndex, name) + " = " + DnfPrinter{out, false, {}}.expr(temp.body);
  out.arrays.push_back(std::move(temp));
  size_t id = out.arrays.size() - 1;
  out.trace.push_back(TraceBlock{
      name + " — hoisted",
      {TraceStep{"hoist", before, psiText(readIndex, name),
                 fmt::format("it does not depend on {}, so it is computed once and stored", unused), 0, e->loc}},
      definition});
  created.push_back(id);
  return dRead(id, readIndex, e->isInt, e->loc);
}

// exp, log and sqrt of data: costly enough that recomputing them for every value of an index they do
// not use (every lane of the output's feature axis, say) is the slow path measured on GPUs.
static bool transcendentalOfData(const DExprPtr &e) {
  bool found = false;
  forEachNode(e, [&](const DExpr &x) {
    if (x.kind == DKind::Unary && x.unop != UnOp::Neg && x.unop != UnOp::Abs && x.unop != UnOp::Not)
      forEachNode(x.args[0], [&](const DExpr &y) { found |= y.kind == DKind::Read; });
  });
  return found;
}

// mapArgs with the binders and select branches around each argument: binders grow inside a reduction,
// and each branch of a select knows its condition.
template <typename F>
static DExprPtr mapArgsInScope(const DExprPtr &e, Binders &binders, Branches &branches, F &&f) {
  return mapArgs(e, [&](size_t k, const DExprPtr &a) {
    if (e->kind == DKind::Reduce)
      binders.emplace_back(e->var, e->extent);
    if (e->kind == DKind::Select)
      branches.push_back(Branch{e->lhs, e->rhs, k == 0});
    DExprPtr mapped = f(a);
    if (e->kind == DKind::Select)
      branches.pop_back();
    if (e->kind == DKind::Reduce)
      binders.pop_back();
    return mapped;
  });
}

// Invariant transcendentals, outermost first: the largest subexpression that computes exp/log/sqrt of
// data and does not depend on some enclosing binder is stored over the binders it uses (decode's
// softmax weights p[l] = exp(s[l] − m) ÷ Σ, otherwise recomputed for every output feature).
DExprPtr Hoister::hoistTranscendentals(const DExprPtr &e, Binders &binders, ElemType elem) {
  if (!e->isInt && e->kind != DKind::Reduce && e->kind != DKind::Read && transcendentalOfData(e)) {
    Branches guards;
    Binders deps = dependencies(e, binders, branches, guards);
    if (!deps.empty() && deps.size() < binders.size())
      return makeTemp(e, binders, deps, guards, "p",
                      "exp/log/sqrt of data invariant in an enclosing index, computed once", elem);
  }
  return mapArgsInScope(e, binders, branches,
                        [&](const DExprPtr &a) { return hoistTranscendentals(a, binders, elem); });
}

// Loop-invariant reductions, innermost first: a reduction that does not depend on some enclosing index
// would be recomputed for every value of that index. It becomes a temp over the indices it does depend
// on, computed once (softmax's Σ e is the example: invariant in the output index).
DExprPtr Hoister::hoistReductions(const DExprPtr &e, Binders &binders, ElemType elem) {
  DExprPtr result =
      mapArgsInScope(e, binders, branches, [&](const DExprPtr &a) { return hoistReductions(a, binders, elem); });
  if (result->kind != DKind::Reduce || binders.empty())
    return result;
  Branches guards;
  Binders deps = dependencies(result, binders, branches, guards);
  if (deps.size() == binders.size())
    return result;
  return makeTemp(result, binders, deps, guards, result->label.empty() ? "red" : result->label,
                  "a reduction invariant in an enclosing index, computed once", elem);
}

// Hoists out of one array's body; the temps this makes are processed the same way and scheduled first.
void Hoister::schedule(size_t id, std::vector<size_t> &computed) {
  Binders binders;
  for (size_t k = 0; k < out.arrays[id].index.size(); ++k)
    binders.emplace_back(out.arrays[id].index[k], out.arrays[id].shape[k]);
  ElemType elem = isInteger(out.arrays[id].elem) ? ElemType::F32 : computeType(out.arrays[id].elem);
  // A half-precision (or i32) array whose value is a reduction accumulates in an f32 (int) temp and is
  // stored from it, rounded (narrowed) once: its own storage never holds a split reduction's partials or a
  // running sum.
  if (isNarrow(out.arrays[id].elem) && out.arrays[id].body->kind == DKind::Reduce) {
    created.clear();
    std::string base = out.arrays[id].name;
    base.erase(std::remove(base.begin(), base.end(), '\''), base.end()); // an update's K'
    DExprPtr before = out.arrays[id].body;
    out.arrays[id].body = makeTemp(before, binders, binders, Branches{}, base + "_acc",
                                   isHalf(out.arrays[id].elem)
                                       ? "the f32 accumulator of a half-precision array's reduction"
                                       : "the int accumulator of an i32 array's reduction",
                                   elem);
    std::vector<size_t> made = created;
    for (size_t t : made)
      schedule(t, computed);
  }
  for (auto pass : {&Hoister::hoistReductions, &Hoister::hoistTranscendentals}) {
    created.clear();
    DExprPtr before = out.arrays[id].body; // a copy: making temps grows (and moves) out.arrays
    DExprPtr body = (this->*pass)(before, binders, elem);
    out.arrays[id].body = body;
    std::vector<size_t> made = created;
    for (size_t t : made)
      schedule(t, computed);
  }
  computed.push_back(id);
}

} // namespace

std::vector<size_t> hoistInvariants(SymbolTable &symbols, DnfProgram &dnf, const std::vector<size_t> &order,
                                    std::set<std::string> &names) {
  Hoister hoister(symbols, dnf, names);
  std::vector<size_t> computed;
  for (size_t id : order)
    hoister.schedule(id, computed);
  return computed;
}

} // namespace moac
