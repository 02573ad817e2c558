#include "Fuse.h"

#include "Gamma.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>

namespace moac {

double onlineRescale(double a, double m) { return a == -INFINITY ? 0.0 : std::exp(a - m); }

namespace {

bool reads(const DExprPtr &e, size_t array) {
  bool found = false;
  forEachNode(e, [&](const DExpr &x) { found |= x.kind == DKind::Read && x.array == array; });
  return found;
}

// The bindings that read array a's body at `index`: a's own index symbols to the read's expressions.
std::map<Symbol, SymExpr> readAt(const DnfArray &a, const SymVec &index) {
  std::map<Symbol, SymExpr> at;
  for (size_t k = 0; k < a.index.size(); ++k)
    at[a.index[k]] = index[k];
  return at;
}

// e with every argument passed through f.
template <typename F> DExprPtr rebuild(const DExprPtr &e, F &&f) {
  return mapArgs(e, [&](size_t, const DExprPtr &a) { return f(a); });
}

// The factors of a product-quotient tree: a × b ÷ c → numerator {a, b}, denominator {c}.
void factorise(const DExprPtr &e, bool inverted, std::vector<DExprPtr> &num, std::vector<DExprPtr> &den) {
  if (e->kind == DKind::Binary && (e->op == BinOp::Mul || e->op == BinOp::Div) && !e->isInt) {
    factorise(e->args[0], inverted, num, den);
    factorise(e->args[1], e->op == BinOp::Div ? !inverted : inverted, num, den);
    return;
  }
  (inverted ? den : num).push_back(e);
}

DExprPtr productOf(const std::vector<DExprPtr> &factors, SourceLoc loc) {
  if (factors.empty())
    return dFloat(1, loc);
  DExprPtr p = factors[0];
  for (size_t k = 1; k < factors.size(); ++k)
    p = dBinary(BinOp::Mul, p, factors[k], loc);
  return p;
}

// A sum Σ_l exp(e_l − m)·h_l ÷ Z matched against the maximum m = max_l e_l.
struct Match {
  DExprPtr weight;               // h, over the member's symbols and its term index
  std::vector<DExprPtr> divisors; // Z…, invariant in l
  DExprPtr term;                 // the term with the weights that read m expanded
};

class Fuser {
public:
  Fuser(SymbolTable &symbols, DnfProgram &dnf, bool storeScores)
      : symbols(symbols), p(dnf), storeScores(storeScores) {}
  void run();

private:
  DExprPtr expandWeights(const DExprPtr &e, size_t max) const;
  std::optional<Match> match(size_t max, const DnfArray &sum) const;
  void fuse(size_t max, const std::vector<std::pair<size_t, Match>> &sums);
  void inlineBareMembers();
  void inlineScores();
  void inlineAccumulators();
  bool keepsStoredScore(const FusedGroup &g) const;
  void storeScore(FusedGroup &g);
  void dropDead();
  void reorder();
  std::set<size_t> readers(size_t array) const;
  std::set<size_t> dependencies(const DExprPtr &body) const;
  std::string text(const DExprPtr &e) const { return DnfPrinter{p, false, {}}.expr(e); }

