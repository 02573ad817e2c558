#include "Dnf.h"

#include "Fuse.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace moac {

// ---- construction, with the folding that keeps index arithmetic symbolic --------------------------

static std::shared_ptr<DExpr> make(DKind kind, SourceLoc loc) {
  auto e = std::make_shared<DExpr>();
  e->kind = kind;
  e->loc = loc;
  return e;
}

DExprPtr dFloat(double v, SourceLoc loc, std::optional<ElemType> type) {
  auto e = make(DKind::Float, loc);
  e->floatValue = v;
  e->literalType = type;
  return e;
}

DExprPtr dInt(SymExpr v, SourceLoc loc) {
  auto e = make(DKind::Int, loc);
  e->intValue = std::move(v);
  e->isInt = true;
  return e;
}

DExprPtr dRead(size_t array, SymVec index, bool isInt, SourceLoc loc) {
  auto e = make(DKind::Read, loc);
  e->array = array;
  e->isInt = isInt;
  e->index = std::move(index);
  return e;
}

DExprPtr dUnary(UnOp op, DExprPtr a, SourceLoc loc) {
  if (op == UnOp::Neg && a->kind == DKind::Int)
    return dInt(-a->intValue, loc);
  if (op == UnOp::Not && a->kind == DKind::Int)
    if (auto c = a->intValue.constant())
      return dInt(SymExpr(int64_t(*c == 0)), loc);
  auto e = make(DKind::Unary, loc);
  e->unop = op;
  e->isInt = op == UnOp::Not || (a->isInt && (op == UnOp::Neg || op == UnOp::Abs));
  e->args = {std::move(a)};
  return e;
}

// A comparison whose operands decide it without their values, or nullopt. C compilers reject these under
// -Wall -Werror (gcc's -Wtautological-compare and -Wbool-compare, clang's -Wtautological-*-compare), and
// the C a program like `(x > y) <= B` or `t == t` would give is then not valid output.
//  - equal operands: x < x and x > x are 0 whatever x is (NaN too); for integers x <= x, x >= x and x == x
//    are 1 and x != x is 0 (for floats these four depend on whether x is NaN);
//  - a truth value (a comparison, and, or, not: 0 or 1) against a constant that gives one result for both:
//    (x > y) <= 4 is 1, (x > y) == 2 is 0.
static std::optional<int64_t> decidedComparison(BinOp op, const DExprPtr &a, const DExprPtr &b) {
  if (sameExpr(a, b)) {
    if (op == BinOp::Lt || op == BinOp::Gt)
      return 0;
    if (a->isInt)
      return int64_t(apply(op, 0.0, 0.0));
  }
  auto truth = [](const DExpr &e) {
    return (e.kind == DKind::Binary && givesTruth(e.op)) || (e.kind == DKind::Unary && e.unop == UnOp::Not);
  };
  auto constant = [](const DExpr &e) -> std::optional<double> {
    if (e.kind == DKind::Float)
      return e.floatValue;
    if (e.kind == DKind::Int)
      if (auto c = e.intValue.constant())
        return double(*c);
    return std::nullopt;
  };
  auto decided = [&](auto at) -> std::optional<int64_t> {
    double zero = at(0.0), one = at(1.0);
    return zero == one ? std::optional<int64_t>(int64_t(zero)) : std::nullopt;
  };
  if (truth(*a))
    if (auto c = constant(*b))
      return decided([&](double v) { return apply(op, v, *c); });
  if (truth(*b))
    if (auto c = constant(*a))
      return decided([&](double v) { return apply(op, *c, v); });
  return std::nullopt;
}

