#include "Psi.h"

#include "Cse.h"
#include "Gamma.h"
#include "Hoist.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

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
SymVec psiOfTake(const SymExpr &count, const SymExpr &leading, const SymVec &idx, std::optional<bool> negative) {
  SymVec out = idx;
  if (negative.value_or(!nonNegative(signOf(count))))
    out[0] = leading + count + idx[0];
  return out;
}

// k↓A: ⟨i₀ + k, r⟩ for k ≥ 0; ⟨i₀, r⟩ for k < 0.
SymVec psiOfDrop(const SymExpr &count, const SymVec &idx, std::optional<bool> negative) {
  SymVec out = idx;
  if (!negative.value_or(!nonNegative(signOf(count))))
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

// op/[k] A: the bound index l goes in at position k, ⟨i₀ … i_{k−1}, l, i_k …⟩.
SymVec psiOfReduce(size_t axis, const SymExpr &bound, const SymVec &idx) {
  SymVec out = idx;
  out.insert(out.begin() + long(axis), bound);
  return out;
}

SymVec psiOfRav(const SymVec &oldShape, const SymVec &idx) {
  return psiOfReshape({product(oldShape)}, oldShape, idx);
}

// ---- the reducer --------------------------------------------------------------------------------

static std::string psiText(const SymVec &idx, const TExpr &e) { return psiText(idx, printTExpr(e)); }
// A symbolic expression as the trace prints it.
static std::string plain(const SymExpr &e) { return e.str(); }

namespace {

// The most DNF nodes a definition used more than once may have and still be inlined into each use.
// Elementwise definitions of attention and MLP programs (exp(x − m), a scaled difference) are a few
// nodes; 32 keeps them inlined (no stored intermediate) and stores what would otherwise be copied.
constexpr size_t inlineLimit = 32;

size_t dnfSize(const DExprPtr &e) {
  size_t n = 0;
  forEachNode(e, [&](const DExpr &) { ++n; });
  return n;
}

const char *reduceWord(BinOp op) {
  switch (op) {
  case BinOp::Add: return "sum";
  case BinOp::Mul: return "prod";
  case BinOp::Max: return "max";
  case BinOp::Min: return "min";
  case BinOp::Sub: return "rsub"; // the right folds: x0 − (x1 − …), x0 ÷ (x1 ÷ …)
  case BinOp::Div: return "rdiv";
  default: return "red";
  }
}

// A reduction's binder in the derivation: Σ, −/ and ÷/ as the DNF prints them, else its word.
std::string stepWord(BinOp op) {
  return op == BinOp::Add ? "Σ" : isRightFold(op) ? std::string(spellUnicode(op)) + "/" : reduceWord(op);
}

// The derivation's note on a − or ÷ fold (Ops.h, isRightFold), after "; ".
std::string rightFoldNote(BinOp op) {
  return fmt::format("; a right fold, computed in this order: t₀ {0} (t₁ {0} (… {0} t_{{n−1}}))", spellUnicode(op));
}

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
  DExprPtr reduceNode(const TExpr &e, const SymVec &idx);
  DExprPtr reduceBinary(const TExpr &e, const SymVec &idx);
  DExprPtr reduceReduction(const TExpr &e, const SymVec &idx);
  DExprPtr reduceInner(const TExpr &e, const SymVec &idx);
  DExprPtr reduceOuter(const TExpr &e, const SymVec &idx);
  DExprPtr reduceWhere(const TExpr &e, const SymVec &idx);
  DExprPtr reduceComprehension(const TExpr &e, const SymVec &idx);
  DExprPtr reduceStructural(const TExpr &e, const SymVec &idx);
  DExprPtr reduceCat(const TExpr &e, const SymVec &idx);
  DExprPtr typedLiteral(DExprPtr chosen, const TExpr &cat, const TExpr &other);
  DExprPtr widened(DExprPtr chosen, ElemType selection) const;
  DExprPtr reduceRef(const TBinding &b, const SymVec &idx, SourceLoc loc);
  void findConflicts(const DExprPtr &body, size_t input, const SymVec &own, size_t update);
  const BindingInfo &analyse(const TBinding &b);
  void countUses(const TExpr &e);
  DExprPtr selectElement(const std::vector<DExprPtr> &elements, const SymExpr &i, SourceLoc loc);
  SymVec substituted(const SymVec &v) const;

  size_t addArray(DnfArray array);

  // trace
  void step(const char *rule, std::string before, std::string after, std::string note = {});

  SymbolTable &symbols;
  const TypedProgram &prog;
  DnfProgram out;
  std::map<Symbol, SymExpr> subst;            // comprehension index -> its value at this use
  std::vector<TIndex> scope;                  // comprehension indices around the current definition
  std::map<const TBinding *, std::vector<TIndex>> bindingScope;
  std::map<const TBinding *, BindingInfo> infos;
  std::map<const TBinding *, size_t> uses;    // how many times each binding is referenced (countUses)
  std::vector<size_t> order;                  // computation order of temps and outputs
  std::set<std::string> names;
  IndexRanges ranges;           // every index symbol made so far, 0 ≤ s < extent: for simplify
  std::vector<TraceStep> steps; // the derivation of the definition being analysed
  int depth = 0;
  SourceLoc at; // the operator being reduced: every step names where it applies
};

void PsiReducer::step(const char *rule, std::string before, std::string after, std::string note) {
  steps.push_back(TraceStep{rule, std::move(before), std::move(after), std::move(note), depth, at});
}

SymVec PsiReducer::substituted(const SymVec &v) const {
  SymVec r;
  for (const auto &x : v)
    r.push_back(x.substitute(subst));
  return r;
}

size_t PsiReducer::addArray(DnfArray array) {
  out.arrays.push_back(std::move(array));
  return out.arrays.size() - 1;
}

// A vector's element at a symbolic position: a chain of selects on the position.
DExprPtr PsiReducer::selectElement(const std::vector<DExprPtr> &elements, const SymExpr &i, SourceLoc loc) {
  // An empty vector (rho of a scalar) has an empty index space: no element of it is ever read, and
  // lowering gives an array over it no stage. Any value stands in for the element at i.
  if (elements.empty())
    return dInt(SymExpr(0), loc);
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
    info.own.push_back(symbols.fresh(indexHint(k)));
    ranges[info.own.back()] = b.value->type.shape[k];
    idx.push_back(SymExpr::symbol(info.own.back()));
  }
  auto savedSubst = std::move(subst);
  auto savedScope = std::move(scope);
  auto savedSteps = std::move(steps);
  int savedDepth = depth;
  SourceLoc savedAt = std::exchange(at, b.loc);
  subst.clear();
  steps.clear();
  depth = 0;
  scope = bindingScope[&b];
  step("definition", psiText(idx, b.name), psiText(idx, *b.value));
  info.body = reduce(*b.value, idx);

  // Stored: an output, an update, a definition with a reduction (Hoist.h), and one referenced more than
  // once whose DNF is too large to copy into each use: inlining it twice doubles the work and the text,
  // and a chain of such bindings (a2 = a1 + a1 × 0.5, a3 = a2 + a2 × 0.5, …) would grow as 2^k.
  info.materialised = b.isOutput || b.updates || containsReduce(info.body) ||
                      (uses[&b] > 1 && dnfSize(info.body) > inlineLimit);
  if (b.updates)
    findConflicts(info.body, *b.updates, idx, out.arrays.size());
  if (info.materialised) {
    // the comprehension indices it depends on: those its value reads, and those its shape is over (the
    // rows 0 … i of `(i + 1) take K` read no i, yet there are i + 1 of them)
    std::vector<Symbol> free = freeSymbols(info.body);
    for (const SymExpr &x : b.value->type.shape)
      for (Symbol s : x.symbols())
        free.push_back(s);
    std::sort(free.begin(), free.end());
    DnfArray array;
    array.name = uniqueName(names, b.updates ? b.name + "'" : b.name);
    array.storage = b.isOutput ? Storage::Output : b.updates ? Storage::Update : Storage::Temp;
    array.updates = b.updates;
    // temps hold the value's type (f32 for a half-precision computation); outputs and updates are stored
    // in their array's type, bf16 or f16 included
    array.elem = b.updates ? prog.inputs[*b.updates].elem : b.stored();
    markConstant(array, *info.body, out);
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
    const bool reduction = containsReduce(info.body);
    if (b.updates)
      array.why = fmt::format("the update of inout {}, written in place", b.name);
    else if (!b.isOutput && !reduction)
      array.why = fmt::format("{} used {} times, too large to inline ({} DNF nodes > {})",
                              b.origin.empty() ? "named binding" : b.origin + "'s '" + b.name + "'", uses[&b],
                              dnfSize(info.body), inlineLimit);
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
                                        : containsReduce(info.body) ? "stored: it contains a reduction"
                                                    : "stored: used more than once, too large to inline")
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
  at = savedAt;
  subst = std::move(savedSubst);
  scope = std::move(savedScope);
  return infos[&b] = std::move(info);
}

