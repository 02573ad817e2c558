#include "Traffic.h"

#include "Gamma.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace moac {

int64_t elementBytes(ElemType t) { return elemBytes(t); }

static SymExpr total(const std::vector<TrafficTerm> &terms, int64_t times = 1) {
  SymExpr sum;
  for (const auto &t : terms)
    sum = sum + t.bytes() * SymExpr(times);
  return sum;
}

SymExpr TrafficModel::minimumBytes() const { return total(inputs) + total(outputs) + total(updates); }
SymExpr TrafficModel::tempBytes() const { return total(temps); }
SymExpr TrafficModel::standardBytes() const { return minimumBytes() + total(standard, 2); }

namespace {

// Every operator node of the program as written stores its result; comprehensions store it for every
// index, so a node's size is summed over the comprehensions around it (`binders`: each index with its
// extent, which may use an outer one: Σ_{i<n} (i + 1) for `(i + 1) take K` inside `[i < n]`).
using Binders = std::vector<std::pair<Symbol, SymExpr>>;

SymExpr copiesOf(const Binders &binders, const SymExpr &each) {
  SymVec shape;
  std::vector<Symbol> index;
  for (const auto &[sym, extent] : binders) {
    index.push_back(sym);
    shape.push_back(extent);
  }
  // the node's elements as one more axis over the binders (its extent may use them)
  shape.push_back(each);
  return indexSpaceSize(shape, index);
}

void collectStandard(const TExpr &e, const Binders &binders, bool root, std::vector<TrafficTerm> &out) {
  switch (e.kind) {
  case TKind::IntConst:
  case TKind::FloatConst:
  case TKind::Input:
  case TKind::Ref:
    return;
  case TKind::Let:
    collectStandard(*e.let->value, binders, false, out);
    collectStandard(*e.args[0], binders, root, out);
    return;
  case TKind::Comprehension: {
    Binders inner = binders;
    for (const TIndex &i : e.indices)
      inner.emplace_back(i.sym, i.extent);
    collectStandard(*e.args[0], inner, false, out);
    break;
  }
  default:
    for (const auto &a : e.args)
      collectStandard(*a, binders, false, out);
    break;
  }
  if (root || (e.kind == TKind::Vector && e.type.value))
    return;
  out.push_back(TrafficTerm{printTExpr(e), copiesOf(binders, product(e.type.shape)),
                            e.type.elem == ElemType::Int ? 8 : elementBytes(e.type.elem)});
}

} // namespace

// The elements of an input that its gathers read, when every read of it is a gather (an index holding a
// value read from an index array): each gathered read's index space, the extents of the indices it depends
// on (E[ids[i], j] reads m·d elements of E's V·d), counted once where two reads (a score computed in two
// places) have the same space. The rows no index names are never touched; rows named twice count twice
// (an upper bound on the distinct rows, which caches may serve once).
static std::optional<SymExpr> gatheredElements(const DnfProgram &dnf, size_t input) {
  std::map<Symbol, SymExpr> extents;
  std::vector<const DExprPtr *> bodies;
  for (const DnfArray &a : dnf.arrays) {
    for (size_t k = 0; k < a.index.size() && k < a.shape.size(); ++k)
      extents[a.index[k]] = a.shape[k];
    if (a.body)
      bodies.push_back(&a.body);
  }
  for (const FusedGroup &g : dnf.groups) {
    for (size_t k = 0; k < g.frame.size(); ++k)
      extents[g.frame[k]] = g.frameShape[k];
    extents[g.var] = g.extent;
    bodies.push_back(&g.score);
    for (const FusedMember &member : g.members) {
      for (size_t k = 0; k < member.extra.size(); ++k)
        extents[member.extra[k]] = member.extraShape[k];
      if (member.weight)
        bodies.push_back(&member.weight);
    }
  }
  std::vector<SymVec> reads;
  bool plain = false;
  for (const DExprPtr *body : bodies)
    forEachNode(*body, [&](const DExpr &e) {
      if (e.kind == DKind::Reduce)
        extents[e.var] = e.extent;
      if (e.kind != DKind::Read || e.array != input)
        return;
      plain |= std::none_of(e.index.begin(), e.index.end(), [](const SymExpr &x) { return x.hasLoad(); });
      if (std::find(reads.begin(), reads.end(), e.index) == reads.end())
        reads.push_back(e.index);
    });
  if (plain || reads.empty())
    return std::nullopt;
  std::vector<SymExpr> spaces;
  for (const SymVec &index : reads) {
    std::set<Symbol> used; // the indices it depends on (a load's bound is over dims)
    for (const SymExpr &x : index)
      for (Symbol s : x.symbols())
        if (std::none_of(dnf.dims.begin(), dnf.dims.end(), [&](const TDim &d) { return d.sym == s; }))
          used.insert(s);
    SymExpr space(1);
    for (Symbol s : used) {
      auto it = extents.find(s);
      if (it == extents.end())
        return std::nullopt; // a symbol of no known extent: count the whole array
      space = space * it->second;
    }
    if (std::find(spaces.begin(), spaces.end(), space) == spaces.end()) // the same rows read again
      spaces.push_back(space);
  }
  SymExpr total;
  for (const SymExpr &space : spaces)
    total = total + space;
  return total;
}