DExprPtr dBinary(BinOp op, DExprPtr a, DExprPtr b, SourceLoc loc) {
  if (a->kind == DKind::Int && b->kind == DKind::Int) {
    const SymExpr &x = a->intValue, &y = b->intValue;
    switch (op) {
    case BinOp::Add: return dInt(x + y, loc);
    case BinOp::Sub: return dInt(x - y, loc);
    case BinOp::Mul: return dInt(x * y, loc);
    case BinOp::IntDiv: return dInt(SymExpr::floorDiv(x, y), loc);
    case BinOp::Mod: return dInt(SymExpr::mod(x, y), loc);
    default: break;
    }
  }
  // A comparison of integers whose difference is a constant (i == i, i + 1 > i, 2 < 3) is decided here:
  // C compilers reject `i != i` under -Wall -Werror as a self-comparison.
  if (isComparison(op) && a->kind == DKind::Int && b->kind == DKind::Int)
    if (auto d = (a->intValue - b->intValue).constant())
      return dInt(SymExpr(int64_t(apply(op, double(*d), 0.0))), loc);
  if (isComparison(op))
    if (auto v = decidedComparison(op, a, b))
      return dInt(SymExpr(*v), loc);
  if (givesTruth(op) && a->kind == DKind::Int && b->kind == DKind::Int) {
    auto x = a->intValue.constant(), y = b->intValue.constant();
    if (x && y)
      return dInt(SymExpr(int64_t(apply(op, double(*x), double(*y)))), loc);
  }
  auto e = make(DKind::Binary, loc);
  e->op = op;
  e->isInt = givesTruth(op) || (a->isInt && b->isInt && op != BinOp::Div && op != BinOp::Pow);
  e->args = {std::move(a), std::move(b)};
  return e;
}

DExprPtr dReduce(BinOp op, Symbol var, SymExpr extent, DExprPtr body, SourceLoc loc, std::string label) {
  auto e = make(DKind::Reduce, loc);
  e->label = std::move(label);
  e->op = op;
  e->var = var;
  e->extent = std::move(extent);
  e->isInt = body->isInt && op != BinOp::Div; // ÷/ of integers divides in floats, as `/` does
  e->args = {std::move(body)};
  return e;
}

// A branch decided at compile time is kept beside the chosen one when the chosen branch is literals
// alone (no read: `0.1`, `exp(2.0)`) or an int, and the other is float data: the language gives the
// selection the type of its operands, so `where(1 <= 2, 0.1, t) + X` with t : f32 and X : f64 adds 0.1
// rounded to f32, and `exp(where(1 <= 2, x != y, t)) + X` takes exp in f32; with the other branch gone
// the literal or the int would take X's type (floatTypeOf, seed 394198). The C compiler drops the branch
// that is never taken.
static bool readsArray(const DExprPtr &e) {
  bool reads = false;
  forEachNode(e, [&](const DExpr &n) { reads = reads || n.kind == DKind::Read || n.kind == DKind::Fused; });
  return reads;
}
static bool typeWitness(const DExprPtr &chosen, const DExprPtr &dropped) {
  return !dropped->isInt && readsArray(dropped) && (chosen->isInt || !readsArray(chosen));
}

DExprPtr dSelect(SymExpr lhs, SymExpr rhs, DExprPtr then, DExprPtr otherwise, SourceLoc loc) {
  if (auto c = (rhs - lhs).constant()) {
    if (!(*c > 0 ? typeWitness(then, otherwise) : typeWitness(otherwise, then)))
      return *c > 0 ? then : otherwise;
    lhs = SymExpr(int64_t(0)); // `0 < 1`: no self-comparison for -Wtautological-compare
    rhs = SymExpr(int64_t(*c > 0));
  }
  auto e = make(DKind::Select, loc);
  e->lhs = std::move(lhs);
  e->rhs = std::move(rhs);
  e->isInt = then->isInt && otherwise->isInt;
  e->args = {std::move(then), std::move(otherwise)};
  return e;
}

DExprPtr dWhere(DExprPtr cond, DExprPtr then, DExprPtr otherwise, SourceLoc loc) {
  if (cond->kind == DKind::Int)
    if (auto c = cond->intValue.constant())
      if (!(*c != 0 ? typeWitness(then, otherwise) : typeWitness(otherwise, then)))
        return *c != 0 ? then : otherwise;
  auto e = make(DKind::Where, loc);
  e->isInt = then->isInt && otherwise->isInt;
  e->args = {std::move(cond), std::move(then), std::move(otherwise)};
  return e;
}