// Reads of the inout being updated must be at the element being written: every element of the update
// is computed in parallel and stored in place, so another element may already be overwritten.
void PsiReducer::findConflicts(const DExprPtr &body, size_t input, const SymVec &own, size_t update) {
  std::vector<UpdateConflict> found;
  forEachNode(body, [&](const DExpr &e) {
    if (e.kind == DKind::Read && e.array == input && e.index != own)
      found.push_back(UpdateConflict{update, e.index, e.loc});
  });
  // Reported last read first, the order these diagnostics have always had (reads are leaves, so that is
  // the walk's order reversed).
  out.conflicts.insert(out.conflicts.end(), found.rbegin(), found.rend());
}

DExprPtr PsiReducer::reduceRef(const TBinding &b, const SymVec &idx, SourceLoc loc) {
  const BindingInfo &info = analyse(b);
  if (info.materialised) {
    SymVec index;
    for (Symbol v : info.freeVars)
      index.push_back(SymExpr::symbol(v).substitute(subst));
    index.insert(index.end(), idx.begin(), idx.end());
    step("stored", psiText(idx, b.name), psiText(index, out.arrays[info.array].name), "read from memory");
    return dRead(info.array, index, isInteger(out.arrays[info.array].elem), loc);
  }
  std::map<Symbol, SymExpr> bindings = subst;
  for (size_t k = 0; k < info.own.size(); ++k)
    bindings[info.own[k]] = idx[k];
  step("inline", psiText(idx, b.name), "the definition of " + b.name + " at this index");
  return substitute(freshBinders(symbols, info.body, &ranges), bindings);
}