TrafficModel trafficModel(const DnfProgram &dnf, const TypedProgram &typed) {
  TrafficModel m;
  for (size_t id = 0; id < dnf.arrays.size(); ++id) {
    const DnfArray &a = dnf.arrays[id];
    TrafficTerm term{a.name, product(a.shape), a.elem == ElemType::Int ? 8 : elementBytes(a.elem)};
    if (a.storage != Storage::Input)
      continue;
    // an updated inout is read over its updated extent (the rows beyond it are never touched)
    for (size_t u : dnf.updates)
      if (dnf.arrays[u].updates == id) {
        term.elements = product(dnf.arrays[u].shape);
        term.what = dnf.arrays[u].shape.empty()
                        ? a.name + " (after the update)"
                        : fmt::format("{} (its {} rows after the update)", a.name, dnf.arrays[u].shape[0].str());
      }
    if (std::optional<SymExpr> gathered = gatheredElements(dnf, id)) {
      term.elements = *gathered;
      term.what = fmt::format("{} (the elements its gathers read; it holds {})", a.name, product(a.shape).str());
    }
    m.inputs.push_back(term);
  }
  for (size_t id : dnf.order) {
    const DnfArray &a = dnf.arrays[id];
    // a triangular temp (⟨n, i + 1⟩) writes and reads its n(n + 1)/2 elements, not its bounding box
    TrafficTerm term{a.name, indexSpaceSize(a.shape, a.index), a.elem == ElemType::Int ? 8 : elementBytes(a.elem)};
    if (a.storage == Storage::Update) {
      WrittenRows rows = writtenRows(a);
      SymVec tail(a.shape.begin() + (a.shape.empty() ? 0 : 1), a.shape.end());
      const std::string &in = dnf.arrays[*a.updates].name;
      term.elements = rows.body ? (rows.end - rows.start) * product(tail) : SymExpr(0);
      term.what = fmt::format("update {} in place, rows [{}, {})", in, rows.start.str(), rows.end.str());
      m.updates.push_back(term);
      continue;
    }
    (a.storage == Storage::Output ? m.outputs : m.temps).push_back(term);
  }
  for (const auto &b : typed.bindings)
    collectStandard(*b->value, {}, b->isOutput || b->updates, m.standard);
  return m;
}

// An element count before "× 4 B": parenthesised when it is a sum, so the product reads unambiguously.
static std::string count(const SymExpr &e) {
  return e.terms().size() > 1 ? "(" + e.str() + ")" : e.str();
}

std::string printTraffic(const TrafficModel &m, const std::map<Symbol, int64_t> *dims) {
  auto number = [&](const SymExpr &bytes) -> std::string {
    if (!dims)
      return "";
    int64_t v = bytes.evaluate([&](Symbol s) { return dims->at(s); });
    return fmt::format("  = {} B ({:.2f} MB)", v, double(v) / 1e6);
  };
  // Written as (Σ elements) × size when every array has the same element size, as the paper does.
  auto formula = [](const std::vector<const std::vector<TrafficTerm> *> &groups) {
    SymExpr elements;
    int64_t size = -1;
    bool uniform = true;
    for (const auto *g : groups)
      for (const auto &t : *g) {
        elements = elements + t.elements;
        uniform &= size < 0 || size == t.elementBytes;
        size = t.elementBytes;
      }
    if (uniform && size > 0)
      return fmt::format("({}) × {} B", elements.str(), size);
    SymExpr bytes;
    for (const auto *g : groups)
      for (const auto &t : *g)
        bytes = bytes + t.bytes();
    return bytes.str() + " B";
  };
  std::string out;
  out += fmt::format("minimum traffic (inputs read once, outputs written once): {}{}\n",
                     formula({&m.inputs, &m.outputs, &m.updates}), number(m.minimumBytes()));
  for (const auto &t : m.inputs)
    out += fmt::format("  read  {} : {} × {} B\n", t.what, count(t.elements), t.elementBytes);
  for (const auto &t : m.outputs)
    out += fmt::format("  write {} : {} × {} B\n", t.what, count(t.elements), t.elementBytes);
  for (const auto &t : m.updates)
    out += fmt::format("  write {} : {} × {} B{}\n", t.what, count(t.elements), t.elementBytes, number(t.bytes()));
  if (m.temps.empty()) {
    out += "materialised intermediates: none\n";
  } else {
    out += fmt::format("materialised intermediates (written once, read back): {}{}\n", formula({&m.temps}),
                       number(m.tempBytes()));
    for (const auto &t : m.temps)
      out += fmt::format("  {} : {} × {} B\n", t.what, count(t.elements), t.elementBytes);
  }
  out += fmt::format("standard traffic (every intermediate of the program as written stored and read "
                     "back): {} B{}\n",
                     m.standardBytes().str(), number(m.standardBytes()));
  for (const auto &t : m.standard)
    out += fmt::format("  {} : {} × {} B, written and read\n", t.what, count(t.elements), t.elementBytes);
  return out;
}

} // namespace moac
