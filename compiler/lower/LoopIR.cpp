#include "LoopIR.h"

#include "Gamma.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

namespace moac {

std::string Buffer::label() const {
  switch (origin) {
  case Array: return name;
  case Partials: return name + "_part";
  case Groups: return name + "_group";
  case FusedPartials: return group + "_" + name + "_part";
  case FusedWeights:
  case FusedMaximum:
  case FusedFactors:
  case FusedTile: return group + "_" + name;
  }
  return name;
}

SymExpr Buffer::storageElements() const {
  if (layout.kind == Layout::RowMajor || shape.empty())
    return product(shape);
  const auto a = std::ptrdiff_t(layout.axis);
  SymExpr blocks = SymExpr::floorDiv(shape[layout.axis] + (layout.block - 1), layout.block);
  return product(SymVec(shape.begin(), shape.begin() + a)) * blocks * SymExpr(layout.block) *
         product(SymVec(shape.begin() + a + 1, shape.end()));
}

SymExpr Buffer::offset(const SymVec &index) const {
  if (layout.kind == Layout::RowMajor || shape.empty())
    return gamma(index, shape);
  // T([p…, x, y…]) = [p…, x div B, y…, x mod B] over the stored shape ⟨p…, ⌈x/B⌉, y…, B⟩
  const auto a = std::ptrdiff_t(layout.axis);
  SymExpr b(layout.block), x = index[layout.axis];
  SymVec slabShape(shape.begin(), shape.begin() + a), slab(index.begin(), index.begin() + a);
  SymVec tailShape(shape.begin() + a + 1, shape.end()), tail(index.begin() + a + 1, index.end());
  SymExpr blocks = SymExpr::floorDiv(shape[layout.axis] + (layout.block - 1), b);
  SymExpr row = (gamma(slab, slabShape) * blocks + SymExpr::floorDiv(x, b)) * product(tailShape) + gamma(tail, tailShape);
  return row * b + SymExpr::mod(x, b);
}

static std::vector<size_t> byRole(const Kernel &k, Buffer::Role role) {
  std::vector<size_t> out;
  for (size_t i = 0; i < k.buffers.size(); ++i)
    if (k.buffers[i].role == role)
      out.push_back(i);
  return out;
}
std::vector<size_t> Kernel::inputs() const { return byRole(*this, Buffer::Input); }
std::vector<size_t> Kernel::outputs() const { return byRole(*this, Buffer::Output); }
std::vector<size_t> Kernel::workspace() const { return byRole(*this, Buffer::Workspace); }

namespace {

const char *loopKindName(LoopKind kind) {
  switch (kind) {
  case LoopKind::Parallel: return "parallel";
  case LoopKind::Serial: return "serial";
  case LoopKind::Vector: return "vector";
  }
  return "serial";
}

struct Printer {
  const Kernel &k;
  std::string out;

  std::string expr(const LExprPtr &e) const {
    switch (e->kind) {
    case LExprKind::Float: return fmt::format("{}", e->floatValue);
    case LExprKind::Int: return "(" + e->intValue.str() + ")";
    case LExprKind::Load: return fmt::format("{}[{}]", k.buffers[e->buffer].label(), e->offset.str());
    case LExprKind::Var: return e->var.name();
    case LExprKind::Unary: return fmt::format("{}({})", spell(e->unop), expr(e->args[0]));
    case LExprKind::Binary: return fmt::format("({} {} {})", expr(e->args[0]), spell(e->op), expr(e->args[1]));
    case LExprKind::Select:
      return fmt::format("({} < {} ? {} : {})", e->lhs.str(), e->rhs.str(), expr(e->args[0]), expr(e->args[1]));
    case LExprKind::Rescale: return fmt::format("rescale({}, {})", expr(e->args[0]), expr(e->args[1]));
    case LExprKind::Where:
      return fmt::format("({} ? {} : {})", expr(e->args[0]), expr(e->args[1]), expr(e->args[2]));
    case LExprKind::InF32: return fmt::format("f32({})", expr(e->args[0]));
    }
    return "?";
  }