// Arithmetic on the symbolic indices and integer constants that leaves int64 is located at the innermost
// operator whose reduction raised it.
DExprPtr PsiReducer::reduce(const TExpr &e, const SymVec &idx) {
  SourceLoc outer = std::exchange(at, e.loc);
  try {
    DExprPtr result = reduceNode(e, idx);
    at = outer;
    return result;
  } catch (const SymArithmeticError &error) {
    throw PsiArithmeticError(e.loc, error.what());
  }
}

// One rule per operator: the leaves and a reference directly, the others through a function each
// (reduceStructural: the operators that only move indices).
DExprPtr PsiReducer::reduceNode(const TExpr &e, const SymVec &idx) {
  const SourceLoc loc = e.loc;
  switch (e.kind) {
  case TKind::IntConst: return dInt(e.intValue.substitute(subst), loc);
  case TKind::FloatConst: return dFloat(e.floatValue, loc);
  case TKind::Input: return dRead(e.input, idx, isInteger(out.arrays[e.input].elem), loc);
  case TKind::Ref: return reduceRef(*e.ref, idx, loc);
  case TKind::Let:
    bindingScope[e.let.get()] = scope;
    return reduce(*e.args[0], idx);
  case TKind::Unary: return dUnary(e.unop, reduce(*e.args[0], idx), loc);
  case TKind::Binary: return reduceBinary(e, idx);
  case TKind::Reduce: return reduceReduction(e, idx);
  case TKind::Inner: return reduceInner(e, idx);
  case TKind::Outer: return reduceOuter(e, idx);
  case TKind::Where: return reduceWhere(e, idx);
  case TKind::Comprehension: return reduceComprehension(e, idx);
  default: return reduceStructural(e, idx);
  }
}

