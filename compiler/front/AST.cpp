#include "AST.h"

#include <fmt/format.h>

namespace moac {

std::string exprKindName(ExprKind kind) {
  switch (kind) {
  case ExprKind::Number: return "Number";
  case ExprKind::Name: return "Name";
  case ExprKind::Vector: return "Vector";
  case ExprKind::Unary: return "Unary";
  case ExprKind::Binary: return "Binary";
  case ExprKind::Reduce: return "Reduce";
  case ExprKind::Inner: return "Inner";
  case ExprKind::Outer: return "Outer";
  case ExprKind::Psi: return "Psi";
  case ExprKind::Rho: return "Rho";
  case ExprKind::Iota: return "Iota";
  case ExprKind::Tran: return "Tran";
  case ExprKind::Take: return "Take";
  case ExprKind::Drop: return "Drop";
  case ExprKind::Cat: return "Cat";
  case ExprKind::Reshape: return "Reshape";
  case ExprKind::Rav: return "Rav";
  case ExprKind::Call: return "Call";
  case ExprKind::Comprehension: return "Comprehension";
  case ExprKind::Where: return "Where";
  }
  return "?";
}

namespace {

struct Dumper {
  std::string out;

  void line(int depth, const std::string &text, SourceLoc loc) {
    out += fmt::format("{:{}}{} @{}:{}\n", "", depth * 2, text, loc.line, loc.col);
  }

  void expr(const Expr &e, int depth) {
    std::string head = exprKindName(e.kind);
    switch (e.kind) {
    case ExprKind::Number:
      head += e.isInt ? fmt::format(" {}", e.intValue) : fmt::format(" {}", e.floatValue);
      break;
    case ExprKind::Name:
    case ExprKind::Call:
      head += " " + e.name;
      break;
    case ExprKind::Unary:
      head += fmt::format(" {}", spell(e.unop));
      break;
    case ExprKind::Binary:
      head += fmt::format(" {}", spell(e.op));
      break;
    case ExprKind::Reduce:
      head += fmt::format(" {}/", spell(e.op));
      if (e.axis != 0)
        head += fmt::format("[{}]", e.axis);
      break;
    case ExprKind::Inner:
      head += fmt::format(" {}.{}", spell(e.op), spell(e.op2));
      break;
    case ExprKind::Outer:
      head += fmt::format(" o.{}", spell(e.op2));
      break;
    case ExprKind::Comprehension:
      for (const Binder &b : e.binders)
        head += fmt::format(" {}", b.name);
      break;
    default:
      break;
    }
    line(depth, head, e.loc);
    for (const Binder &b : e.binders) {
      line(depth + 1, "Binder " + b.name, b.loc);
      expr(*b.extent, depth + 2);
    }
    for (const auto &arg : e.args)
      expr(*arg, depth + 1);
  }

  void item(const Item &it) {
    if (auto *a = std::get_if<AssumeDecl>(&it)) {
      line(0, "Assume", a->loc);
      expr(*a->relation, 1);
    } else if (auto *d = std::get_if<DimDecl>(&it)) {
      line(0, "Dim " + d->name + (d->least ? fmt::format(" >= {}", *d->least) : ""), d->loc);
      if (d->value)
        expr(*d->value, 1);
    } else if (auto *a = std::get_if<ArrayDecl>(&it)) {
      line(0, fmt::format("{} {} : {}", a->role == ArrayRole::In ? "In" : "InOut", a->name, spell(a->elem)),
           a->loc);
      for (const auto &ext : a->extents)
        expr(*ext, 1);
    } else if (auto *b = std::get_if<Binding>(&it)) {
      bind(*b, 0);
    } else if (auto *f = std::get_if<FnDecl>(&it)) {
      std::string params;
      for (size_t i = 0; i < f->params.size(); ++i)
        params += (i ? ", " : "") + f->params[i];
      line(0, fmt::format("Fn {}({})", f->name, params), f->loc);
      for (const Binding &local : f->locals)
        bind(local, 1);
      if (f->result) {
        out += "  Result\n";
        expr(*f->result, 2);
      }
    }
  }

  void bind(const Binding &b, int depth) {
    line(depth, fmt::format("{} {}", b.isOutput ? "Out" : "Let", b.name), b.loc);
    expr(*b.value, depth + 1);
  }
};

} // namespace

std::string dumpAst(const Program &program) {
  Dumper d;
  for (const Item &it : program.items)
    d.item(it);
  return d.out;
}

} // namespace moac
