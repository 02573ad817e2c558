#include "LoopIR.h"

#include "Gamma.h"

#include <fmt/format.h>

namespace moac {

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

struct Printer {
  const Kernel &k;
  std::string out;

  std::string expr(const LExprPtr &e) const {
    switch (e->kind) {
    case LExprKind::Float: return fmt::format("{}", e->floatValue);
    case LExprKind::Int: return "(" + e->intValue.str() + ")";
    case LExprKind::Load: return fmt::format("{}[{}]", k.buffers[e->buffer].name, e->offset.str());
    case LExprKind::Var: return e->var.name();
    case LExprKind::Unary: return fmt::format("{}({})", spell(e->unop), expr(e->args[0]));
    case LExprKind::Binary: return fmt::format("({} {} {})", expr(e->args[0]), spell(e->op), expr(e->args[1]));
    case LExprKind::Select:
      return fmt::format("({} < {} ? {} : {})", e->lhs.str(), e->rhs.str(), expr(e->args[0]), expr(e->args[1]));
    case LExprKind::Rescale: return fmt::format("rescale({}, {})", expr(e->args[0]), expr(e->args[1]));
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
                         s.step.str(), s.loopKind == LoopKind::Parallel ? "parallel" : "serial", where);
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
      out += fmt::format("{}{}[{}] = {}{}\n", pad, k.buffers[s.buffer].name, s.offset.str(), expr(s.value), where);
      break;
    case LStmt::If:
      out += fmt::format("{}if {} < {}{}\n", pad, s.lhs.str(), s.rhs.str(), where);
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

void forEachAccess(const std::vector<LStmt> &body,
                   const std::function<void(size_t buffer, const SymExpr &offset, bool isStore)> &f) {
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
    if (s->value)
      exprs.push_back(s->value.get());
  }
  while (!exprs.empty()) {
    const LExpr *e = exprs.back();
    exprs.pop_back();
    if (e->kind == LExprKind::Load)
      f(e->buffer, e->offset, false);
    for (const auto &a : e->args)
      exprs.push_back(a.get());
  }
}

std::string dumpLoopIR(const Kernel &k) {
  Printer p{k, {}};
  std::string &out = p.out;
  out += fmt::format("kernel {}\n", k.name);
  for (const Buffer &b : k.buffers) {
    std::string layout = "row-major";
    if (b.layout.kind == Layout::Lifted) {
      layout = "lifted: stored ⟨";
      for (size_t i = 0; i < b.shape.size(); ++i)
        layout += (i ? " " : "") + (i == b.layout.axis ? fmt::format("⌈{}/{}⌉", b.shape[i].str(), b.layout.block)
                                                       : b.shape[i].str());
      layout += fmt::format(" {}⟩", b.layout.block);
    }
    out += fmt::format("buffer {} {} : {}{}  {}{}\n", roleName(b.role), b.name, spell(b.elem), strShape(b.shape),
                       layout, b.why.empty() ? "" : "  # " + b.why);
  }
  for (const ChunkCount &c : k.chunkCounts)
    out += fmt::format("chunks {} = clamp(⌈threads / ({})⌉, 1, ⌈({}) / chunk⌉)  # split reduction of {}\n",
                       c.sym.name(), c.items.str(), c.terms.str(), c.of);
  for (const Guard &g : k.guards)
    out += fmt::format("guard {}  # {}\n", g.str(), g.reason);
  for (const Region &st : k.stages) {
    out += fmt::format("stage {}  ({}){}\n", st.name,
                       st.parallelDepth ? fmt::format("{} parallel loop{}", st.parallelDepth,
                                                      st.parallelDepth == 1 ? "" : "s collapsed")
                                        : std::string("one thread"),
                       st.onlyIfChunks ? fmt::format("  only when {} > 1", st.onlyIfChunks->name()) : "");
    p.stmts(st.body, 1);
  }
  if (!k.coalescing.empty()) {
    out += "coalescing (γ-difference between adjacent vector lanes):\n";
    for (const Coalescing &c : k.coalescing)
      out += fmt::format("  {}: {} lane {}: {}{}\n", c.stage, c.access, c.lane, c.difference,
                         c.note.empty() ? "" : "  (" + c.note + ")");
  }
  for (const std::string &d : k.decisions)
    out += "schedule: " + d + "\n";
  return out;
}

} // namespace moac