  SymbolTable &symbols;
  DnfProgram &p;
  const bool storeScores;
  std::vector<TraceStep> steps;
};

// Reads of temps that compute from m without a reduction (the weights p_l = exp(e_l − m) ÷ Z), expanded
// in place: the sum's term is then exp(…) × … in the open.
DExprPtr Fuser::expandWeights(const DExprPtr &e, size_t max) const {
  if (e->kind == DKind::Read) {
    const DnfArray &a = p.arrays[e->array];
    if (a.storage == Storage::Temp && a.body && !containsReduce(a.body) && reads(a.body, max)) {
      return expandWeights(substitute(a.body, readAt(a, e->index)), max);
    }
    return e;
  }
  return rebuild(e, [&](const DExprPtr &a) { return expandWeights(a, max); });
}

// Whether `sum` is Σ_u exp(E[u] − ⟨f⟩ψ m)·h ÷ Z with m = max_v E[v] over the same range, f the sum's own
// leading indices (the frame m is defined over), Z free of u, and m read nowhere else.
std::optional<Match> Fuser::match(size_t maxId, const DnfArray &sum) const {
  const DnfArray &m = p.arrays[maxId];
  const DExprPtr &mx = m.body;
  const DExprPtr &body = sum.body;
  if (!body || body->kind != DKind::Reduce || body->op != BinOp::Add || body->isInt ||
      sum.index.size() < m.index.size())
    return std::nullopt;
  // the same range at the same frame element: a range over the frame (l < i + 1, causal) is compared with
  // m's indices read as the sum's
  std::map<Symbol, SymExpr> frameAsSum;
  for (size_t i = 0; i < m.index.size(); ++i)
    frameAsSum[m.index[i]] = SymExpr::symbol(sum.index[i]);
  if (!(body->extent == mx->extent.substitute(frameAsSum)))
    return std::nullopt;
  std::vector<DExprPtr> num, den;
  DExprPtr term = expandWeights(body->args[0], maxId);
  factorise(term, false, num, den);
  std::optional<size_t> expAt;
  for (size_t k = 0; k < num.size(); ++k) {
    const DExprPtr &f = num[k];
    if (f->kind != DKind::Unary || f->unop != UnOp::Exp || f->args[0]->kind != DKind::Binary ||
        f->args[0]->op != BinOp::Sub)
      continue;
    const DExprPtr &score = f->args[0]->args[0], &read = f->args[0]->args[1];
    if (read->kind != DKind::Read || read->array != maxId)
      continue;
    bool frame = true; // m read at the sum's own leading indices
    for (size_t i = 0; i < m.index.size(); ++i)
      frame &= read->index[i] == SymExpr::symbol(sum.index[i]);
    std::map<Symbol, SymExpr> ren;
    for (size_t i = 0; i < m.index.size(); ++i)
      ren[m.index[i]] = read->index[i];
    ren[mx->var] = SymExpr::symbol(body->var);
    if (frame && !expAt && sameExpr(mx->args[0], score, ren))
      expAt = k;
    else if (frame)
      return std::nullopt; // a second exp against m, or one of another score
  }
  if (!expAt)
    return std::nullopt;
  Match result;
  std::vector<DExprPtr> rest;
  for (size_t k = 0; k < num.size(); ++k)
    if (k != *expAt)
      rest.push_back(num[k]);
  for (const DExprPtr &f : rest)
    if (reads(f, maxId) || !groupsRead(f).empty())
      return std::nullopt;
  for (const DExprPtr &d : den) {
    std::vector<Symbol> free = freeSymbols(d);
    if (std::binary_search(free.begin(), free.end(), body->var) || reads(d, maxId))
      return std::nullopt;
  }
  result.weight = productOf(rest, body->loc);
  result.divisors = den;
  result.term = term;
  return result;
}

// Makes the group and rewrites m and each sum to read it.
void Fuser::fuse(size_t maxId, const std::vector<std::pair<size_t, Match>> &sums) {
  const DnfArray &m = p.arrays[maxId];
  FusedGroup g;
  g.name = "online";
  std::set<std::string> used;
  for (const DnfArray &a : p.arrays)
    used.insert(a.name);
  for (const FusedGroup &other : p.groups)
    used.insert(other.name);
  for (int n = 2; used.count(g.name); ++n)
    g.name = fmt::format("online_{}", n);
  g.elem = computeType(m.elem);
  g.loc = m.body->loc;
  // The group is a definition of its own: its indices, and the binders of what moves into it from m
  // and the sums, are named in its scope (Symbolic.h).
  NameScope groupNames(symbols);
  g.var = symbols.fresh(m.body->var.hint());
  std::map<Symbol, SymExpr> toGroup{{m.body->var, SymExpr::symbol(g.var)}};
  for (size_t k = 0; k < m.index.size(); ++k) {
    g.frame.push_back(symbols.fresh(indexHint(k)));
    g.frameShape.push_back(m.shape[k].substitute(toGroup));
    toGroup[m.index[k]] = SymExpr::symbol(g.frame.back());
  }
  g.extent = m.body->extent.substitute(toGroup); // over the frame for a triangular range (l < i + 1)
  g.score = substitute(freshBinders(symbols, m.body->args[0]), toGroup);
  g.members.push_back(FusedMember{m.name, {}, {}, nullptr});
  const size_t gid = p.groups.size();

  std::string before = m.name + " = " + text(m.body), after;
  for (const auto &[id, match] : sums) {
    const DnfArray &a = p.arrays[id];
    std::map<Symbol, SymExpr> at{{a.body->var, SymExpr::symbol(g.var)}};
    FusedMember member{a.name, {}, {}, nullptr};
    for (size_t k = 0; k < a.index.size(); ++k) {
      if (k < g.frame.size()) {
        at[a.index[k]] = SymExpr::symbol(g.frame[k]);
        continue;
      }
      member.extra.push_back(symbols.fresh(indexHint(k)));
      member.extraShape.push_back(a.shape[k]);
      at[a.index[k]] = SymExpr::symbol(member.extra.back());
    }
    member.weight = substitute(freshBinders(symbols, match.weight), at);
    before += "; " + a.name + " = " + text(a.body);
    SymVec own;
    for (Symbol s : a.index)
      own.push_back(SymExpr::symbol(s));
    DExprPtr value = dFused(gid, g.members.size(), own, a.body->loc);
    std::string range = rangeText(a.body->var.name(), a.body->extent, p.dims, false,
                                  [](const SymExpr &x) { return x.str(); });
    std::string sumText = fmt::format("Σ_{{{}}} exp(e − {}) × {}", range, m.name, text(match.weight));
    for (const DExprPtr &d : match.divisors) {
      value = dBinary(BinOp::Div, value, d, a.body->loc);
      sumText = "(" + sumText + ") ÷ " + text(d);
    }
    if (!match.divisors.empty())
      steps.push_back(TraceStep{"invariant divisor",
                                fmt::format("Σ_{{{}}} {}", range, text(match.term)),
                                sumText,
                                "Σ_l (a_l ÷ Z)·b_l = (Σ_l a_l·b_l) ÷ Z, since the divisor does not depend on l", 0,
                                a.body->loc});
    g.members.push_back(std::move(member));
    p.arrays[id].body = value;
  }
  p.groups.push_back(std::move(g));
  SymVec own;
  for (Symbol s : p.arrays[maxId].index)
    own.push_back(SymExpr::symbol(s));
  p.arrays[maxId].body = dFused(gid, 0, own, p.arrays[maxId].body->loc);
  for (size_t k = 0; k < p.groups[gid].members.size(); ++k)
    after += (k ? ", " : "") + p.groups[gid].members[k].name;
  steps.push_back(TraceStep{
      "online softmax", before,
      fmt::format("one reduction over {} < {} of ({}) in one pass: (m, S) ⊕ (m′, S′) = (M, S·e^(m−M) + S′·e^(m′−M)), "
                  "M = max(m, m′)",
                  p.groups[gid].var.name(), p.groups[gid].extent.str(), after),
      "exp(a − m) = exp(a − m′)·exp(m′ − m): a sum taken against its running maximum m′ is rescaled to a larger "
      "maximum by one factor, so each score e is computed once and never stored",
      0, p.groups[gid].loc});
}

// m and the normaliser, whose bodies are now a member of the group, are read as that member directly.
void Fuser::inlineBareMembers() {
  for (size_t id : p.order) {
    const DExprPtr bare = p.arrays[id].body;
    if (!bare || bare->kind != DKind::Fused || p.arrays[id].storage != Storage::Temp)
      continue;
    std::function<DExprPtr(const DExprPtr &)> replace = [&](const DExprPtr &e) -> DExprPtr {
      if (e->kind == DKind::Read && e->array == id) {
        return substitute(bare, readAt(p.arrays[id], e->index));
      }
      return rebuild(e, replace);
    };
    for (size_t other : p.order)
      if (other != id && p.arrays[other].body)
        p.arrays[other].body = replace(p.arrays[other].body);
  }
}

std::set<size_t> Fuser::dependencies(const DExprPtr &body) const {
  std::set<size_t> out = arraysRead(body);
  for (size_t g : groupsRead(body)) {
    std::set<size_t> s = arraysRead(p.groups[g].score);
    out.insert(s.begin(), s.end());
    for (const FusedMember &m : p.groups[g].members) {
      std::set<size_t> w = arraysRead(m.weight);
      out.insert(w.begin(), w.end());
    }
  }
  return out;
}

// Outputs and updates, and everything they read through bodies and groups; the rest leaves the order.
void Fuser::dropDead() {
  std::set<size_t> live;
  std::vector<size_t> work(p.outputs.begin(), p.outputs.end());
  work.insert(work.end(), p.updates.begin(), p.updates.end());
  while (!work.empty()) {
    size_t id = work.back();
    work.pop_back();
    if (!live.insert(id).second || !p.arrays[id].body)
      continue;
    for (size_t d : dependencies(p.arrays[id].body))
      work.push_back(d);
  }
  std::vector<size_t> kept;
  for (size_t id : p.order)
    if (live.count(id))
      kept.push_back(id);
  p.order = kept;
}

// The arrays in the order and the groups whose bodies read `array`.
std::set<size_t> Fuser::readers(size_t array) const {
  std::set<size_t> out;
  for (size_t id : p.order)
    if (p.arrays[id].body && reads(p.arrays[id].body, array))
      out.insert(id);
  return out;
}

// A temp that only a group's scores read (decode's s) is computed inside the group, once per term:
// the scores are then never stored.
void Fuser::inlineScores() {
  for (bool changed = true; changed;) {
    changed = false;
    for (FusedGroup &g : p.groups)
      for (size_t t : keepsStoredScore(g) ? std::set<size_t>{} : arraysRead(g.score)) {
        const DnfArray &a = p.arrays[t];
        bool inWeights = false;
        for (const FusedGroup &h : p.groups) {
          for (const FusedMember &m : h.members)
            inWeights |= m.weight && reads(m.weight, t);
          inWeights |= &h != &g && reads(h.score, t);
        }
        if (a.storage != Storage::Temp || inWeights || !readers(t).empty())
          continue;
        std::string before = text(g.score);
        NameScope groupNames(symbols); // the group's scope again, for the binders of t's body
        reserveNames(groupNames, g);
        std::function<DExprPtr(const DExprPtr &)> replace = [&](const DExprPtr &e) -> DExprPtr {
          if (e->kind == DKind::Read && e->array == t) {
            return substitute(freshBinders(symbols, a.body), readAt(a, e->index));
          }
          return rebuild(e, replace);
        };
        g.score = replace(g.score);
        steps.push_back(TraceStep{"score inlined", before, text(g.score),
                                  fmt::format("{} is read only by the fused reduction: each score is computed "
                                              "where it is used, once per term, and never stored",
                                              a.name),
                                  0, a.loc});
        changed = true;
      }
    if (changed)
      dropDead();
  }
}

// A half-precision array whose value was a reduction is stored from an f32 accumulator (Hoist.cpp), so
// that its own storage never holds a split reduction's partials or a running sum. Once the reduction is
// a fused group's member, the accumulator's value is the splits' combine (⟨i⟩ψ online.o_acc ÷
// online.sum_e), no running sum: where the half array is its only reader, at the array's own index, the
// combine is stored into the array directly, rounded once as before (the same bits, one stage fewer).
void Fuser::inlineAccumulators() {
  for (size_t t : std::vector<size_t>(p.order)) {
    const DnfArray &a = p.arrays[t];
    bool sums = false; // a reduction of its own (not a group's member) left in the body
    if (a.body)
      forEachNode(a.body, [&](const DExpr &x) { sums |= x.kind == DKind::Reduce; });
    if (a.storage != Storage::Temp || !a.body || sums || groupsRead(a.body).empty())
      continue;
    const std::set<size_t> by = readers(t);
    if (by.size() != 1)
      continue;
    DnfArray &r = p.arrays[*by.begin()];
    const DExprPtr &read = r.body;
    if (!isHalf(r.elem) || computeType(r.elem) != a.elem || read->kind != DKind::Read ||
        read->array != t || r.index.size() != a.index.size() ||
        std::any_of(p.groups.begin(), p.groups.end(), [&](const FusedGroup &g) { return reads(g.score, t); }))
      continue;
    SymVec own;
    for (Symbol x : r.index)
      own.push_back(SymExpr::symbol(x));
    if (read->index != own)
      continue;
    std::string before = text(r.body);
    r.body = substitute(a.body, readAt(a, own));
    p.trace.push_back(TraceBlock{
        fmt::format("{} — inlined into {}", a.name, r.name),
        {TraceStep{"accumulator inlined", before, text(r.body),
                   fmt::format("{} is the splits' combine, no running sum: {} is stored from it directly, "
                               "rounded once",
                               a.name, r.name),
                   0, a.loc}},
        fmt::format("{}ψ {} = {}", DnfPrinter{p, false, {}}.index(own), r.name, text(r.body))});
  }
  dropDead();
}

// Whether the group's scores are to be stored (scores=stored) and already are: the score is a read of a
// temp at exactly the group's frame and term index (decode's ⟨i⟩ψ s), which then stays as it is.
bool Fuser::keepsStoredScore(const FusedGroup &g) const {
  if (!storeScores || !scoresStorable(p, g) || g.score->kind != DKind::Read ||
      p.arrays[g.score->array].storage != Storage::Temp)
    return false;
  SymVec own;
  for (Symbol f : g.frame)
    own.push_back(SymExpr::symbol(f));
  own.push_back(SymExpr::symbol(g.var));
  return g.score->index == own;
}

// scores=stored: the group's scores become an array of their own over (frame, term), computed by a
// parallel pass before the group, and the score is a read of it. A temp the score already reads as a
// whole is kept (keepsStoredScore); otherwise the inlined score is stored under a new name.
void Fuser::storeScore(FusedGroup &g) {
  if (!storeScores || !scoresStorable(p, g))
    return;
  const DExprPtr read = g.score;
  if (!keepsStoredScore(g)) {
    DnfArray temp;
    std::set<std::string> taken;
    for (const DnfArray &a : p.arrays)
      taken.insert(a.name);
    temp.name = "scores";
    for (int n = 2; taken.count(temp.name) || symbols.used(temp.name); ++n)
      temp.name = fmt::format("scores_{}", n);
    temp.storage = Storage::Temp;
    temp.elem = g.elem;
    temp.loc = g.loc;
    NameScope definitionNames(symbols); // the temp is a definition of its own
    std::map<Symbol, SymExpr> rename;
    SymVec at;
    for (size_t k = 0; k <= g.frame.size(); ++k) {
      Symbol own = symbols.fresh(indexHint(k));
      Symbol from = k < g.frame.size() ? g.frame[k] : g.var;
      rename[from] = SymExpr::symbol(own);
      temp.index.push_back(own);
      temp.shape.push_back(k < g.frame.size() ? g.frameShape[k] : g.extent.substitute(rename));
      at.push_back(SymExpr::symbol(from));
    }
    temp.body = substitute(freshBinders(symbols, g.score), rename);
    const size_t id = p.arrays.size();
    p.arrays.push_back(std::move(temp));
    p.order.push_back(id);
    g.score = dRead(id, at, false, g.loc);
    p.trace.push_back(TraceBlock{fmt::format("{} — stored: the scores of {}", p.arrays[id].name, g.name), {},
                                 DnfPrinter{p, false, {}}.definition(id)});
  }
  DnfArray &scores = p.arrays[g.score->array];
  scores.why = fmt::format("the scores of the fused reduction {}, stored (scores=stored)", g.name);
  steps.push_back(TraceStep{"scores stored", text(read), DnfPrinter{p, false, {}}.definition(g.score->array),
                            fmt::format("scores=stored: {} is computed by a parallel pass of its own, one score per "
                                        "term, and read twice by each split: once for the split's maximum, once "
                                        "for the weights exp(e − m), so no sum is rescaled",
                                        scores.name),
                            0, scores.loc});
}

// Dependencies first, otherwise the order as it was: a group's reader comes after everything the group
// reads (its weights may read arrays computed after m).
void Fuser::reorder() {
  std::vector<size_t> pending = p.order, placed;
  std::set<size_t> done;
  for (size_t k = 0; k < p.arrays.size(); ++k)
    if (p.arrays[k].storage == Storage::Input)
      done.insert(k);
  std::set<size_t> inOrder(pending.begin(), pending.end());
  while (!pending.empty()) {
    auto ready = std::find_if(pending.begin(), pending.end(), [&](size_t id) {
      for (size_t d : dependencies(p.arrays[id].body))
        if (d != id && inOrder.count(d) && !done.count(d))
          return false;
      return true;
    });
    if (ready == pending.end())
      ready = pending.begin(); // a cycle cannot arise (no member's weight reads m), but never loop forever
    done.insert(*ready);
    placed.push_back(*ready);
    pending.erase(ready);
  }
  p.order = placed;
}

// Whether the max's range has a term at every element: l < i + 1 over i < n does, l < i does not (row 0).
static bool nonEmpty(const DnfArray &m) {
  IndexRanges own;
  for (size_t k = 0; k < m.index.size(); ++k)
    own[m.index[k]] = m.shape[k];
  auto range = indexBounds(m.body->extent, own);
  return range && signOf(range->first) == Sign::Positive;
}

void Fuser::run() {
  for (size_t maxId : std::vector<size_t>(p.order)) {
    const DnfArray &m = p.arrays[maxId];
    // over a range that may be empty (a dim declared `>= 0`) the invariant divisor's Σ_l (a_l ÷ Z)·b_l = 0
    // would become (Σ_l a_l·b_l) ÷ Z = 0 ÷ 0: such a group stays unfused
    if (m.storage != Storage::Temp || !m.body || m.body->kind != DKind::Reduce || m.body->op != BinOp::Max ||
        m.body->isInt || !groupsRead(m.body).empty() || !nonEmpty(m))
      continue;
    std::vector<std::pair<size_t, Match>> sums;
    for (size_t id : p.order)
      if (id != maxId && p.arrays[id].storage != Storage::Update && p.arrays[id].storage != Storage::Input)
        if (auto found = match(maxId, p.arrays[id]))
          sums.emplace_back(id, *found);
    if (sums.empty())
      continue;
    steps.clear();
    fuse(maxId, sums);
    inlineBareMembers();
    dropDead();
    inlineScores();
    storeScore(p.groups.back());
    reorder();
    const FusedGroup &g = p.groups.back();
    p.trace.push_back(TraceBlock{fmt::format("{} — fused: {} in one pass over {} < {}", g.name,
                                             [&] {
                                               std::string names;
                                               for (const FusedMember &x : g.members)
                                                 names += (names.empty() ? "" : ", ") + x.name;
                                               return names;
                                             }(),
                                             g.var.name(), g.extent.str()),
                                 steps, "e = " + text(g.score)});
  }
  inlineAccumulators();
}

} // namespace

void fuseReductions(CompilationContext &ctx, DnfProgram &dnf, bool storeScores) {
  Fuser(ctx.symbols, dnf, storeScores).run();
}

// Storing π(frame)·n scores is linear in what the score streams when some input (or update) it reads
// depends on every frame index and on the term index together (decode, GQA, MHA: one row of K per frame
// element and term); prefill's score reads K[j] for every query row i, so its scores would be n × n. A
// temp the score reads is looked through at the index it is read at.
bool scoresStorable(const DnfProgram &p, const FusedGroup &g) {
  std::vector<Symbol> needed = g.frame;
  needed.push_back(g.var);
  bool found = false;
  std::function<void(const DExprPtr &)> visit = [&](const DExprPtr &e) {
    forEachNode(e, [&](const DExpr &x) {
      if (x.kind != DKind::Read)
        return;
      const DnfArray &a = p.arrays[x.array];
      if (a.storage == Storage::Temp && a.body) {
        visit(substitute(a.body, readAt(a, x.index)));
        return;
      }
      if (a.storage != Storage::Input && a.storage != Storage::Update)
        return;
      found |= std::all_of(needed.begin(), needed.end(), [&](Symbol s) {
        return std::any_of(x.index.begin(), x.index.end(), [&](const SymExpr &i) { return i.dependsOn(s); });
      });
    });
  };
  visit(g.score);
  return found;
}

void reserveNames(NameScope &scope, const FusedGroup &g) {
  auto add = [&](Symbol s) { scope.reserve(s.name()); };
  for (Symbol s : g.frame)
    add(s);
  add(g.var);
  std::vector<DExprPtr> bodies{g.score};
  for (const FusedMember &m : g.members) {
    for (Symbol s : m.extra)
      add(s);
    bodies.push_back(m.weight);
  }
  for (const DExprPtr &body : bodies)
    if (body) {
      for (Symbol s : freeSymbols(body))
        add(s);
      forEachNode(body, [&](const DExpr &e) {
        if (e.kind == DKind::Reduce)
          add(e.var);
      });
    }
}

std::string dumpGroup(const DnfProgram &p, size_t gid, bool ascii) {
  const FusedGroup &g = p.groups[gid];
  std::vector<Symbol> own = g.frame;
  own.push_back(g.var);
  std::vector<DExprPtr> bodies{g.score};
  for (const FusedMember &m : g.members) {
    own.insert(own.end(), m.extra.begin(), m.extra.end());
    bodies.push_back(m.weight);
  }
  DnfPrinter print{p, ascii, displayNames(p, own, bodies)};
  SymVec frame;
  for (Symbol s : g.frame)
    frame.push_back(SymExpr::symbol(s));
  auto lhs = [&](const SymVec &idx, const std::string &name) {
    return idx.empty() ? name : print.index(idx) + (ascii ? " psi " : "ψ ") + name;
  };
  const std::string l = print.names.at(g.var), sum = ascii ? "sum" : "Σ", minus = ascii ? "-" : "−";
  std::string e = "e_" + l, names;
  for (const FusedMember &m : g.members)
    names += (names.empty() ? "" : ", ") + m.name;
  // A score read from an array (scores=stored) is computed before the group; each split reads its scores
  // twice (lower/LowerFused.h).
  const std::string how = g.score->kind == DKind::Read
                              ? fmt::format("the scores read from {}", p.arrays[g.score->array].name)
                              : "each score computed once and never stored";
  std::string out = fmt::format("fused {} : {}{}, {} < {}   # online softmax of {}: one pass over {}, {}\n", g.name,
                                spell(g.elem), ascii ? strShapeAscii(g.frameShape) : strShape(g.frameShape), l,
                                print.sym(g.extent), names, l, how);
  out += fmt::format("  {} = {}\n", lhs(frame, e), print.expr(g.score));
  const std::string &mName = g.members[0].name;
  out += fmt::format("  {} = max_{{{}}} {}\n", lhs(frame, mName), print.range(l, g.extent), e);
  for (size_t k = 1; k < g.members.size(); ++k) {
    const FusedMember &m = g.members[k];
    SymVec idx = frame;
    for (Symbol s : m.extra)
      idx.push_back(SymExpr::symbol(s));
    std::string weight = m.weight->kind == DKind::Float && m.weight->floatValue == 1
                             ? ""
                             : (ascii ? " * " : " × ") + print.expr(m.weight);
    out += fmt::format("  {} = {}_{{{}}} exp({} {} {}){}\n", lhs(idx, m.name), sum, print.range(l, g.extent), e,
                       minus, mName, weight);
  }
  return out;
}

} // namespace moac
