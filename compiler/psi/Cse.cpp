#include "Cse.h"

#include <algorithm>

#include <fmt/format.h>

namespace moac {

namespace {

// The index symbols around a node, with their ranges: the array's own indices, then the binders of the
// reductions above the node.
using Ranges = std::map<Symbol, SymExpr>;

// A value over indices of its own: an array's definition, or a reduction that step 2 may store.
struct Definition {
  std::vector<Symbol> own;
  SymVec shape;
  DExprPtr body;
};

Definition definitionOf(const DnfArray &a) { return Definition{a.index, a.shape, a.body}; }

Ranges rangesOf(const DnfArray &a) {
  Ranges ranges;
  for (size_t k = 0; k < a.index.size(); ++k)
    ranges[a.index[k]] = a.shape[k];
  return ranges;
}

std::vector<const DExpr *> nodesOf(const DExprPtr &e) {
  std::vector<const DExpr *> out;
  forEachNode(e, [&](const DExpr &x) { out.push_back(&x); });
  return out;
}

// The index at which e is d's body, or nullopt. d's own indices are found where the body uses them as whole
// index entries (⟨l i⟩ψ x, not ⟨i + 1⟩ψ x); each must be an index symbol around e whose range is that axis's
// extent, so that the read is in range wherever e is evaluated (in either branch of a select too); and the
// body with its own indices so replaced must be e, up to the renaming of reduction binders (sameExpr).
std::optional<SymVec> matchAt(const Definition &d, const DExprPtr &e, const Ranges &ranges) {
  const DExpr &root = *d.body;
  if (root.kind != e->kind || root.op != e->op || root.unop != e->unop || root.args.size() != e->args.size())
    return std::nullopt;
  std::vector<const DExpr *> pattern = nodesOf(d.body), target = nodesOf(e);
  if (pattern.size() != target.size())
    return std::nullopt;
  std::map<Symbol, SymExpr> ren;
  auto bind = [&](const SymExpr &from, const SymExpr &to) {
    if (auto s = from.asSymbol())
      if (std::find(d.own.begin(), d.own.end(), *s) != d.own.end())
        ren.emplace(*s, to);
  };
  for (size_t k = 0; k < pattern.size(); ++k) {
    const DExpr &x = *pattern[k], &y = *target[k];
    if (x.kind != y.kind)
      return std::nullopt;
    if (x.kind == DKind::Int)
      bind(x.intValue, y.intValue);
    if (x.kind == DKind::Read && x.index.size() == y.index.size())
      for (size_t j = 0; j < x.index.size(); ++j)
        bind(x.index[j], y.index[j]);
  }
  SymVec index;
  for (size_t k = 0; k < d.own.size(); ++k) {
    auto bound = ren.find(d.own[k]);
    std::optional<Symbol> s = bound != ren.end() ? bound->second.asSymbol() : std::nullopt;
    auto range = s ? ranges.find(*s) : ranges.end();
    if (range == ranges.end() || !(range->second == d.shape[k]))
      return std::nullopt;
    index.push_back(bound->second);
  }
  if (!sameExpr(d.body, e, ren))
    return std::nullopt;
  return index;
}

// Whether an array stores exactly the value its body computes: an int array of an int body, or a float array
// of the type its body computes in (not a half-precision output rounded from its f32 body, not an f64 output
// of an f32 body, not a constant kept in f64 for its readers to convert).
bool holdsItsValue(const DnfArray &a, const DnfProgram &p) {
  if (a.body->isInt)
    return isInteger(a.elem);
  std::optional<ElemType> type = floatTypeOf(*a.body, p);
  return !a.constant && type && *type == a.elem;
}

// The reductions of a body under no other reduction, select or where: each is computed for every index of
// the array, so a temp over those indices computes nothing the array does not (a reduction in one branch of
// a cat's select may read out of range for the indices of the other branch).
void outerReductions(const DExprPtr &e, std::vector<DExprPtr> &out) {
  if (e->kind == DKind::Reduce) {
    out.push_back(e);
    return;
  }
  if (e->kind == DKind::Select || e->kind == DKind::Where)
    return;
  for (const DExprPtr &a : e->args)
    outerReductions(a, out);
}

// r as a definition of its own over the indices of `a` it uses, in a's order.
Definition definitionWithin(const DnfArray &a, const DExprPtr &r) {
  std::vector<Symbol> free = freeSymbols(r);
  Definition d{{}, {}, r};
  for (size_t k = 0; k < a.index.size(); ++k)
    if (std::binary_search(free.begin(), free.end(), a.index[k])) {
      d.own.push_back(a.index[k]);
      d.shape.push_back(a.shape[k]);
    }
  return d;
}

class Sharer {
public:
  Sharer(SymbolTable &symbols, DnfProgram &p, std::set<std::string> &names)
      : symbols(symbols), p(p), names(names) {}
  void run();

private:
  bool overwrittenBetween(const std::set<size_t> &read, size_t first, size_t last) const;
  std::vector<size_t> candidatesFor(size_t at) const;
  DExprPtr share(const DExprPtr &e, Ranges &ranges, const std::vector<size_t> &candidates);
  void rewrite(size_t id, const std::vector<size_t> &candidates);
  bool computes(const Definition &d, const Definition &owner, const DExprPtr &e, Ranges &ranges) const;
  const DnfArray *laterUser(const Definition &d, size_t at) const;
  std::vector<size_t> storeShared(size_t at);
  size_t makeTemp(const Definition &d, std::string first, std::string second);
  void forwardCopy(size_t at);
  std::string text(const DExprPtr &e) const { return DnfPrinter{p, false, {}}.expr(e); }

