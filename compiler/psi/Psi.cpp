#include "Psi.h"

#include "Gamma.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace moac {

// ---- the index rules --------------------------------------------------------------------------

SymVec psiOfPsi(const SymVec &selector, const SymVec &idx) {
  SymVec out = selector;
  out.insert(out.end(), idx.begin(), idx.end());
  return out;
}

SymVec psiOfTranspose(const SymVec &idx) { return SymVec(idx.rbegin(), idx.rend()); }

SymVec psiOfPermute(const std::vector<int64_t> &perm, const SymVec &idx) {
  SymVec out(perm.size());
  for (size_t k = 0; k < perm.size(); ++k)
    out[k] = idx[size_t(perm[k])];
  return out;
}

// k↑A: ⟨i₀, r⟩ for k ≥ 0; ⟨s₀ + k + i₀, r⟩ for k < 0.
SymVec psiOfTake(const SymExpr &count, const SymExpr &leading, const SymVec &idx) {
  SymVec out = idx;
  if (!nonNegative(signOf(count)))
    out[0] = leading + count + idx[0];
  return out;
}

// k↓A: ⟨i₀ + k, r⟩ for k ≥ 0; ⟨i₀, r⟩ for k < 0.
SymVec psiOfDrop(const SymExpr &count, const SymVec &idx) {
  SymVec out = idx;
  if (nonNegative(signOf(count)))
    out[0] = idx[0] + count;
  return out;
}

// ⟨s⟩ reshape A: γ⁻¹(γ(i; s); ρA).
SymVec psiOfReshape(const SymVec &newShape, const SymVec &oldShape, const SymVec &idx) {
  IndexRanges ranges;
  for (size_t k = 0; k < idx.size(); ++k)
    if (auto s = idx[k].asSymbol())
      ranges[*s] = newShape[k];
  SymVec out = gammaInverse(gamma(idx, newShape), oldShape);
  for (auto &e : out)
    e = simplify(e, ranges);
  return out;
}

SymVec psiOfRav(const SymVec &oldShape, const SymVec &idx) {
  return psiOfReshape({product(oldShape)}, oldShape, idx);
}

// ---- the reducer --------------------------------------------------------------------------------

namespace {

const char *reduceWord(BinOp op) {
  switch (op) {
  case BinOp::Add: return "sum";
  case BinOp::Mul: return "prod";
  case BinOp::Max: return "max";
  case BinOp::Min: return "min";
  default: return "red";
  }
}

// The hints for an array's own indices, axis by axis (the last repeats).
constexpr const char *indexHints[] = {"i", "j", "k", "p", "q", "r"};

using Binders = std::vector<std::pair<Symbol, SymExpr>>;
// The select branches around an expression: `lhs < rhs` holds in the then branch and fails in the else.
struct Branch {
  SymExpr lhs, rhs;
  bool then;
};
using Branches = std::vector<Branch>;

class PsiReducer {
public:
  PsiReducer(SymbolTable &symbols, const TypedProgram &program) : symbols(symbols), prog(program) {}
  DnfProgram run();

private:
  struct BindingInfo {
    bool materialised = false;
    size_t array = 0;
    std::vector<Symbol> freeVars; // comprehension indices the stored value depends on
    std::vector<Symbol> own;      // the binding's own index symbols
    DExprPtr body;
  };

  DExprPtr reduce(const TExpr &e, const SymVec &idx);
  DExprPtr reduceStructural(const TExpr &e, const SymVec &idx);
  DExprPtr reduceRef(const TBinding &b, const SymVec &idx, SourceLoc loc);
  void findConflicts(const DExprPtr &body, size_t input, const SymVec &own, size_t update);
  const BindingInfo &analyse(const TBinding &b);
  DExprPtr selectElement(const std::vector<DExprPtr> &elements, const SymExpr &i, SourceLoc loc);
  SymVec substituted(const SymVec &v) const;
  DExprPtr freshBinders(const DExprPtr &e);

  // hoisting
  DExprPtr makeTemp(const DExprPtr &e, const Binders &binders, const Binders &deps, const Branches &guards,
                    const std::string &base, const char *why, ElemType elem);
  DExprPtr hoistTranscendentals(const DExprPtr &e, Binders &binders, ElemType elem);
  DExprPtr hoistReductions(const DExprPtr &e, Binders &binders, ElemType elem);
  void schedule(size_t id, std::vector<size_t> &computed);
  size_t addArray(DnfArray array);
  std::string uniqueName(const std::string &base);