DExprPtr dFused(size_t group, size_t member, SymVec index, SourceLoc loc) {
  auto e = make(DKind::Fused, loc);
  e->group = group;
  e->member = member;
  e->index = std::move(index);
  return e;
}

// ---- traversal ----------------------------------------------------------------------------------

bool sameExpr(const DExprPtr &a, const DExprPtr &b, std::map<Symbol, SymExpr> &ren) {
  if (a->kind != b->kind || a->args.size() != b->args.size())
    return false;
  auto sameIndex = [&](const SymVec &x, const SymVec &y) {
    if (x.size() != y.size())
      return false;
    for (size_t k = 0; k < x.size(); ++k)
      if (!(x[k].substitute(ren) == y[k]))
        return false;
    return true;
  };
  switch (a->kind) {
  case DKind::Float:
    if (a->floatValue != b->floatValue || a->literalType != b->literalType)
      return false;
    break;
  case DKind::Int:
    if (!(a->intValue.substitute(ren) == b->intValue))
      return false;
    break;
  case DKind::Read:
    if (a->array != b->array || !sameIndex(a->index, b->index))
      return false;
    break;
  case DKind::Fused:
    if (a->group != b->group || a->member != b->member || !sameIndex(a->index, b->index))
      return false;
    break;
  case DKind::Unary:
    if (a->unop != b->unop)
      return false;
    break;
  case DKind::Binary:
    if (a->op != b->op)
      return false;
    break;
  case DKind::Reduce:
    if (a->op != b->op || !(a->extent.substitute(ren) == b->extent))
      return false;
    ren[a->var] = SymExpr::symbol(b->var);
    break;
  case DKind::Select:
    if (!(a->lhs.substitute(ren) == b->lhs) || !(a->rhs.substitute(ren) == b->rhs))
      return false;
    break;
  case DKind::Where: break;
  }
  for (size_t k = 0; k < a->args.size(); ++k)
    if (!sameExpr(a->args[k], b->args[k], ren))
      return false;
  return true;
}

bool sameExpr(const DExprPtr &a, const DExprPtr &b) {
  std::map<Symbol, SymExpr> ren;
  return sameExpr(a, b, ren);
}

DExprPtr substitute(const DExprPtr &e, const std::map<Symbol, SymExpr> &bindings) {
  switch (e->kind) {
  case DKind::Float: return e;
  case DKind::Int: return dInt(e->intValue.substitute(bindings), e->loc);
  case DKind::Fused:
  case DKind::Read: {
    SymVec idx;
    for (const auto &i : e->index)
      idx.push_back(i.substitute(bindings));
    return e->kind == DKind::Read ? dRead(e->array, std::move(idx), e->isInt, e->loc)
                                  : dFused(e->group, e->member, std::move(idx), e->loc);
  }
  case DKind::Unary: return dUnary(e->unop, substitute(e->args[0], bindings), e->loc);
  case DKind::Binary:
    return dBinary(e->op, substitute(e->args[0], bindings), substitute(e->args[1], bindings), e->loc);
  case DKind::Reduce: {
    return dReduce(e->op, e->var, e->extent.substitute(bindings), substitute(e->args[0], bindings), e->loc,
                   e->label);
  }
  case DKind::Select:
    return dSelect(e->lhs.substitute(bindings), e->rhs.substitute(bindings), substitute(e->args[0], bindings),
                   substitute(e->args[1], bindings), e->loc);
  case DKind::Where:
    return dWhere(substitute(e->args[0], bindings), substitute(e->args[1], bindings),
                  substitute(e->args[2], bindings), e->loc);
  }
  return e;
}