  void stmts(const std::vector<LStmt> &body, int depth) {
    for (const LStmt &s : body)
      stmt(s, depth);
  }

  void stmt(const LStmt &s, int depth) {
    std::string pad(size_t(depth) * 2, ' ');
    std::string where = s.loc.valid() ? fmt::format("   @{}:{}", s.loc.line, s.loc.col) : "";
    switch (s.kind) {
    case LStmt::Loop:
      out += fmt::format("{}for {} in [{}, {}) step {} {}{}\n", pad, s.var.name(), s.start.str(), s.end.str(),
                         s.step.str(), loopKindName(s.loopKind), where);
      stmts(s.body, depth + 1);
      break;
    case LStmt::Decl:
      out += fmt::format("{}{} {} = {}{}\n", pad, spell(s.type), s.scalar.name(), expr(s.value), where);
      break;
    case LStmt::Accumulate:
      out += fmt::format("{}{} = {}({}, {}){}\n", pad, s.scalar.name(), spell(s.op), s.scalar.name(),
                         expr(s.value), where);
      break;
    case LStmt::Assign:
      out += fmt::format("{}{} = {}{}\n", pad, s.scalar.name(), expr(s.value), where);
      break;
    case LStmt::Store:
      out += fmt::format("{}{}[{}] = {}{}\n", pad, k.buffers[s.buffer].label(), s.offset.str(), expr(s.value), where);
      break;
    case LStmt::Prefetch:
      out += fmt::format("{}prefetch {}[{}]{}\n", pad, k.buffers[s.buffer].label(), s.offset.str(), where);
      break;
    case LStmt::If:
      out += s.value ? fmt::format("{}if {}{}{}\n", pad, expr(s.value), s.onlySaves ? "  (skipping it only saves work)" : "", where)
                     : fmt::format("{}if {} < {}{}\n", pad, s.lhs.str(), s.rhs.str(), where);
      stmts(s.body, depth + 1);
      if (!s.orElse.empty()) {
        out += pad + "else\n";
        stmts(s.orElse, depth + 1);
      }
      break;
    }
  }
};

const char *roleName(Buffer::Role r) {
  return r == Buffer::Input ? "in" : r == Buffer::Output ? "out" : "workspace";
}

} // namespace

bool onlyThroughDivisions(const SymExpr &offset, Symbol var) {
  if (!offset.dependsOn(var))
    return false;
  for (const SymExpr::Term &t : offset.terms())
    for (const auto &a : t.factors)
      if ((a->kind == SymExpr::Atom::Sym && a->sym == var) ||
          ((a->kind == SymExpr::Atom::Mod || a->kind == SymExpr::Atom::Load) &&
           (a->lhs.dependsOn(var) || a->rhs.dependsOn(var))) ||
          (a->kind == SymExpr::Atom::Div && a->rhs.dependsOn(var)))
        return false;
  return true;
}

std::vector<SymExpr> divisionsOf(const Kernel &k, const std::vector<LStmt> &body, Symbol var) {
  std::vector<SymExpr> out;
  forEachAccess(body, [&](size_t b, const SymExpr &offset, bool isStore) {
    if (isStore || k.buffers[b].role != Buffer::Input)
      return;
    for (const SymExpr::Term &t : offset.terms())
      for (const auto &a : t.factors)
        if (a->kind == SymExpr::Atom::Div && a->lhs.dependsOn(var)) {
          SymExpr d = SymExpr::floorDiv(a->lhs, a->rhs);
          if (std::none_of(out.begin(), out.end(), [&](const SymExpr &x) { return x == d; }))
            out.push_back(std::move(d));
        }
  });
  return out;
}

void forEachAccess(const std::vector<LStmt> &body,
                   const std::function<void(size_t buffer, const SymExpr &offset, bool isStore)> &f) {
  // a gather's loads: reads of its index array, wherever an integer expression holds one
  auto loads = [&](const SymExpr &e) { e.forEachLoad([&](const SymExpr::Atom &a) { f(a.array, a.lhs, false); }); };
  std::vector<const LStmt *> stmts;
  std::vector<const LExpr *> exprs;
  for (const LStmt &s : body)
    stmts.push_back(&s);
  while (!stmts.empty()) {
    const LStmt *s = stmts.back();
    stmts.pop_back();
    for (const auto *list : {&s->body, &s->orElse})
      for (const LStmt &x : *list)
        stmts.push_back(&x);
    if (s->kind == LStmt::Store)
      f(s->buffer, s->offset, true);
    for (const SymExpr *x : {&s->start, &s->end, &s->offset, &s->lhs, &s->rhs})
      loads(*x);
    if (s->value)
      exprs.push_back(s->value.get());
  }
  while (!exprs.empty()) {
    const LExpr *e = exprs.back();
    exprs.pop_back();
    if (e->kind == LExprKind::Load)
      f(e->buffer, e->offset, false);
    for (const SymExpr *x : {&e->intValue, &e->offset, &e->lhs, &e->rhs})
      loads(*x);
    for (const auto &a : e->args)
      exprs.push_back(a.get());
  }
}

void forEachOwnInteger(const LStmt &s, const std::function<void(const SymExpr &, bool divisor)> &f) {
  std::function<void(const LExpr &)> visit = [&](const LExpr &e) {
    for (const SymExpr *x : {&e.intValue, &e.offset, &e.lhs, &e.rhs})
      f(*x, false);
    if (e.kind == LExprKind::Binary && (e.op == BinOp::IntDiv || e.op == BinOp::Mod) && e.args.size() == 2) {
      // a divisor that is a dim read as a value, or an integer expression over dims
      const LExpr &d = *e.args[1];
      if (d.kind == LExprKind::Var)
        f(SymExpr::symbol(d.var), true);
      else
        f(d.intValue, true);
    }
    for (const auto &a : e.args)
      visit(*a);
  };
  for (const SymExpr *x : {&s.start, &s.end, &s.step, &s.offset, &s.lhs, &s.rhs})
    f(*x, false);
  if (s.value)
    visit(*s.value);
}

void forEachInteger(const std::vector<LStmt> &body, const std::function<void(const SymExpr &, bool divisor)> &f) {
  for (const LStmt &s : body) {
    forEachOwnInteger(s, f);
    forEachInteger(s.body, f);
    forEachInteger(s.orElse, f);
  }
}

// What a region, a chunk count or a workspace buffer belongs to: the array, or "update K" for the update
// of an inout K (whose result lives in the input's own buffer).
static std::string computes(const Kernel &k, size_t buffer) {
  const Buffer &b = k.buffers[buffer];
  return b.role == Buffer::Input ? "update " + b.name : b.name;
}

std::string regionName(const Kernel &k, const Region &r) {
  static const char *const parts[] = {"", " (partials)", " (combine)", " (combine groups)", " (splits)", " (factors)"};
  const bool group = r.part == Region::Splits || r.part == Region::Factors;
  return (group ? k.buffers[r.buffer].group : computes(k, r.buffer)) + parts[r.part];
}

std::string describeAccess(const Kernel &k, const Coalescing &c) {
  return fmt::format("{} {}[{}]", c.isStore ? "store" : "load", k.buffers[c.buffer].label(), c.offset.str());
}

// A gathered access's offset holds a value read from an index array at a lane-dependent element: adjacent
// lanes read wherever the data says (a row each, for an embedding), so no stride describes them.
std::string describeDifference(const Coalescing &c) {
  if (c.difference)
    return c.difference->str();
  bool gathered = false;
  c.offset.forEachLoad([&](const SymExpr::Atom &load) { gathered |= load.lhs.dependsOn(c.lane); });
  return gathered ? "data-dependent (a gather)" : "not affine";
}

std::string describeLanes(const Coalescing &c) {
  if (c.difference && *c.difference == SymExpr(0))
    return "the same address in every lane (broadcast)";
  if (c.difference && *c.difference == SymExpr(1))
    return "coalesced";
  return "";
}

// Why a buffer exists, or "" for an argument.
static std::string bufferReason(const Kernel &k, const Buffer &b, const DnfProgram &dnf) {
  switch (b.origin) {
  case Buffer::Array: return b.array < dnf.arrays.size() ? dnf.arrays[b.array].why : "";
  case Buffer::Partials: return fmt::format("partial results of {}, one per chunk", computes(k, *b.aliasOf));
  case Buffer::Groups:
    return fmt::format("partials of {} combined in groups, one per group", computes(k, *b.aliasOf));
  case Buffer::FusedPartials: return fmt::format("partial {} of the fused {}, one per split", b.name, b.group);
  case Buffer::FusedWeights:
    return fmt::format("the weights exp(e − m) of the fused {}, one per term, against its split's maximum", b.group);
  case Buffer::FusedMaximum: return fmt::format("the maximum M over the splits of the fused {}", b.group);
  case Buffer::FusedFactors:
    return fmt::format("each split's factor exp(m − M) of the fused {}, which its readers scale its partials by",
                       b.group);
  case Buffer::FusedTile:
    return fmt::format("the current tile of each split of the fused {}: its terms' scores, then their weights", b.group);
  }
  return "";
}

static std::string liftTransform(const Layout &l) {
  if (l.axis == 0)
    return fmt::format("T([x, y]) = [x div {}, y, x mod {}]", l.block, l.block);
  return fmt::format("on axis {}: T([p, x, y]) = [p, x div {}, y, x mod {}] (p: the {} axes before, one slab each)",
                     l.axis, l.block, l.block, l.axis);
}

std::vector<size_t> movingInputs(const Kernel &k, const Region &region, Symbol term) {
  std::vector<size_t> moving;
  forEachAccess(region.body, [&](size_t b, const SymExpr &offset, bool isStore) {
    const Buffer &buffer = k.buffers[b];
    if (!isStore && buffer.role == Buffer::Input && !buffer.inout && offset.dependsOn(term) &&
        std::find(moving.begin(), moving.end(), b) == moving.end())
      moving.push_back(b);
  });
  return moving;
}

bool halfPrecisionRows(const Kernel &k, const Region &region, Symbol term) {
  const std::vector<size_t> moving = movingInputs(k, region, term);
  return !moving.empty() &&
         std::all_of(moving.begin(), moving.end(), [&](size_t b) { return isHalf(k.buffers[b].elem); });
}

int64_t rowBytes(const Kernel &k, const Region &region, Symbol term, std::vector<std::string> *names) {
  int64_t row = 0;
  for (size_t b : movingInputs(k, region, term)) {
    row += 32 * (isHalf(k.buffers[b].elem) ? 8 : 16);
    if (names)
      names->push_back(k.buffers[b].label());
  }
  return row;
}

// The buffers a region loads at offsets that depend on `var` only through floor divisions, in order of
// first load.
static std::vector<std::string> loadedOnlyThroughDivisions(const Kernel &k, const Region &r, Symbol var) {
  std::vector<std::string> shared;
  forEachAccess(r.body, [&](size_t b, const SymExpr &offset, bool isStore) {
    const std::string &name = k.buffers[b].name;
    if (!isStore && onlyThroughDivisions(offset, var) && std::find(shared.begin(), shared.end(), name) == shared.end())
      shared.push_back(name);
  });
  return shared;
}

std::string describeDecision(const Kernel &k, const Decision &d) {
  const std::string &name = k.buffers[d.buffer].name;
  switch (d.kind) {
  case Decision::LiftedRows: {
    const Layout &l = k.buffers[d.buffer].layout;
    return fmt::format("{} is read along its rows by one lane per row: stored lifted {} so {} adjacent lanes read "
                       "adjacent addresses",
                       name, liftTransform(l), l.block);
  }
  case Decision::UpdateUnchanged: return fmt::format("the update of {} leaves every element as it is: no stage", name);
  case Decision::UpdateRows:
    return fmt::format("the update of {} writes only rows [{}, {}) of {}: the other rows keep their values in place "
                       "(no copy)",
                       name, d.start.str(), d.end.str(), name);
  case Decision::TermsAlongRows: {
    const std::string inner = d.inner.name();
    return fmt::format("{}: the terms are read along rows with {} innermost: the term loop runs outside {}'s and "
                       "each term is added into the partials (the same order of additions as with {} on the lanes)",
                       regionName(k, k.stages[d.region]), inner, inner, inner);
  }
  case Decision::FusedSplits: {
    const std::string &group = k.buffers[d.buffer].group;
    std::string members, splits;
    for (const Buffer &b : k.buffers)
      if (b.origin == Buffer::FusedPartials && b.group == group)
        members += (members.empty() ? "" : ", ") + b.name;
    for (const ChunkCount &c : k.chunkCounts)
      if (c.level == ChunkCount::Splits && c.of == d.buffer)
        splits = c.sym.name();
    const bool stored = std::any_of(k.decisions.begin(), k.decisions.end(), [&](const Decision &x) {
      return x.kind == Decision::StoredScores && x.region == d.region;
    });
    return fmt::format("{}: the fused reduction of {} runs as {} splits of contiguous terms, each {}; its readers "
                       "combine the splits' partials",
                       group, members, splits, stored ? "reading its stored scores" : "computing every score once");
  }
  case Decision::StoredScores: {
    std::string weights;
    for (const Buffer &b : k.buffers)
      if (b.origin == Buffer::FusedWeights && b.group == k.buffers[k.stages[d.region].buffer].group)
        weights = " (into " + b.label() + ")";
    return fmt::format("{}: each split reads its scores in {} twice, first for their maximum m, then for the weights "
                       "exp(e − m), each computed once{} and added up against m alone: no running maximum, nothing "
                       "rescaled; the loops over a split's terms and over a row's elements are vector loops{}",
                       regionName(k, k.stages[d.region]), name, weights,
                       d.lanes > 1 ? fmt::format(", and a row element's sum over the terms runs as {} chains "
                                                 "(schedule lanes={})",
                                                 d.lanes, d.lanes)
                                   : "");
  }
  case Decision::PackedFrame: {
    const Region &r = k.stages[d.region];
    const std::vector<std::string> shared = loadedOnlyThroughDivisions(k, r, d.inner);
    const std::string j = d.inner.name();
    return fmt::format("{}: a warp takes {} adjacent values of {} together, each on {} of its lanes: {} depend{} on {} "
                       "only through floor divisions, so values that agree on them (the query heads of a GQA group) "
                       "load the same rows in the same instructions (schedule pack={})",
                       regionName(k, r), d.lanes, j, 32 / d.lanes, fmt::join(shared, " and "),
                       shared.size() == 1 ? "s" : "", j, d.lanes);
  }
  case Decision::RowsShared: {
    const Region &r = k.stages[d.region];
    const std::vector<std::string> shared = loadedOnlyThroughDivisions(k, r, d.inner);
    const std::string j = d.inner.name();
    const std::string reads =
        shared.empty()
            ? fmt::format("no load of a term depends on {}, so every value of {} reads the same rows of a split", j, j)
            : fmt::format("{} depend{} on {} only through floor divisions, so the values of {} that agree on them (a "
                          "GQA group's query heads) read the same rows of a split",
                          fmt::join(shared, " and "), shared.size() == 1 ? "s" : "", j, j);
    return fmt::format("{}: the loop over {} runs inside the split loop: {}, one after the other on one thread, all "
                       "but the first from its cache; the splits count the other frame elements (schedule reuse=on)",
                       regionName(k, r), j, reads);
  }
  case Decision::RowsAhead: {
    const Region &r = k.stages[d.region];
    std::vector<std::string> names;
    const int64_t row = rowBytes(k, r, d.inner, &names);
    const bool half = halfPrecisionRows(k, r, d.inner);
    const std::string why =
        half ? fmt::format("{} bytes a row a warp; half-precision rows keep three, their loads taking half the "
                           "registers of an f32 row's",
                           row)
             : fmt::format("{} bytes a row a warp; at {} warps a SM, about {} bytes a warp in flight keep the memory "
                           "busy",
                           row, 32 / r.packing, 1024 * r.packing);
    return fmt::format("{}: each warp keeps {} row{} of {} loaded ahead of the one it computes with, each in registers "
                       "of its own ({}) (schedule ahead={})",
                       regionName(k, r), d.lanes, d.lanes == 1 ? "" : "s", fmt::join(names, " and "), why, d.lanes);
  }
  case Decision::TensorTiles: {
    const Region &r = k.stages[d.region];
    std::vector<std::string> names;
    rowBytes(k, r, d.inner, &names);
    return fmt::format("{}: the row loop over {} runs sixteen rows a step on the tensor cores: the {} values a warp "
                       "takes are the rows of 16×8×16 products, the scores (Q·Kᵀ) and the weighted sum (P·V) each "
                       "one product per 16 features or 8 columns, with each weight an operand of two (its bf16 or f16 "
                       "rounding and the remainder) and the running maximum taken once a tile; where at run time the "
                       "rows of {} are 16-byte aligned, their lengths multiples of 8 and at most 128, and the warp's "
                       "values read the same rows, else the lanes' path (schedule mma=on)",
                       regionName(k, r), d.inner.name(), d.lanes, fmt::join(names, " and "));
  }
  case Decision::WiderPack: {
    const Region &r = k.stages[d.region];
    const std::string j = d.inner.name();
    std::vector<std::string> divisions;
    for (const SymExpr &e : divisionsOf(k, r.body, d.inner))
      divisions.push_back(e.str());
    return fmt::format("{}: also a kernel whose warps take {} values of {} (each on {} lanes), which the launcher "
                       "runs where every {} adjacent values of {} agree on {}: then each tile a warp loads serves {} "
                       "values and half the warps read each row (an MQA, a GQA group of {} or more), and the split "
                       "count counts that kernel's frames",
                       regionName(k, r), d.lanes, j, 32 / d.lanes, d.lanes, j,
                       fmt::join(divisions, " and "), d.lanes, d.lanes);
  }
  case Decision::SiblingLoops: {
    std::string file = k.fileName.substr(k.fileName.find_last_of('/') + 1);
    std::vector<std::string> at;
    for (const SourceLoc &l : d.locs)
      at.push_back(fmt::format("{}:{}", file, l.line));
    return fmt::format("{}: the {} reductions over {} in [{}, {}) at {} run as one loop: each still adds the same "
                       "terms in the same order, so no bit changes; the range is walked once and a factor their "
                       "terms share is computed once a term",
                       regionName(k, k.stages[d.region]), d.locs.size(), d.inner.name(), d.start.str(), d.end.str(),
                       fmt::join(at, ", "));
  }
  case Decision::RowTiles: {
    std::string tile;
    for (const Buffer &b : k.buffers)
      if (b.origin == Buffer::FusedTile && b.group == k.buffers[k.stages[d.region].buffer].group)
        tile = b.label();
    return fmt::format("{}: each split takes its terms over {} {} at a time: the tile's scores first, each computed once "
                       "into {}, then their maximum merged into the running one, so the sums are rescaled once a "
                       "tile, not once a term; then the weights exp(e − m) into the same place, and the tile's terms "
                       "added to the sums one row after another; a tile that runs past the terms goes term by term "
                       "(schedule tile={})",
                       regionName(k, k.stages[d.region]), d.inner.name(), d.lanes, tile, d.lanes);
  }
  case Decision::PrefetchRows: {
    std::vector<std::string> rows;
    std::function<void(const std::vector<LStmt> &)> walk = [&](const std::vector<LStmt> &body) {
      for (const LStmt &s : body) {
        if (s.kind == LStmt::Prefetch &&
            std::find(rows.begin(), rows.end(), k.buffers[s.buffer].label()) == rows.end())
          rows.push_back(k.buffers[s.buffer].label());
        walk(s.body);
        walk(s.orElse);
      }
    };
    walk(k.stages[d.region].body);
    return fmt::format("{}: each whole tile first asks for the cache lines of the tile's rows of {} that lie {} terms "
                       "over {} ahead (a prefetch hint, where those rows exist), so that memory is already sending "
                       "them when the split gets there; a hint reads and changes nothing (schedule prefetch={})",
                       regionName(k, k.stages[d.region]), fmt::join(rows, " and "), d.lanes, d.inner.name(), d.lanes);
  }
  case Decision::InterleavedSum: {
    std::string file = k.fileName.substr(k.fileName.find_last_of('/') + 1);
    return fmt::format("the {} over {} at {}:{} runs as {} independent chains: term {} goes into accumulator {} mod "
                       "{}, and the {} accumulators are combined pairwise at the end (schedule lanes={})",
                       d.op == BinOp::Mul ? "product" : "sum", d.inner.name(), file, d.loc.line, d.lanes,
                       d.inner.name(), d.inner.name(), d.lanes, d.lanes, d.lanes);
  }
  }
  return "";
}

static std::string layoutText(const Buffer &b) {
  if (b.layout.kind != Layout::Lifted)
    return "row-major";
  std::string out = "lifted: stored ⟨";
  for (size_t i = 0; i < b.shape.size(); ++i)
    out += (i ? " " : "") +
           (i == b.layout.axis ? fmt::format("⌈{}/{}⌉", b.shape[i].str(), b.layout.block) : b.shape[i].str());
  return out + fmt::format(" {}⟩", b.layout.block);
}

static std::string regionText(const Kernel &k, const Region &st) {
  std::string threads = st.parallelDepth ? fmt::format("{} parallel loop{}", st.parallelDepth,
                                                       st.parallelDepth == 1 ? "" : "s collapsed")
                                         : std::string("one thread");
  return fmt::format("stage {}  ({}){}\n", regionName(k, st), threads,
                     st.onlyIfChunks ? fmt::format("  only when {} > 1", st.onlyIfChunks->name()) : "");
}

// A wider kernel's frames, counted where the launcher runs it (ChunkCount::Wider).
static std::string widerText(const ChunkCount &c) {
  if (!c.wider)
    return "";
  return fmt::format("; ({}) for ({}) where every {} adjacent values of {} read the same rows (the kernel of {} "
                     "values a warp)",
                     c.wider->items.str(), c.items.str(), c.wider->packing, c.wider->var.name(), c.wider->packing);
}

std::string dumpLoopIR(const Kernel &k, const DnfProgram &dnf) {
  Printer p{k, {}};
  std::string &out = p.out;
  out += fmt::format("kernel {}\n", k.name);
  for (const Buffer &b : k.buffers) {
    std::string why = bufferReason(k, b, dnf);
    out += fmt::format("buffer {} {} : {}{}  {}{}\n", roleName(b.role), b.label(), spell(b.elem), strShape(b.shape),
                       layoutText(b), why.empty() ? "" : "  # " + why);
  }
  for (const ChunkCount &c : k.chunkCounts) {
    // threads 0: the device's (CUDA's launcher, moart_cuda_splits): the warps of one wave over the pack and
    // the items, at most max(half that, 8·⌈√terms⌉) (moart_wave_splits), then the same clamp
    std::string wave = "warps";
    if (c.pack > 1)
      wave += fmt::format(" / {}", c.pack);
    if (!(c.items == SymExpr(1)))
      wave += fmt::format(" / ({})", c.items.str());
    if (wave != "warps")
      wave = "⌊" + wave + "⌋";
    out += fmt::format("chunks {} = {}  # {}\n", c.sym.name(),
                       c.threads == 0
                           ? fmt::format("clamp(min({}, max({} / 2, 8·⌈√({})⌉)), 1, ⌈({}) / {}⌉), warps = 32 · the "
                                         "device's SMs",
                                         wave, wave, c.terms.str(), c.terms.str(), c.chunk)
                           : fmt::format("clamp(⌈threads / ({})⌉, 1, ⌈({}) / chunk⌉)", c.items.str(), c.terms.str()),
                       c.level == ChunkCount::Splits
                           ? "splits of the fused " + k.buffers[c.of].group + widerText(c)
                           : "split reduction of " + k.buffers[c.of].name +
                                 (c.level == ChunkCount::Groups ? "'s partials" : ""));
  }
  for (const Guard &g : k.guards)
    out += fmt::format("guard {}  # {}\n", g.str(), g.reason);
  for (const IndexCheck &c : k.indexChecks)
    out += fmt::format("check 0 <= {}[·] < {}  # a gather's index array, before any stage\n", k.buffers[c.buffer].name,
                       c.bound.str());
  for (const Region &st : k.stages) {
    out += regionText(k, st);
    p.stmts(st.body, 1);
  }
  if (!k.coalescing.empty()) {
    out += "coalescing (γ-difference between adjacent vector lanes):\n";
    for (const Coalescing &c : k.coalescing) {
      std::string note = describeLanes(c);
      out += fmt::format("  {}: {} lane {}: {}{}\n", regionName(k, k.stages[c.region]), describeAccess(k, c),
                         c.lane.name(), describeDifference(c), note.empty() ? "" : "  (" + note + ")");
    }
  }
  for (const Decision &d : k.decisions)
    out += "schedule: " + describeDecision(k, d) + "\n";
  return out;
}

std::vector<const LStmt *> outerReductions(const LStmt &loop) {
  std::set<Symbol> inside, seen;
  std::vector<const LStmt *> out;
  std::function<void(const std::vector<LStmt> &)> walk = [&](const std::vector<LStmt> &body) {
    for (const LStmt &s : body) {
      if (s.kind == LStmt::Decl)
        inside.insert(s.scalar);
      if (s.kind == LStmt::Accumulate && !inside.count(s.scalar) && seen.insert(s.scalar).second)
        out.push_back(&s);
      walk(s.body);
      walk(s.orElse);
    }
  };
  walk(loop.body);
  return out;
}

bool readsVar(const LExprPtr &e, const std::set<Symbol> &vars) {
  if (!e)
    return false;
  if (e->kind == LExprKind::Var && vars.count(e->var))
    return true;
  return std::any_of(e->args.begin(), e->args.end(), [&](const LExprPtr &a) { return readsVar(a, vars); });
}

bool hasVectorLoop(const std::vector<LStmt> &body) {
  return std::any_of(body.begin(), body.end(), [](const LStmt &s) {
    return (s.kind == LStmt::Loop && s.loopKind == LoopKind::Vector) || hasVectorLoop(s.body) ||
           hasVectorLoop(s.orElse);
  });
}

void invariantAtoms(const SymExpr &e, const std::set<Symbol> &known, std::vector<std::tuple<bool, SymExpr, SymExpr>> &out) {
  for (const auto &t : e.terms())
    for (const auto &a : t.factors) {
      if (a->kind == SymExpr::Atom::Sym)
        continue;
      invariantAtoms(a->lhs, known, out);
      invariantAtoms(a->rhs, known, out);
      if (a->kind == SymExpr::Atom::Load) // a load is read where it is used, never hoisted
        continue;
      bool invariant = true;
      for (const SymExpr *side : {&a->lhs, &a->rhs})
        for (Symbol s : side->symbols())
          invariant &= known.count(s) > 0;
      std::tuple<bool, SymExpr, SymExpr> key{a->kind == SymExpr::Atom::Div, a->lhs, a->rhs};
      if (invariant && std::find(out.begin(), out.end(), key) == out.end())
        out.push_back(key);
    }
}

} // namespace moac
