#include "Traffic.h"

#include "Gamma.h"

#include <fmt/format.h>

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