void forEachNode(const DExprPtr &e, const std::function<void(const DExpr &)> &f) {
  // Arguments are pushed last first, so that the first is met first.
  std::vector<const DExpr *> stack{e.get()};
  while (!stack.empty()) {
    const DExpr *x = stack.back();
    stack.pop_back();
    f(*x);
    for (auto it = x->args.rbegin(); it != x->args.rend(); ++it)
      stack.push_back(it->get());
  }
}

std::set<size_t> arraysRead(const DExprPtr &e) {
  std::set<size_t> out;
  if (e)
    forEachNode(e, [&](const DExpr &x) {
      if (x.kind == DKind::Read)
        out.insert(x.array);
    });
  return out;
}

DExprPtr mapArgs(const DExprPtr &e, const std::function<DExprPtr(size_t, const DExprPtr &)> &f) {
  if (e->args.empty())
    return e;
  std::vector<DExprPtr> args;
  bool changed = false;
  for (size_t k = 0; k < e->args.size(); ++k) {
    args.push_back(f(k, e->args[k]));
    changed |= args.back() != e->args[k];
  }
  if (!changed)
    return e;
  auto copy = std::make_shared<DExpr>(*e);
  copy->args = std::move(args);
  return copy;
}

// A fused group's member is a reduction too: reading it combines the group's partial results.
bool containsReduce(const DExprPtr &e) {
  if (e->kind == DKind::Reduce || e->kind == DKind::Fused)
    return true;
  return std::any_of(e->args.begin(), e->args.end(), containsReduce);
}

static void collectFree(const DExprPtr &e, std::set<Symbol> &out, std::set<Symbol> &bound) {
  auto add = [&](const SymExpr &x) {
    for (Symbol s : x.symbols())
      if (!bound.count(s))
        out.insert(s);
  };
  switch (e->kind) {
  case DKind::Int: add(e->intValue); break;
  case DKind::Read:
  case DKind::Fused:
    for (const auto &i : e->index)
      add(i);
    break;
  case DKind::Reduce: add(e->extent); break;
  case DKind::Select:
    add(e->lhs);
    add(e->rhs);
    break;
  default: break;
  }
  if (e->kind == DKind::Reduce) {
    bool fresh = bound.insert(e->var).second;
    collectFree(e->args[0], out, bound);
    if (fresh)
      bound.erase(e->var);
    return;
  }
  for (const auto &a : e->args)
    collectFree(a, out, bound);
}

std::vector<Symbol> freeSymbols(const DExprPtr &e) {
  std::set<Symbol> out, bound;
  collectFree(e, out, bound);
  return {out.begin(), out.end()};
}

std::vector<size_t> groupsRead(const DExprPtr &e) {
  std::set<size_t> groups;
  forEachNode(e, [&](const DExpr &x) {
    if (x.kind == DKind::Fused)
      groups.insert(x.group);
  });
  return {groups.begin(), groups.end()};
}

// ---- printing -----------------------------------------------------------------------------------

namespace {
int precedence(const DExprPtr &e) {
  if (e->kind != DKind::Binary)
    return e->kind == DKind::Reduce || e->kind == DKind::Select ? 0 : 3;
  return givesTruth(e->op) ? 0 : e->op == BinOp::Add || e->op == BinOp::Sub ? 1 : 2;
}
} // namespace

std::string DnfPrinter::sym(const SymExpr &e) const {
  if (names.empty())
    return e.str();
  return e.str([&](Symbol s) {
    auto it = names.find(s);
    return it != names.end() ? it->second : s.name();
  });
}

std::string DnfPrinter::index(const SymVec &idx) const {
  SymVec shown;
  bool plain = true;
  std::vector<std::string> parts;
  for (const auto &i : idx) {
    parts.push_back(sym(i));
    plain &= i.asSymbol().has_value() || (i.constant() && *i.constant() >= 0);
  }
  std::string body;
  for (size_t k = 0; k < parts.size(); ++k)
    body += (k ? (plain ? " " : ", ") : "") + parts[k];
  return ascii ? "<" + body + ">" : "⟨" + body + "⟩";
}