// ⟨i⟩ψ (a op b) = ⟨i⟩ψ a op ⟨i⟩ψ b; a scalar operand is read at ⟨⟩ (scalar extension).
DExprPtr PsiReducer::reduceBinary(const TExpr &e, const SymVec &idx) {
  const SourceLoc loc = e.loc;
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

// ⟨i⟩ψ op/[k] a = op over l < (ρa)[k] of ⟨i₀ … l … ⟩ψ a (l at position k), l a new bound index.
DExprPtr PsiReducer::reduceReduction(const TExpr &e, const SymVec &idx) {
  const SourceLoc loc = e.loc;
  const TExpr &a = *e.args[0];
  Symbol var = symbols.fresh("l");
  // an extent over comprehension indices (`+/ (i + 1) take K`) is a bound over their values here: Σ_{l<i+1}
  const SymExpr extent = a.type.shape[e.axis].substitute(subst);
  ranges[var] = extent;
  SymVec inner = psiOfReduce(e.axis, SymExpr::symbol(var), idx);
  std::string word = reduceWord(e.op);
  std::vector<std::string> notes;
  if (e.axis)
    notes.push_back(fmt::format("the bound index goes in at axis {}", e.axis));
  if (isRightFold(e.op))
    notes.push_back(rightFoldNote(e.op).substr(2));
  step("reduce", psiText(idx, e),
       fmt::format("{}_{{{}}} {}", stepWord(e.op), rangeText(var.name(), extent, prog.dims, false, plain),
                   psiText(inner, a)),
       fmt::format("{}", fmt::join(notes, "; ")));
  ++depth;
  DExprPtr body = reduce(a, inner);
  --depth;
  return dReduce(e.op, var, extent, body, loc, a.kind == TKind::Ref ? word + ("_" + a.ref->name) : word);
}

// ⟨i j⟩ψ (a op.op2 b) = op over l of ⟨i l⟩ψ a op2 ⟨l j⟩ψ b.
DExprPtr PsiReducer::reduceInner(const TExpr &e, const SymVec &idx) {
  const SourceLoc loc = e.loc;
  const TExpr &a = *e.args[0], &b = *e.args[1];
  size_t p = a.type.rank() - 1;
  Symbol k = symbols.fresh("l");
  const SymExpr extent = a.type.shape.back().substitute(subst);
  ranges[k] = extent;
  SymVec ia(idx.begin(), idx.begin() + long(p)), ib(idx.begin() + long(p), idx.end());
  ia.push_back(SymExpr::symbol(k));
  ib.insert(ib.begin(), SymExpr::symbol(k));
  step("inner product", psiText(idx, e),
       fmt::format("{}_{{{}}} ({} {} {})", stepWord(e.op), rangeText(k.name(), extent, prog.dims, false, plain),
                   psiText(ia, a),
                   spellUnicode(e.op2), psiText(ib, b)),
       std::string("a new bound index contracts the last axis of the left with the first of the right") +
           (isRightFold(e.op) ? rightFoldNote(e.op) : ""));
  ++depth;
  DExprPtr right = reduce(b, ib);
  DExprPtr left = reduce(a, ia);
  DExprPtr body = dBinary(e.op2, left, right, loc);
  --depth;
  return dReduce(e.op, k, extent, body, loc, e.op == BinOp::Add ? "dot" : reduceWord(e.op));
}

// ⟨i j⟩ψ (a op2.outer b) = ⟨i⟩ψ a op2 ⟨j⟩ψ b, i as long as a's rank.
DExprPtr PsiReducer::reduceOuter(const TExpr &e, const SymVec &idx) {
  const SourceLoc loc = e.loc;
  const TExpr &a = *e.args[0], &b = *e.args[1];
  SymVec ia(idx.begin(), idx.begin() + long(a.type.rank())), ib(idx.begin() + long(a.type.rank()), idx.end());
  step("outer product", psiText(idx, e),
       psiText(ia, a) + " " + std::string(spellUnicode(e.op2)) + " " + psiText(ib, b));
  DExprPtr right = reduce(b, ib);
  DExprPtr left = reduce(a, ia);
  return dBinary(e.op2, left, right, loc);
}

// ⟨i⟩ψ where(c, a, b) = where(⟨i⟩ψ c, ⟨i⟩ψ a, ⟨i⟩ψ b); a scalar operand is read at ⟨⟩.
DExprPtr PsiReducer::reduceWhere(const TExpr &e, const SymVec &idx) {
  const SourceLoc loc = e.loc;
  auto at = [&](const TExpr &x) { return x.type.rank() ? idx : SymVec{}; };
  const TExpr &c = *e.args[0], &a = *e.args[1], &b = *e.args[2];
  step("where", psiText(idx, e),
       fmt::format("where({}, {}, {})", psiText(at(c), c), psiText(at(a), a), psiText(at(b), b)),
       "selection is elementwise: only the branch chosen is evaluated");
  DExprPtr otherwise = reduce(b, at(b));
  DExprPtr then = reduce(a, at(a));
  DExprPtr cond = reduce(c, at(c));
  DExprPtr chosen = dWhere(cond, then, otherwise, loc);
  return chosen->kind == DKind::Where ? chosen : widened(chosen, e.type.elem);
}

// ⟨i r⟩ψ of a comprehension over indices j = ⟨r⟩ψ of its body with j bound to i.
DExprPtr PsiReducer::reduceComprehension(const TExpr &e, const SymVec &idx) {
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
    if (!e.gatherIndex.empty()) { // the index holds elements of an integer array: loads in the index
      SymVec inner = psiOfPsi(substituted(e.gatherIndex), idx);
      step("gather", psiText(idx, e), psiText(inner, a),
           "an index read from array data: each element checked against its axis before the kernel runs");
      return reduce(a, inner);
    }
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
    // the sign the shape checker decided, over the indices' ranges where the count uses them: a take of k ≥ 0
    // has k rows, a drop of k ≥ 0 leaves ρA[0] − k
    const SymExpr &typed = (*e.args[0]->type.value)[0];
    const bool negative = e.kind == TKind::Take ? !(e.type.shape[0] == typed) : !(e.type.shape[0] == a.type.shape[0] - typed);
    SymVec inner = e.kind == TKind::Take ? psiOfTake(count, a.type.shape[0].substitute(subst), idx, negative)
                                         : psiOfDrop(count, idx, negative);
    step(e.kind == TKind::Take ? "take" : "drop", psiText(idx, e), psiText(inner, a), "an offset on the leading index");
    return reduce(a, inner);
  }
  case TKind::Cat: return reduceCat(e, idx);
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

// a cat b: a case split on the leading index, `i < a0 ? a : b` (a0 = 1 when a is one item).
DExprPtr PsiReducer::reduceCat(const TExpr &e, const SymVec &idx) {
  const SourceLoc loc = e.loc;
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
      return typedLiteral(reduce(a, ia), e, b);
    if (sign == Sign::Zero || sign == Sign::Negative || sign == Sign::NonPositive)
      return typedLiteral(reduce(b, ib), e, a);
  }
  DExprPtr second = reduce(b, ib);
  DExprPtr first = reduce(a, ia);
  return dSelect(idx[0], a0, first, second, loc);
}

