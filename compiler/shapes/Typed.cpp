#include "Typed.h"

#include <fmt/format.h>

#include <algorithm>

namespace moac {

std::string strType(const Type &t, bool ascii) {
  return std::string(spell(t.elem)) + (ascii ? strShapeAscii(t.shape) : strShape(t.shape));
}

const char *tkindName(TKind kind) {
  switch (kind) {
  case TKind::IntConst: return "IntConst";
  case TKind::FloatConst: return "FloatConst";
  case TKind::Input: return "Input";
  case TKind::Ref: return "Ref";
  case TKind::Let: return "Let";
  case TKind::Vector: return "Vector";
  case TKind::Unary: return "Unary";
  case TKind::Binary: return "Binary";
  case TKind::Reduce: return "Reduce";
  case TKind::Inner: return "Inner";
  case TKind::Outer: return "Outer";
  case TKind::Psi: return "Psi";
  case TKind::Rho: return "Rho";
  case TKind::Iota: return "Iota";
  case TKind::Tran: return "Tran";
  case TKind::Take: return "Take";
  case TKind::Drop: return "Drop";
  case TKind::Cat: return "Cat";
  case TKind::Reshape: return "Reshape";
  case TKind::Rav: return "Rav";
  case TKind::Comprehension: return "Comprehension";
  case TKind::Where: return "Where";
  }
  return "?";
}

std::string Guard::str() const {
  const char *op = cmp == Eq ? "==" : cmp == Le ? "<=" : "<";
  return fmt::format("{} {} {}", lhs.str(), op, rhs.str());
}

bool Guard::holds(const std::function<int64_t(Symbol)> &dimValue) const {
  int64_t l = lhs.evaluate(dimValue), r = rhs.evaluate(dimValue);
  return cmp == Eq ? l == r : cmp == Le ? l <= r : l < r;
}

namespace {

// Lists the bindings that inlining created inside an expression, outermost first.
void collectLets(const TExpr &e, int depth, bool ascii, std::string &out) {
  if (e.kind == TKind::Let) {
    const TBinding &b = *e.let;
    out += fmt::format("{:{}}{}.{} : {}\n", "", depth * 2, b.origin, b.name, strType(b.value->type, ascii));
    collectLets(*b.value, depth + 1, ascii, out);
  }
  for (const auto &arg : e.args)
    collectLets(*arg, e.kind == TKind::Let ? depth : depth, ascii, out);
}

} // namespace

std::string dumpShapes(const TypedProgram &p, bool ascii) {
  std::string out;
  for (const TDim &d : p.dims)
    out += d.value        ? fmt::format("dim {} = {}\n", d.name, *d.value)
           : d.least != 1 ? fmt::format("dim {} >= {}\n", d.name, d.least)
                          : fmt::format("dim {}\n", d.name);
  for (const TInput &in : p.inputs)
    out += fmt::format("{} {} : {}\n", in.role == ArrayRole::In ? "in" : "inout", in.name,
                       strType(Type{in.elem, in.shape, std::nullopt}, ascii));
  for (const auto &b : p.bindings) {
    Type stored = b->value->type;
    stored.elem = b->stored();
    out += fmt::format("{}{} : {}\n", b->isOutput ? "out " : b->updates ? "update " : "", b->name,
                       strType(stored, ascii));
    collectLets(*b->value, 1, ascii, out);
  }
  for (const Guard &g : p.guards)
    out += fmt::format("guard {} ({}, line {})\n", g.str(), g.reason, g.loc.line);
  return out;
}

} // namespace moac