std::string DnfPrinter::expr(const DExprPtr &e) const {
  auto child = [&](const DExprPtr &c, int parentPrec, bool right) {
    std::string s = expr(c);
    int p = precedence(c);
    // Same-level chains of different operators (a ÷ b × c) get parentheses too: easier to read.
    bool mixed = c->kind == DKind::Binary && p == parentPrec && c->op != e->op;
    bool paren = p < parentPrec || (right && p == parentPrec && c->kind == DKind::Binary) || mixed ||
                 (c->kind == DKind::Reduce || c->kind == DKind::Select) ||
                 (c->kind == DKind::Binary && givesTruth(c->op) && e->kind == DKind::Binary);
    return paren ? "(" + s + ")" : s;
  };
  switch (e->kind) {
  case DKind::Float: return fmt::format("{}", e->floatValue);
  case DKind::Int: {
    std::string s = sym(e->intValue);
    return e->intValue.isConstant() || e->intValue.asSymbol() ? s : "(" + s + ")";
  }
  case DKind::Read: {
    const std::string &name = program.arrays[e->array].name;
    return e->index.empty() ? name : index(e->index) + (ascii ? " psi " : "ψ ") + name;
  }
  case DKind::Unary: {
    const DExprPtr &a = e->args[0];
    std::string inner = expr(a);
    bool atom = precedence(a) == 3 && a->kind != DKind::Read;
    if (e->unop == UnOp::Sqrt && !ascii)
      return "√" + (atom ? inner : "(" + inner + ")");
    if (e->unop == UnOp::Neg)
      return (ascii ? "-" : "−") + (atom ? inner : "(" + inner + ")");
    return fmt::format("{}({})", spell(e->unop), inner);
  }
  case DKind::Binary: {
    int p = precedence(e);
    std::string op = ascii ? std::string(spell(e->op)) : std::string(spellUnicode(e->op));
    if (!ascii && e->op == BinOp::Sub)
      op = "−";
    return child(e->args[0], p, false) + " " + op + " " + child(e->args[1], p, true);
  }
  case DKind::Reduce: {
    const char *name = nullptr;
    switch (e->op) {
    case BinOp::Add: name = ascii ? "sum" : "Σ"; break;
    case BinOp::Mul: name = ascii ? "prod" : "Π"; break;
    case BinOp::Max: name = "max"; break;
    case BinOp::Min: name = "min"; break;
    // the right folds (Ops.h): t₀ − (t₁ − (… − t_{n−1})) and t₀ ÷ (t₁ ÷ (…))
    case BinOp::Sub: name = ascii ? "rsub" : "−/"; break;
    case BinOp::Div: name = ascii ? "rdiv" : "÷/"; break;
    default: name = "?"; break;
    }
    auto it = names.find(e->var);
    std::string var = it != names.end() ? it->second : e->var.name();
    return fmt::format("{}_{{{}}} {}", name, range(var, e->extent), expr(e->args[0]));
  }
  case DKind::Select:
    return fmt::format("{} < {} ? {} : {}", sym(e->lhs), sym(e->rhs), expr(e->args[0]), expr(e->args[1]));
  case DKind::Where:
    return fmt::format("where({}, {}, {})", expr(e->args[0]), expr(e->args[1]), expr(e->args[2]));
  case DKind::Fused: {
    const FusedGroup &g = program.groups[e->group];
    std::string name = g.name + "." + g.members[e->member].name;
    return e->index.empty() ? name : index(e->index) + (ascii ? " psi " : "ψ ") + name;
  }
  }
  return "?";
}

std::string rangeText(const std::string &var, const SymExpr &extent, const std::vector<TDim> &dims, bool ascii,
                      const std::function<std::string(const SymExpr &)> &print) {
  SymExpr last = extent - SymExpr(1);
  if (auto s = last.asSymbol())
    if (std::none_of(dims.begin(), dims.end(), [&](const TDim &d) { return d.sym == *s; }))
      return var + (ascii ? "<=" : "≤") + print(last);
  return var + "<" + print(extent);
}