// `x + 0` in `to`: the conversion of an int or f32 value to the type of the selection that chose it.
static DExprPtr converted(const DExprPtr &x, ElemType to) {
  return dBinary(BinOp::Add, x, dFloat(0.0, x->loc, to), x->loc);
}

// A where or cat decided at compile time that chose f32 data beside f64 data is f64: the chosen value
// converts, so that what uses it computes in f64 (seed 400873: `where(u > u, X, t) * t * t` multiplied in
// f32 and overflowed). Ints and literals chosen so keep where's other branch as their witness (Dnf.cpp)
// or take the cat's type (typedLiteral).
DExprPtr PsiReducer::widened(DExprPtr chosen, ElemType selection) const {
  if (selection == ElemType::F64 && floatTypeOf(*chosen, out) == ElemType::F32)
    return converted(chosen, ElemType::F64);
  return chosen;
}

// Whether a typed value reads an input, directly or through the bindings it refers to.
static bool readsInput(const TExpr &e, std::map<const TBinding *, bool> &memo) {
  if (e.kind == TKind::Input)
    return true;
  if (e.kind == TKind::Ref) {
    auto [it, fresh] = memo.emplace(e.ref, false);
    if (fresh)
      it->second = readsInput(*e.ref->value, memo);
    return it->second;
  }
  return std::any_of(e.args.begin(), e.args.end(), [&](const TExprPtr &a) { return readsInput(*a, memo); });
}

// A cat decided at compile time whose chosen operand gives literals alone (`0 psi (<0.1> ++ t)`): the
// cat has the type of its other operand, so its literals are f32 ones (0.1 rounded) when that operand
// reads f32 data, where a literal by itself takes the type of the operation reading it (floatTypeOf).
// The other operand cannot stay beside it as where's witness does (Dnf.cpp): its index is out of range.
// An int operand chosen so (`1 psi ((m take x) ++ (y != 0.5))` with x : f32) converts to the cat's f32
// as the reference's cat does (seed 394198: exp of the int was taken in f64 beside an f64 operand), and
// f32 data to an f64 cat's f64 (widened).
DExprPtr PsiReducer::typedLiteral(DExprPtr chosen, const TExpr &cat, const TExpr &other) {
  std::optional<ElemType> own = floatTypeOf(*chosen, out);
  if (own == ElemType::F32)
    return widened(chosen, cat.type.elem);
  std::map<const TBinding *, bool> memo;
  if (own || cat.type.elem != ElemType::F32 || !readsInput(other, memo))
    return chosen;
  if (chosen->isInt)
    return converted(chosen, ElemType::F32);
  std::function<DExprPtr(size_t, const DExprPtr &)> retype = [&](size_t, const DExprPtr &x) {
    return x->kind == DKind::Float ? dFloat(x->floatValue, x->loc, ElemType::F32) : mapArgs(x, retype);
  };
  return retype(0, chosen);
}

// Counts the references to each binding in every definition (let bindings included).
void PsiReducer::countUses(const TExpr &e) {
  if (e.kind == TKind::Ref)
    ++uses[e.ref];
  if (e.let)
    countUses(*e.let->value);
  for (const auto &arg : e.args)
    countUses(*arg);
}

DnfProgram PsiReducer::run() {
  for (const auto &b : prog.bindings)
    countUses(*b->value);
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
  out.order = hoistInvariants(symbols, out, order, names);
  shareCommonSubexpressions(symbols, out, names);
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