namespace moac {

namespace {

// Loosest to tightest: comparisons and logic, cat, + −, × ÷ and products, prefix, structural, atoms.
int tprec(const TExpr &e) {
  switch (e.kind) {
  case TKind::Cat: return 1;
  case TKind::Binary:
    return givesTruth(e.op) ? 0 : e.op == BinOp::Add || e.op == BinOp::Sub ? 2 : 3;
  case TKind::Inner:
  case TKind::Outer: return 3;
  case TKind::Unary:
  case TKind::Reduce:
  case TKind::Rho:
  case TKind::Iota:
  case TKind::Rav: return 4;
  case TKind::Tran: return e.args.size() == 1 ? 4 : 5;
  case TKind::Psi:
  case TKind::Take:
  case TKind::Drop:
  case TKind::Reshape: return 5;
  case TKind::Comprehension:
  case TKind::Let: return 0;
  default: return 6;
  }
}

struct TPrinter {
  bool ascii;
  std::string sub(const TExpr &e, int minPrec) const {
    std::string s = print(e);
    return tprec(e) < minPrec ? "(" + s + ")" : s;
  }
  std::string op(BinOp o) const {
    if (ascii)
      return std::string(spell(o));
    return o == BinOp::Sub ? "−" : std::string(spellUnicode(o));
  }
  std::string print(const TExpr &e) const {
    auto a = [&](size_t i) -> const TExpr & { return *e.args[i]; };
    switch (e.kind) {
    case TKind::IntConst: {
      std::string s = e.intValue.str();
      return e.intValue.isConstant() || e.intValue.asSymbol() ? s : "(" + s + ")";
    }
    case TKind::FloatConst: return fmt::format("{}", e.floatValue);
    case TKind::Input: return e.name;
    case TKind::Ref: return e.ref->name;
    case TKind::Let: return print(a(0));
    case TKind::Vector: {
      std::string body;
      for (size_t i = 0; i < e.args.size(); ++i)
        body += (i ? ", " : "") + print(a(i));
      return ascii ? "<" + body + ">" : "⟨" + body + "⟩";
    }
    case TKind::Unary:
      if (e.unop == UnOp::Sqrt && !ascii)
        return "√" + sub(a(0), 6);
      return fmt::format("{}({})", spell(e.unop), print(a(0)));
    case TKind::Binary: {
      // Same-level neighbours of another kind (q +.× ⍉K ÷ √dk) are parenthesised for the reader.
      int p = tprec(e);
      auto mixed = [&](const TExpr &c) { return tprec(c) == p && (c.kind != e.kind || c.op != e.op); };
      std::string l = mixed(a(0)) ? "(" + print(a(0)) + ")" : sub(a(0), p);
      return l + " " + op(e.op) + " " + sub(a(1), p + 1);
    }
    case TKind::Reduce:
      return fmt::format("{}/{} {}", op(e.op), e.axis ? fmt::format("[{}]", e.axis) : "", sub(a(0), 4));
    case TKind::Inner:
      return sub(a(0), 3) + " " + op(e.op) + "." + op(e.op2) + " " + sub(a(1), 4);
    case TKind::Outer: return sub(a(0), 3) + (ascii ? " o." : " ∘.") + op(e.op2) + " " + sub(a(1), 4);
    case TKind::Psi: return sub(a(0), 6) + (ascii ? " psi " : "ψ ") + sub(a(1), 4);
    case TKind::Rho: return (ascii ? "rho " : "ρ") + sub(a(0), 4);
    case TKind::Iota: return (ascii ? "iota " : "ι") + sub(a(0), 4);
    case TKind::Tran:
      if (e.args.size() == 1)
        return (ascii ? "tran " : "⍉") + sub(a(0), 4);
      return sub(a(0), 6) + (ascii ? " tran " : "⍉") + sub(a(1), 4);
    case TKind::Take: return sub(a(0), 6) + (ascii ? " take " : "↑") + sub(a(1), 4);
    case TKind::Drop: return sub(a(0), 6) + (ascii ? " drop " : "↓") + sub(a(1), 4);
    case TKind::Cat: return sub(a(0), 1) + (ascii ? " cat " : " # ") + sub(a(1), 2);
    case TKind::Reshape: return sub(a(0), 6) + " reshape " + sub(a(1), 4);
    case TKind::Rav: return "rav " + sub(a(0), 4);
    case TKind::Comprehension: {
      std::string binders;
      for (size_t i = 0; i < e.indices.size(); ++i)
        binders += fmt::format("{}{} < {}", i ? ", " : "", e.indices[i].sym.name(), e.indices[i].extent.str());
      return "[" + binders + "] " + print(a(0));
    }
    case TKind::Where: return fmt::format("where({}, {}, {})", print(a(0)), print(a(1)), print(a(2)));
    }
    return "?";
  }
};

} // namespace

std::string printTExpr(const TExpr &e, bool ascii) { return TPrinter{ascii}.print(e); }

} // namespace moac

namespace moac {

static void collectGatherBounds(const TExpr &e, std::map<size_t, SymVec> &out) {
  for (const SymExpr &entry : e.gatherIndex)
    entry.forEachLoad([&](const SymExpr::Atom &load) {
      SymVec &bounds = out[load.array];
      if (std::find(bounds.begin(), bounds.end(), load.rhs) == bounds.end())
        bounds.push_back(load.rhs);
    });
  if (e.let)
    collectGatherBounds(*e.let->value, out);
  for (const auto &a : e.args)
    collectGatherBounds(*a, out);
}

std::map<size_t, SymVec> gatherBounds(const TypedProgram &program) {
  std::map<size_t, SymVec> out;
  for (const auto &b : program.bindings)
    collectGatherBounds(*b->value, out);
  return out;
}

} // namespace moac