std::string DnfPrinter::range(const std::string &var, const SymExpr &extent) const {
  return rangeText(var, extent, program.dims, ascii, [&](const SymExpr &e) { return sym(e); });
}

std::string DnfPrinter::definition(size_t array) const {
  const DnfArray &a = program.arrays[array];
  SymVec idx;
  for (Symbol s : a.index)
    idx.push_back(SymExpr::symbol(s));
  std::string lhs = idx.empty() ? a.name : index(idx) + (ascii ? " psi " : "ψ ") + a.name;
  return lhs + " = " + expr(a.body);
}

// Readable per-definition names: the array's own indices i, j, k, …, then each reduction binder the
// next free letter, skipping names that dims and arrays already use.
std::map<Symbol, std::string> displayNames(const DnfProgram &p, const std::vector<Symbol> &own,
                                           const std::vector<DExprPtr> &bodies) {
  std::set<std::string> taken;
  for (const TDim &d : p.dims)
    taken.insert(d.name);
  for (const DnfArray &x : p.arrays)
    taken.insert(x.name);
  static constexpr const char *letters[] = {"i", "j", "k", "l", "p", "q", "r", "t", "u", "w", "x", "y", "z"};
  size_t next = 0;
  unsigned round = 0;
  auto fresh = [&]() {
    while (true) {
      std::string n = letters[next % std::size(letters)];
      if (round)
        n += std::to_string(round);
      if (++next % std::size(letters) == 0)
        ++round;
      if (taken.insert(n).second)
        return n;
    }
  };
  std::map<Symbol, std::string> names;
  for (Symbol s : own)
    names[s] = fresh();
  for (const DExprPtr &body : bodies)
    if (body)
      forEachNode(body, [&](const DExpr &e) {
        if (e.kind == DKind::Reduce && !names.count(e.var))
          names[e.var] = fresh();
      });
  return names;
}

std::string uniqueName(std::set<std::string> &taken, const std::string &base) {
  std::string name = base;
  for (int n = 2; taken.count(name); ++n)
    name = fmt::format("{}_{}", base, n);
  taken.insert(name);
  return name;
}

std::string psiText(const SymVec &idx, const std::string &operand) {
  if (idx.empty())
    return operand;
  bool atomic = operand.find(' ') == std::string::npos;
  return strShape(idx) + "ψ " + (atomic ? operand : "(" + operand + ")");
}

WrittenRows writtenRows(const DnfArray &a) {
  WrittenRows w{a.body, SymExpr(0), a.shape.empty() ? SymExpr(1) : a.shape[0]};
  SymVec own;
  for (Symbol s : a.index)
    own.push_back(SymExpr::symbol(s));
  auto identity = [&](const DExprPtr &e) {
    return a.updates && e->kind == DKind::Read && e->array == *a.updates && e->index == own;
  };
  if (identity(a.body)) {
    w.body = nullptr;
  } else if (!own.empty() && a.body->kind == DKind::Select && a.body->lhs == own[0]) {
    if (identity(a.body->args[0])) {
      w.body = a.body->args[1];
      w.start = a.body->rhs;
    } else if (identity(a.body->args[1])) {
      w.body = a.body->args[0];
      w.end = a.body->rhs;
    }
  }
  return w;
}