  SymbolTable &symbols;
  DnfProgram &p;
  std::set<std::string> &names;
  std::vector<TraceStep> steps; // the decisions about the array being rewritten
};

// Whether an update at a position of the order in [first, last) overwrites one of the arrays `read`.
bool Sharer::overwrittenBetween(const std::set<size_t> &read, size_t first, size_t last) const {
  for (size_t k = first; k < last; ++k) {
    const DnfArray &u = p.arrays[p.order[k]];
    if (u.storage == Storage::Update && read.count(*u.updates))
      return true;
  }
  return false;
}

// The arrays before position `at` whose value the array there may read in place of computing it: temps and
// outputs that compute something (not a bare read or a literal) and hold exactly that value, and whose
// inputs no update since has overwritten. Updates are never read so: their body reads the inout they write.
std::vector<size_t> Sharer::candidatesFor(size_t at) const {
  std::vector<size_t> out;
  for (size_t from = 0; from < at; ++from) {
    const DnfArray &a = p.arrays[p.order[from]];
    if ((a.storage == Storage::Temp || a.storage == Storage::Output) && !a.body->args.empty() &&
        holdsItsValue(a, p) && !overwrittenBetween(arraysRead(a.body), from + 1, at))
      out.push_back(p.order[from]);
  }
  return out;
}

// Step 1: e with every subexpression that is a candidate's body replaced by a read of it, outermost first.
DExprPtr Sharer::share(const DExprPtr &e, Ranges &ranges, const std::vector<size_t> &candidates) {
  if (e->args.empty())
    return e;
  for (size_t id : candidates)
    if (auto index = matchAt(definitionOf(p.arrays[id]), e, ranges)) {
      const DnfArray &a = p.arrays[id];
      DExprPtr read = dRead(id, *index, isInteger(a.elem), e->loc);
      steps.push_back(TraceStep{"common subexpression", text(e), text(read),
                                fmt::format("this is {0}'s body: {0} is read, its value computed once", a.name), 0,
                                e->loc});
      return read;
    }
  return mapArgs(e, [&](size_t, const DExprPtr &a) {
    if (e->kind == DKind::Reduce)
      ranges[e->var] = e->extent;
    DExprPtr shared = share(a, ranges, candidates);
    if (e->kind == DKind::Reduce)
      ranges.erase(e->var);
    return shared;
  });
}

void Sharer::rewrite(size_t id, const std::vector<size_t> &candidates) {
  Ranges ranges = rangesOf(p.arrays[id]);
  DExprPtr body = share(p.arrays[id].body, ranges, candidates);
  p.arrays[id].body = body;
}

// Whether e computes d somewhere (matchAt) other than inside a subexpression that is the body of d's owner,
// which step 1 will read from the owner whole.
bool Sharer::computes(const Definition &d, const Definition &owner, const DExprPtr &e, Ranges &ranges) const {
  if (e->args.empty() || matchAt(owner, e, ranges))
    return false;
  if (matchAt(d, e, ranges))
    return true;
  bool found = false;
  for (const DExprPtr &a : e->args) {
    if (e->kind == DKind::Reduce)
      ranges[e->var] = e->extent;
    found = found || computes(d, owner, a, ranges);
    if (e->kind == DKind::Reduce)
      ranges.erase(e->var);
  }
  return found;
}

// The first array after position `at` that computes d, a reduction inside the array at `at`, where a temp of
// it computed just before that array may be read (no update in between overwrites what d reads).
const DnfArray *Sharer::laterUser(const Definition &d, size_t at) const {
  const std::set<size_t> read = arraysRead(d.body);
  const Definition owner = definitionOf(p.arrays[p.order[at]]);
  for (size_t q = at + 1; q < p.order.size(); ++q) {
    const DnfArray &c = p.arrays[p.order[q]];
    Ranges ranges = rangesOf(c);
    if (!overwrittenBetween(read, at, q) && computes(d, owner, c.body, ranges))
      return &c;
  }
  return nullptr;
}

// Step 2: each reduction inside the body of the array at `at` (not its whole body: step 1 shares that) that a
// later array computes too is stored in a temp of its own. Returns the temps, to be computed just before it.
std::vector<size_t> Sharer::storeShared(size_t at) {
  const size_t id = p.order[at];
  std::vector<DExprPtr> inner;
  if (p.arrays[id].body->kind != DKind::Reduce)
    outerReductions(p.arrays[id].body, inner);
  std::vector<size_t> temps;
  for (const DExprPtr &r : inner) {
    Definition d = definitionWithin(p.arrays[id], r);
    Ranges ranges = rangesOf(p.arrays[id]);
    bool typed = r->isInt || floatTypeOf(*r, p);
    bool made = std::any_of(temps.begin(), temps.end(),
                            [&](size_t t) { return matchAt(definitionOf(p.arrays[t]), r, ranges).has_value(); });
    if (!typed || made)
      continue;
    if (const DnfArray *user = laterUser(d, at))
      temps.push_back(makeTemp(d, p.arrays[id].name, user->name));
  }
  return temps;
}

// A temp holding d (in the type it computes in), over new indices named in a scope of its own.
// The names are copies: making the temp grows (and moves) p.arrays.
size_t Sharer::makeTemp(const Definition &d, std::string first, std::string second) {
  DnfArray temp;
  const std::string base = d.body->label.empty() ? "red" : d.body->label;
  temp.name = base;
  for (int n = 2; names.count(temp.name) || symbols.used(temp.name); ++n)
    temp.name = fmt::format("{}_{}", base, n);
  names.insert(temp.name);
  temp.storage = Storage::Temp;
  temp.elem = d.body->isInt ? ElemType::Int : *floatTypeOf(*d.body, p);
  NameScope definitionNames(symbols); // the temp is a definition of its own (see PsiReducer::analyse)
  std::map<Symbol, SymExpr> rename;
  SymVec readIndex;
  for (size_t k = 0; k < d.own.size(); ++k) {
    Symbol own = symbols.fresh(indexHint(k));
    rename[d.own[k]] = SymExpr::symbol(own);
    temp.index.push_back(own);
    temp.shape.push_back(d.shape[k]);
    readIndex.push_back(SymExpr::symbol(d.own[k]));
  }
  temp.body = substitute(freshBinders(symbols, d.body), rename);
  temp.loc = d.body->loc;
  temp.why = fmt::format("a reduction {} and {} both compute, computed once", first, second);
  TraceStep step{"common subexpression", text(d.body), psiText(readIndex, temp.name),
                 fmt::format("{} computes it too: it is computed once, stored and read by both", second), 0,
                 d.body->loc};
  p.arrays.push_back(std::move(temp));
  const size_t id = p.arrays.size() - 1;
  std::string title = fmt::format("{} — stored: {} and {} both compute it", p.arrays[id].name, first, second);
  p.trace.push_back(TraceBlock{title, {step}, DnfPrinter{p, false, {}}.definition(id)});
  return id;
}

// Step 3: the temp at `at`, whose whole body is now a read of another array, is a copy of it: its readers
// read that array instead, and it leaves the order.
void Sharer::forwardCopy(size_t at) {
  const size_t id = p.order[at];
  const DnfArray &copy = p.arrays[id];
  std::function<DExprPtr(const DExprPtr &)> forward = [&](const DExprPtr &e) -> DExprPtr {
    if (e->kind != DKind::Read || e->array != id)
      return mapArgs(e, [&](size_t, const DExprPtr &a) { return forward(a); });
    std::map<Symbol, SymExpr> at;
    for (size_t k = 0; k < copy.index.size(); ++k)
      at[copy.index[k]] = e->index[k];
    return substitute(copy.body, at);
  };
  for (size_t q = at + 1; q < p.order.size(); ++q)
    p.arrays[p.order[q]].body = forward(p.arrays[p.order[q]].body);
  const std::string &source = p.arrays[copy.body->array].name;
  steps.push_back(TraceStep{"copy forwarded", copy.name, source,
                            fmt::format("{} is {}: its readers read {}, and {} is not stored", copy.name, source,
                                        source, copy.name),
                            0, copy.loc});
  p.order.erase(p.order.begin() + long(at));
}

void Sharer::run() {
  for (size_t at = 0; at < p.order.size();) {
    const size_t id = p.order[at];
    steps.clear();
    const DExprPtr before = p.arrays[id].body;
    rewrite(id, candidatesFor(at));
    std::vector<size_t> temps = storeShared(at);
    if (!temps.empty()) {
      p.order.insert(p.order.begin() + long(at), temps.begin(), temps.end());
      at += temps.size();
      rewrite(id, temps);
    }
    const bool copy = p.arrays[id].storage == Storage::Temp && p.arrays[id].body != before &&
                      p.arrays[id].body->kind == DKind::Read;
    std::string title = copy ? fmt::format("{} — the same as {}: not stored", p.arrays[id].name,
                                           p.arrays[p.arrays[id].body->array].name)
                             : fmt::format("{} — common subexpressions computed once", p.arrays[id].name);
    std::string result = DnfPrinter{p, false, {}}.definition(id);
    if (copy)
      forwardCopy(at);
    else
      ++at;
    if (!steps.empty())
      p.trace.push_back(TraceBlock{title, steps, result});
  }
}

} // namespace

void shareCommonSubexpressions(SymbolTable &symbols, DnfProgram &dnf, std::set<std::string> &names) {
  Sharer(symbols, dnf, names).run();
}

} // namespace moac