  // trace
  std::string psiText(const SymVec &idx, const std::string &operand) const;
  std::string psiText(const SymVec &idx, const TExpr &e) const { return psiText(idx, printTExpr(e)); }
  void step(const char *rule, std::string before, std::string after, std::string note = {});

  SymbolTable &symbols;
  const TypedProgram &prog;
  DnfProgram out;
  std::map<Symbol, SymExpr> subst;            // comprehension index -> its value at this use
  std::vector<TIndex> scope;                  // comprehension indices around the current definition
  std::map<const TBinding *, std::vector<TIndex>> bindingScope;
  std::map<const TBinding *, BindingInfo> infos;
  std::vector<size_t> order;                  // computation order of temps and outputs
  std::set<std::string> names;
  std::vector<size_t> created; // temps made by the current hoisting pass
  Branches branches;            // the select branches around the expression being hoisted
  IndexRanges ranges;           // every index symbol made so far, 0 ≤ s < extent: for simplify
  std::vector<TraceStep> steps; // the derivation of the definition being analysed
  int depth = 0;
};

std::string PsiReducer::psiText(const SymVec &idx, const std::string &operand) const {
  if (idx.empty())
    return operand;
  bool atomic = operand.find(' ') == std::string::npos;
  return strShape(idx) + "ψ " + (atomic ? operand : "(" + operand + ")");
}

void PsiReducer::step(const char *rule, std::string before, std::string after, std::string note) {
  steps.push_back(TraceStep{rule, std::move(before), std::move(after), std::move(note), depth});
}

SymVec PsiReducer::substituted(const SymVec &v) const {
  SymVec r;
  for (const auto &x : v)
    r.push_back(x.substitute(subst));
  return r;
}

std::string PsiReducer::uniqueName(const std::string &base) {
  std::string name = base;
  for (int n = 2; names.count(name); ++n)
    name = fmt::format("{}_{}", base, n);
  names.insert(name);
  return name;
}

// A copy of e whose reduction binders are new symbols of the current scope, outer ones first: a
// binding's template inlined into another definition, or a subexpression hoisted into a temp, is spelled
// in the names of the definition it now belongs to (symbols of one scope never show in another).
DExprPtr PsiReducer::freshBinders(const DExprPtr &e) {
  if (!containsReduce(e))
    return e;
  auto copy = std::make_shared<DExpr>(*e);
  if (e->kind == DKind::Reduce) {
    copy->var = symbols.fresh(e->var.hint());
    ranges[copy->var] = e->extent;
    copy->args = {substitute(freshBinders(e->args[0]), {{e->var, SymExpr::symbol(copy->var)}})};
    return copy;
  }
  for (auto &a : copy->args)
    a = freshBinders(a);
  return copy;
}

size_t PsiReducer::addArray(DnfArray array) {
  out.arrays.push_back(std::move(array));
  return out.arrays.size() - 1;
}

// A vector's element at a symbolic position: a chain of selects on the position.
DExprPtr PsiReducer::selectElement(const std::vector<DExprPtr> &elements, const SymExpr &i, SourceLoc loc) {
  if (auto c = i.constant())
    return elements.at(size_t(*c));
  DExprPtr result = elements.back();
  for (size_t k = elements.size() - 1; k-- > 0;)
    result = dSelect(i, SymExpr(int64_t(k + 1)), elements[k], result, loc);
  return result;
}

// The first time a binding is met it is reduced once, over fresh index symbols, with the comprehension
// indices around its definition left symbolic; every use then instantiates that template.
const PsiReducer::BindingInfo &PsiReducer::analyse(const TBinding &b) {
  if (auto it = infos.find(&b); it != infos.end())
    return it->second;
  // Each definition names its indices in a scope of its own: every definition's index is `i` again.
  NameScope definitionNames(symbols);
  BindingInfo info;
  SymVec idx;
  for (size_t k = 0; k < b.value->type.rank(); ++k) {
    info.own.push_back(symbols.fresh(indexHints[std::min<size_t>(k, std::size(indexHints) - 1)]));
    ranges[info.own.back()] = b.value->type.shape[k];
    idx.push_back(SymExpr::symbol(info.own.back()));
  }
  auto savedSubst = std::move(subst);
  auto savedScope = std::move(scope);
  auto savedSteps = std::move(steps);
  int savedDepth = depth;
  subst.clear();
  steps.clear();
  depth = 0;
  scope = bindingScope[&b];
  step("definition", psiText(idx, b.name), psiText(idx, *b.value));
  info.body = reduce(*b.value, idx);

  info.materialised = b.isOutput || b.updates || containsReduce(info.body);
  if (b.updates)
    findConflicts(info.body, *b.updates, idx, out.arrays.size());
  if (info.materialised) {
    std::vector<Symbol> free = freeSymbols(info.body);
    DnfArray array;
    array.name = uniqueName(b.updates ? b.name + "'" : b.name);
    array.storage = b.isOutput ? Storage::Output : b.updates ? Storage::Update : Storage::Temp;
    array.updates = b.updates;
    array.elem = b.value->type.elem;
    for (const TIndex &ix : scope)
      if (std::binary_search(free.begin(), free.end(), ix.sym)) {
        info.freeVars.push_back(ix.sym);
        array.shape.push_back(ix.extent);
        array.index.push_back(ix.sym);
      }
    array.shape.insert(array.shape.end(), b.value->type.shape.begin(), b.value->type.shape.end());
    array.index.insert(array.index.end(), info.own.begin(), info.own.end());
    array.body = info.body;
    array.loc = b.loc;
    if (b.updates)
      array.why = fmt::format("the update of inout {}, written in place", b.name);
    else if (!b.isOutput)
      array.why = b.origin.empty() ? "named binding with a reduction"
                                   : fmt::format("{}'s '{}', a reduction", b.origin, b.name);
    info.array = addArray(std::move(array));
    order.push_back(info.array);
  }
  std::string shownName = info.materialised ? out.arrays[info.array].name : b.name;
  std::string title = info.materialised
                          ? fmt::format("{} — {}", shownName,
                                        b.isOutput  ? "output"
                                        : b.updates ? "update of " + b.name + ", written into its storage"
                                                    : "stored: it contains a reduction")
                          : fmt::format("{} — inlined where it is used", shownName);
  if (!b.origin.empty())
    title += fmt::format(" (from {})", b.origin);
  SymVec lhsIndex;
  if (info.materialised)
    for (Symbol v : info.freeVars)
      lhsIndex.push_back(SymExpr::symbol(v));
  lhsIndex.insert(lhsIndex.end(), idx.begin(), idx.end());
  out.trace.push_back(TraceBlock{title, std::move(steps),
                                 psiText(lhsIndex, shownName) + " = " + DnfPrinter{out, false, {}}.expr(info.body)});
  steps = std::move(savedSteps);
  depth = savedDepth;
  subst = std::move(savedSubst);
  scope = std::move(savedScope);
  return infos[&b] = std::move(info);
}

// Reads of the inout being updated must be at the element being written: every element of the update
// is computed in parallel and stored in place, so another element may already be overwritten.
void PsiReducer::findConflicts(const DExprPtr &body, size_t input, const SymVec &own, size_t update) {
  forEachNode(body, [&](const DExpr &e) {
    if (e.kind == DKind::Read && e.array == input && e.index != own)
      out.conflicts.push_back(UpdateConflict{update, e.index, e.loc});
  });
}

DExprPtr PsiReducer::reduceRef(const TBinding &b, const SymVec &idx, SourceLoc loc) {
  const BindingInfo &info = analyse(b);
  if (info.materialised) {
    SymVec index;
    for (Symbol v : info.freeVars)
      index.push_back(SymExpr::symbol(v).substitute(subst));
    index.insert(index.end(), idx.begin(), idx.end());
    step("stored", psiText(idx, b.name), psiText(index, out.arrays[info.array].name), "read from memory");
    return dRead(info.array, index, loc);
  }
  std::map<Symbol, SymExpr> bindings = subst;
  for (size_t k = 0; k < info.own.size(); ++k)
    bindings[info.own[k]] = idx[k];
  step("inline", psiText(idx, b.name), "the definition of " + b.name + " at this index");
  return substitute(freshBinders(info.body), bindings);
}

DExprPtr PsiReducer::reduce(const TExpr &e, const SymVec &idx) {
  const SourceLoc loc = e.loc;
  switch (e.kind) {
  case TKind::IntConst: return dInt(e.intValue.substitute(subst), loc);
  case TKind::FloatConst: return dFloat(e.floatValue, loc);
  case TKind::Input: return dRead(e.input, idx, loc);
  case TKind::Ref: return reduceRef(*e.ref, idx, loc);
  case TKind::Let:
    bindingScope[e.let.get()] = scope;
    return reduce(*e.args[0], idx);
  case TKind::Unary: return dUnary(e.unop, reduce(*e.args[0], idx), loc);
  case TKind::Binary: {
    const TExpr &a = *e.args[0], &b = *e.args[1];
    SymVec ia = a.type.rank() ? idx : SymVec{}, ib = b.type.rank() ? idx : SymVec{};
    if (!idx.empty()) {
      bool extension = a.type.rank() != b.type.rank();
      step(extension ? "scalar extension" : "elementwise", psiText(idx, e),
           psiText(ia, a) + " " + std::string(spellUnicode(e.op)) + " " + psiText(ib, b));
    }
    // Right operand first, in statements of their own: within one argument list the order is
    // unspecified (GCC goes right to left, Clang left to right), and it decides the fresh names and the
    // order of the derivation's steps. Right first keeps the golden files GCC wrote.
    DExprPtr right = reduce(b, ib);
    DExprPtr left = reduce(a, ia);
    return dBinary(e.op, left, right, loc);
  }
  case TKind::Reduce: {
    const TExpr &a = *e.args[0];
    Symbol var = symbols.fresh("l");
    ranges[var] = a.type.shape[0];
    SymVec inner = psiOfPsi({SymExpr::symbol(var)}, idx);
    std::string word = reduceWord(e.op);
    step("reduce", psiText(idx, e),
         fmt::format("{}_{{{}<{}}} {}", e.op == BinOp::Add ? "Σ" : word, var.name(), a.type.shape[0].str(),
                     psiText(inner, a)));
    ++depth;
    DExprPtr body = reduce(a, inner);
    --depth;
    auto r = dReduce(e.op, var, a.type.shape[0], body, loc);
    if (a.kind == TKind::Ref)
      std::const_pointer_cast<DExpr>(r)->label = word + ("_" + a.ref->name);
    else
      std::const_pointer_cast<DExpr>(r)->label = word;
    return r;
  }
  case TKind::Inner: {
    const TExpr &a = *e.args[0], &b = *e.args[1];
    size_t p = a.type.rank() - 1;
    Symbol k = symbols.fresh("l");
    ranges[k] = a.type.shape.back();
    SymVec ia(idx.begin(), idx.begin() + long(p)), ib(idx.begin() + long(p), idx.end());
    ia.push_back(SymExpr::symbol(k));
    ib.insert(ib.begin(), SymExpr::symbol(k));
    step("inner product", psiText(idx, e),
         fmt::format("{}_{{{}<{}}} ({} {} {})", e.op == BinOp::Add ? "Σ" : reduceWord(e.op), k.name(),
                     a.type.shape.back().str(), psiText(ia, a), spellUnicode(e.op2), psiText(ib, b)),
         "a new bound index contracts the last axis of the left with the first of the right");
    ++depth;
    DExprPtr right = reduce(b, ib);
    DExprPtr left = reduce(a, ia);
    DExprPtr body = dBinary(e.op2, left, right, loc);
    --depth;
    auto r = dReduce(e.op, k, a.type.shape.back(), body, loc);
    std::const_pointer_cast<DExpr>(r)->label = e.op == BinOp::Add ? "dot" : reduceWord(e.op);
    return r;
  }
  case TKind::Outer: {
    const TExpr &a = *e.args[0], &b = *e.args[1];
    SymVec ia(idx.begin(), idx.begin() + long(a.type.rank())), ib(idx.begin() + long(a.type.rank()), idx.end());
    step("outer product", psiText(idx, e),
         psiText(ia, a) + " " + std::string(spellUnicode(e.op2)) + " " + psiText(ib, b));
    DExprPtr right = reduce(b, ib);
    DExprPtr left = reduce(a, ia);
    return dBinary(e.op2, left, right, loc);
  }
  case TKind::Comprehension: {
    size_t n = e.indices.size();
    std::string binds;
    for (size_t k = 0; k < n; ++k) {
      subst[e.indices[k].sym] = idx[k];
      ranges[e.indices[k].sym] = e.indices[k].extent;
      scope.push_back(e.indices[k]);
      binds += fmt::format("{}{} = {}", k ? ", " : "", e.indices[k].sym.name(), idx[k].str());
    }
    SymVec rest(idx.begin() + long(n), idx.end());
    step("comprehension", psiText(idx, e), psiText(rest, *e.args[0]) + " with " + binds);
    DExprPtr body = reduce(*e.args[0], rest);
    for (size_t k = 0; k < n; ++k) {
      subst.erase(e.indices[k].sym);
      scope.pop_back();
    }
    return body;
  }
  default: return reduceStructural(e, idx);
  }
}

// The operators that only move indices: ψ, ⍉, ↑, ↓, #, reshape, rav, ι, ρ and vector literals.
DExprPtr PsiReducer::reduceStructural(const TExpr &e, const SymVec &idx) {
  const SourceLoc loc = e.loc;
  auto values = [&](const TExpr &t) { return substituted(*t.type.value); };
  switch (e.kind) {
  case TKind::Vector: {
    std::vector<DExprPtr> elements;
    for (const auto &a : e.args)
      elements.push_back(reduce(*a, {}));
    return selectElement(elements, idx[0], loc);
  }
  case TKind::Rho: {
    std::vector<DExprPtr> elements;
    for (const auto &s : *e.type.value)
      elements.push_back(dInt(s, loc));
    step("rho", psiText(idx, e), "the shape entry, known at compile time");
    return selectElement(elements, idx[0], loc);
  }
  case TKind::Iota:
    step("iota", psiText(idx, e), idx[0].str());
    return dInt(idx[0], loc);
  case TKind::Psi: {
    const TExpr &a = *e.args[1];
    SymVec inner = psiOfPsi(values(*e.args[0]), idx);
    step("psi of psi", psiText(idx, e), psiText(inner, a), "selections compose by concatenating indices");
    return reduce(a, inner);
  }
  case TKind::Tran: {
    const TExpr &a = *e.args.back();
    SymVec inner;
    std::string note;
    if (e.args.size() == 1) {
      inner = psiOfTranspose(idx);
      if (a.kind == TKind::Input || a.kind == TKind::Ref)
        note = fmt::format("the transpose of {} is never formed", printTExpr(a));
    } else {
      std::vector<int64_t> perm;
      for (const auto &p : *e.args[0]->type.value)
        perm.push_back(*p.constant());
      inner = psiOfPermute(perm, idx);
    }
    step(e.args.size() == 1 ? "transpose" : "permute", psiText(idx, e), psiText(inner, a), note);
    return reduce(a, inner);
  }
  case TKind::Take:
  case TKind::Drop: {
    const TExpr &a = *e.args[1];
    SymExpr count = values(*e.args[0])[0];
    SymVec inner = e.kind == TKind::Take ? psiOfTake(count, a.type.shape[0], idx) : psiOfDrop(count, idx);
    step(e.kind == TKind::Take ? "take" : "drop", psiText(idx, e), psiText(inner, a), "an offset on the leading index");
    return reduce(a, inner);
  }
  case TKind::Cat: {
    const TExpr &a = *e.args[0], &b = *e.args[1];
    size_t rank = e.type.rank();
    SymVec rest(idx.begin() + 1, idx.end());
    bool aItem = a.type.rank() + 1 == rank, bItem = b.type.rank() + 1 == rank;
    SymExpr a0 = aItem ? SymExpr(1) : a.type.shape[0];
    SymVec ib = rest;
    if (!bItem)
      ib.insert(ib.begin(), idx[0] - a0);
    SymVec ia = aItem ? rest : idx;
    step("cat", psiText(idx, e),
         fmt::format("{} < {} ? {} : {}", idx[0].str(), a0.str(), psiText(ia, a), psiText(ib, b)),
         "a case split on the leading index");
    // A split decided at compile time (<0> psi (x cat v), or <0> with a0 = n): reduce only the branch
    // taken. The other one's index is out of range: a vector or rho operand there cannot select it,
    // and a reduction there would be hoisted out of the split and read it. Over dims only, signOf's
    // premise (every symbol positive) holds.
    SymExpr room = a0 - idx[0];
    std::vector<Symbol> used = room.symbols();
    if (std::all_of(used.begin(), used.end(), [&](Symbol s) {
          return std::any_of(prog.dims.begin(), prog.dims.end(), [&](const TDim &d) { return d.sym == s; });
        })) {
      Sign sign = signOf(room);
      if (sign == Sign::Positive)
        return reduce(a, ia);
      if (sign == Sign::Zero || sign == Sign::Negative || sign == Sign::NonPositive)
        return reduce(b, ib);
    }
    DExprPtr second = reduce(b, ib);
    DExprPtr first = reduce(a, ia);
    return dSelect(idx[0], a0, first, second, loc);
  }
  case TKind::Reshape:
  case TKind::Rav: {
    const TExpr &a = *e.args.back();
    SymVec inner = e.kind == TKind::Rav ? psiOfRav(a.type.shape, idx)
                                        : psiOfReshape(e.type.shape, a.type.shape, idx);
    for (auto &x : inner) // the ranges of every index in idx, not only of plain symbols: rav of reshape
      x = simplify(x, ranges);
    step(e.kind == TKind::Rav ? "rav" : "reshape", psiText(idx, e), psiText(inner, a),
         "γ of the index in the new shape, then γ⁻¹ in the old one");
    return reduce(a, inner);
  }
  default: break;
  }
  throw std::logic_error(fmt::format("psi-reduction has no rule for {}", tkindName(e.kind)));
}

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
DExprPtr PsiReducer::makeTemp(const DExprPtr &e, const Binders &binders, const Binders &deps,
                              const Branches &guards, const std::string &base, const char *why, ElemType elem) {
  DnfArray temp;
  // A temp's name must not be spelled like a program name or an index (checked, not reserved: the
  // update check's ψ-reduction and the pipeline's name their temps alike).
  temp.name = base;
  for (int n = 2; names.count(temp.name) || symbols.used(temp.name); ++n)
    temp.name = fmt::format("{}_{}", base, n);
  names.insert(temp.name);
  temp.storage = Storage::Temp;
  temp.elem = e->isInt ? ElemType::Int : elem;
  NameScope definitionNames(symbols); // the temp is a definition of its own (see analyse)
  std::map<Symbol, SymExpr> rename;
  SymVec readIndex, ownIndex;
  for (const auto &[sym, extent] : deps) {
    Symbol own = symbols.fresh(indexHints[std::min(temp.index.size(), std::size(indexHints) - 1)]);
    rename[sym] = SymExpr::symbol(own);
    temp.index.push_back(own);
    temp.shape.push_back(extent);
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
  temp.body = substitute(freshBinders(guarded), rename);
  temp.loc = e->loc;
  temp.why = why;
  std::string unused;
  for (const auto &b : binders)
    if (std::find(deps.begin(), deps.end(), b) == deps.end())
      unused += (unused.empty() ? "" : ", ") + b.first.name();
  std::string before = DnfPrinter{out, false, {}}.expr(e);
  std::string name = temp.name;
  std::string definition = psiText(ownIndex, name) + " = " + DnfPrinter{out, false, {}}.expr(temp.body);
  size_t id = addArray(std::move(temp));
  out.trace.push_back(TraceBlock{
      name + " — hoisted",
      {TraceStep{"hoist", before, psiText(readIndex, name),
                 fmt::format("it does not depend on {}, so it is computed once and stored", unused), 0}},
      definition});
  created.push_back(id);
  return dRead(id, readIndex, e->loc);
}

// exp, log and sqrt of data: costly enough that recomputing them for every value of an index they do
// not use (every lane of the output's feature axis, say) is the slow path measured on GPUs.
static bool transcendentalOfData(const DExprPtr &e) {
  if (e->kind == DKind::Unary && e->unop != UnOp::Neg && e->unop != UnOp::Abs) {
    std::vector<const DExpr *> stack{e->args[0].get()};
    while (!stack.empty()) {
      const DExpr *x = stack.back();
      stack.pop_back();
      if (x->kind == DKind::Read)
        return true;
      for (const auto &a : x->args)
        stack.push_back(a.get());
    }
  }
  return std::any_of(e->args.begin(), e->args.end(), transcendentalOfData);
}

// Rebuilds e with each argument passed through f (binders grow inside a reduction).
template <typename F>
static DExprPtr mapArgs(const DExprPtr &e, Binders &binders, Branches &branches, F &&f) {
  if (e->args.empty())
    return e;
  std::vector<DExprPtr> args;
  bool changed = false;
  for (const auto &a : e->args) {
    if (e->kind == DKind::Reduce)
      binders.emplace_back(e->var, e->extent);
    if (e->kind == DKind::Select)
      branches.push_back(Branch{e->lhs, e->rhs, args.empty()});
    args.push_back(f(a));
    if (e->kind == DKind::Select)
      branches.pop_back();
    if (e->kind == DKind::Reduce)
      binders.pop_back();
    changed |= args.back() != a;
  }
  if (!changed)
    return e;
  auto copy = std::make_shared<DExpr>(*e);
  copy->args = std::move(args);
  return copy;
}

// Invariant transcendentals, outermost first: the largest subexpression that computes exp/log/sqrt of
// data and does not depend on some enclosing binder is stored over the binders it uses (decode's
// softmax weights p[l] = exp(s[l] − m) ÷ Σ, otherwise recomputed for every output feature).
DExprPtr PsiReducer::hoistTranscendentals(const DExprPtr &e, Binders &binders, ElemType elem) {
  if (!e->isInt && e->kind != DKind::Reduce && e->kind != DKind::Read && transcendentalOfData(e)) {
    Branches guards;
    Binders deps = dependencies(e, binders, branches, guards);
    if (!deps.empty() && deps.size() < binders.size())
      return makeTemp(e, binders, deps, guards, "p",
                      "exp/log/sqrt of data invariant in an enclosing index, computed once", elem);
  }
  return mapArgs(e, binders, branches,
                 [&](const DExprPtr &a) { return hoistTranscendentals(a, binders, elem); });
}

// Loop-invariant reductions, innermost first: a reduction that does not depend on some enclosing index
// would be recomputed for every value of that index. It becomes a temp over the indices it does depend
// on, computed once (softmax's Σ e is the example: invariant in the output index).
DExprPtr PsiReducer::hoistReductions(const DExprPtr &e, Binders &binders, ElemType elem) {
  DExprPtr result =
      mapArgs(e, binders, branches, [&](const DExprPtr &a) { return hoistReductions(a, binders, elem); });
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
void PsiReducer::schedule(size_t id, std::vector<size_t> &computed) {
  Binders binders;
  for (size_t k = 0; k < out.arrays[id].index.size(); ++k)
    binders.emplace_back(out.arrays[id].index[k], out.arrays[id].shape[k]);
  ElemType elem = out.arrays[id].elem == ElemType::Int ? ElemType::F32 : out.arrays[id].elem;
  for (auto pass : {&PsiReducer::hoistReductions, &PsiReducer::hoistTranscendentals}) {
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

DnfProgram PsiReducer::run() {
  out.fileName = prog.fileName;
  out.dims = prog.dims;
  out.guards = prog.guards;
  for (const TInput &in : prog.inputs) {
    DnfArray a;
    a.name = in.name;
    a.storage = Storage::Input;
    a.elem = in.elem;
    a.shape = in.shape;
    a.loc = in.loc;
    a.inout = in.role == ArrayRole::InOut;
    names.insert(in.name);
    addArray(std::move(a));
  }
  for (const TDim &d : prog.dims)
    names.insert(d.name);
  for (const auto &b : prog.bindings) {
    if (b->isOutput)
      out.outputs.push_back(analyse(*b).array);
    if (b->updates)
      out.updates.push_back(analyse(*b).array);
  }
  std::vector<size_t> computed;
  for (size_t id : std::vector<size_t>(order))
    schedule(id, computed);
  out.order = computed;
  return std::move(out);
}

} // namespace

DnfProgram psiReduce(CompilationContext &ctx, const TypedProgram &program) {
  return PsiReducer(ctx.symbols, program).run();
}

bool reportUpdateConflicts(const DnfProgram &dnf, DiagnosticEngine &diags) {
  for (const UpdateConflict &c : dnf.conflicts) {
    const DnfArray &update = dnf.arrays[c.update];
    const DnfArray &input = dnf.arrays[*update.updates];
    SymVec own;
    for (Symbol s : update.index)
      own.push_back(SymExpr::symbol(s));
    DnfPrinter print{dnf, false, {}};
    diags.report(Diag::UpdateNeedsCopy, c.loc, input.name, print.index(c.read) + "ψ " + input.name,
                 print.index(own) + "ψ " + input.name);
  }
  return dnf.conflicts.empty();
}

} // namespace moac