std::string dumpDnf(const DnfProgram &p, bool ascii) {
  std::string out;
  std::vector<size_t> shown;
  for (size_t k = 0; k < p.arrays.size(); ++k)
    if (p.arrays[k].storage == Storage::Input)
      shown.push_back(k);
  shown.insert(shown.end(), p.order.begin(), p.order.end());
  std::vector<bool> groupShown(p.groups.size(), false);
  for (size_t k : shown) {
    const DnfArray &a = p.arrays[k];
    // a fused group just before its first reader
    if (a.body)
      for (size_t g : groupsRead(a.body))
        if (!groupShown[g]) {
          groupShown[g] = true;
          out += dumpGroup(p, g, ascii);
        }
    const char *kind = a.storage == Storage::Input    ? (a.inout ? "inout" : "in")
                       : a.storage == Storage::Temp   ? "temp"
                       : a.storage == Storage::Update ? "update"
                                                      : "out";
    std::string shape = std::string(spell(a.elem)) + (ascii ? strShapeAscii(a.shape) : strShape(a.shape));
    if (a.body && std::any_of(a.shape.begin(), a.shape.end(), [&](const SymExpr &x) {
          return std::any_of(a.index.begin(), a.index.end(), [&](Symbol s) { return x.dependsOn(s); });
        })) { // a triangular index space, ⟨n, i + 1⟩: its extents in the names of its definition
      DnfPrinter printer{p, ascii, displayNames(p, a.index, {a.body})};
      std::vector<std::string> extents;
      for (const SymExpr &x : a.shape)
        extents.push_back(printer.sym(x));
      shape = fmt::format("{}{}{}{}", spell(a.elem), ascii ? "<" : "⟨", fmt::join(extents, ", "), ascii ? ">" : "⟩");
    }
    out += fmt::format("{} {} : {}", kind, a.name, shape);
    if (!a.why.empty())
      out += fmt::format("   # {}", a.why);
    out += "\n";
    if (a.body) {
      DnfPrinter printer{p, ascii, displayNames(p, a.index, {a.body})};
      out += "  " + printer.definition(k) + "\n";
    }
  }
  for (const Guard &g : p.guards)
    out += fmt::format("guard {} ({}, line {})\n", g.str(), g.reason, g.loc.line);
  return out;
}

DExprPtr freshBinders(SymbolTable &symbols, const DExprPtr &e, std::map<Symbol, SymExpr> *ranges) {
  if (!containsReduce(e))
    return e;
  if (e->kind != DKind::Reduce)
    return mapArgs(e, [&](size_t, const DExprPtr &a) { return freshBinders(symbols, a, ranges); });
  auto copy = std::make_shared<DExpr>(*e);
  copy->var = symbols.fresh(e->var.hint());
  if (ranges)
    (*ranges)[copy->var] = e->extent;
  copy->args = {substitute(freshBinders(symbols, e->args[0], ranges), {{e->var, SymExpr::symbol(copy->var)}})};
  return copy;
}

void markConstant(DnfArray &temp, const DExpr &value, const DnfProgram &program) {
  temp.constant = temp.storage == Storage::Temp && !value.isInt && !floatTypeOf(value, program);
  if (temp.constant)
    temp.elem = ElemType::F64;
}

std::optional<ElemType> floatTypeOf(const DExpr &e, const DnfProgram &program) {
  if (e.isInt)
    return std::nullopt;
  auto join = [](std::optional<ElemType> a, std::optional<ElemType> b) -> std::optional<ElemType> {
    if (a == ElemType::F64 || b == ElemType::F64)
      return ElemType::F64;
    return a ? a : b;
  };
  switch (e.kind) {
  case DKind::Float: return e.literalType;
  case DKind::Int: return std::nullopt;
  case DKind::Read: {
    if (program.arrays[e.array].constant)
      return std::nullopt;
    ElemType t = program.arrays[e.array].elem;
    return isInteger(t) ? std::nullopt : std::optional<ElemType>(computeType(t));
  }
  case DKind::Fused: return computeType(program.groups[e.group].elem);
  case DKind::Where: return join(floatTypeOf(*e.args[1], program), floatTypeOf(*e.args[2], program));
  default: {
    std::optional<ElemType> t;
    for (const DExprPtr &a : e.args)
      t = join(t, floatTypeOf(*a, program));
    return t;
  }
  }
}

} // namespace moac
