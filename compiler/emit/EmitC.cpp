// The C printer over the loop IR, shared by every target (sequential C99 adds no pragmas): expressions,
// statements and regions; EmitCFiles.cpp prints the kernel's files around them.
#include "CPrinter.h"

#include "CommentText.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace moac {

namespace {

class SequentialPolicy final : public PragmaPolicy {
public:
  std::string parallelNest(int, const std::string &, bool) const override { return ""; }
  std::string serialRegion(const std::string &) const override { return ""; }
};

} // namespace

// bf16 and f16 are stored as their bit patterns (docs/abi.md), converted by moart/kernel.h's helpers.
const char *cType(ElemType t) {
  switch (t) {
  case ElemType::F32: return "float";
  case ElemType::F64: return "double";
  case ElemType::BF16:
  case ElemType::F16: return "uint16_t";
  case ElemType::I32: return "int32_t";
  case ElemType::Int: break;
  }
  return "int64_t";
}

// The helpers that widen a stored half-precision element to f32 and round an f32 value to one.
static const char *widen(ElemType t) { return t == ElemType::BF16 ? "moart_bf16_to_f32" : "moart_f16_to_f32"; }
static const char *narrow(ElemType t) { return t == ElemType::BF16 ? "moart_f32_to_bf16" : "moart_f32_to_f16"; }

// A reduction's operator as OpenACC's reduction clause spells it.
static const char *reductionOperator(BinOp op) {
  switch (op) {
  case BinOp::Mul: return "*";
  case BinOp::Max: return "max";
  case BinOp::Min: return "min";
  default: return "+";
  }
}

std::string cInteger(const SymExpr &e, const std::function<std::string(Symbol)> &nameOf,
                     const std::function<const std::string *(const SymExpr::Atom &)> &local) {
  if (e.terms().empty())
    return "0";
  std::string out;
  for (size_t i = 0; i < e.terms().size(); ++i) {
    const auto &t = e.terms()[i];
    int64_t c = t.coef;
    // -2^63 has no magnitude in int64 (-INT64_C(9223372036854775808) is not C): it is spelt INT64_MIN
    const bool minimum = c == std::numeric_limits<int64_t>::min();
    if (i > 0)
      out += c < 0 && !minimum ? " - " : " + ";
    else if (c < 0 && !minimum)
      out += "-";
    uint64_t mag = c < 0 ? uint64_t(0) - uint64_t(c) : uint64_t(c);
    std::vector<std::string> factors;
    if (minimum)
      factors.push_back("INT64_MIN");
    else if (mag != 1 || t.factors.empty())
      factors.push_back(mag > 0x7fffffffu ? fmt::format("INT64_C({})", mag) : std::to_string(mag));
    for (const auto &f : t.factors) {
      if (f->kind == SymExpr::Atom::Sym)
        factors.push_back(nameOf(f->sym));
      else if (const std::string *held = local ? local(*f) : nullptr)
        factors.push_back(*held);
      else if (f->kind == SymExpr::Atom::Load)
        throw std::logic_error("emit: a gather's load in an integer printed outside a kernel statement");
      else
        factors.push_back(fmt::format("{}({}, {})", f->kind == SymExpr::Atom::Div ? "moart_floordiv" : "moart_floormod",
                                      cInteger(f->lhs, nameOf, local), cInteger(f->rhs, nameOf, local)));
    }
    std::string term;
    for (size_t j = 0; j < factors.size(); ++j)
      term += (j ? " * " : "") + factors[j];
    out += term;
  }
  return e.terms().size() > 1 ? "(" + out + ")" : out;
}

std::string CPrinter::integer(const SymExpr &e) {
  return cInteger(
      e, [&](Symbol s) { return name(s); },
      [&](const SymExpr::Atom &a) -> const std::string * {
        if (a.kind == SymExpr::Atom::Load) // a gather's index: the element, widened to int64_t
          return &printedLoads.emplace_back(fmt::format("(int64_t){}[{}]", cn.buffer(a.array), integer(a.lhs)));
        auto at = hoisted.find({a.kind == SymExpr::Atom::Div, a.lhs, a.rhs});
        return at == hoisted.end() ? nullptr : &at->second;
      });
}

std::string CPrinter::floatLiteral(double v, ElemType t) const {
  if (t == ElemType::Int) {
    // the identities of int max and min (Ops.h); INT64_MAX is 2^63 - 1, which rounds to 2^63
    if (v <= double(std::numeric_limits<int64_t>::min()))
      return "INT64_MIN";
    if (v >= double(std::numeric_limits<int64_t>::max()))
      return "INT64_MAX";
    return fmt::format("{}", int64_t(v));
  }
  // An f32 literal is the f64 value rounded to float (at or past 2^128 - 2^103 it rounds to infinity),
  // spelt so that gcc does not warn that the constant overflows or is truncated to zero.
  if (t == ElemType::F32 && std::isfinite(v)) {
    if (std::fabs(v) >= std::ldexp(1.0, 128) - std::ldexp(1.0, 103))
      v = v > 0 ? HUGE_VAL : -HUGE_VAL;
    else if (v != 0 && float(v) == 0)
      v = std::copysign(0.0, v);
  }
  if (std::isinf(v))
    return v > 0 ? "INFINITY" : "-INFINITY";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos)
    s += ".0";
  return t == ElemType::F32 ? s + "f" : s;
}

// An expression of type t (an integer operand in a float context is converted explicitly).
std::string CPrinter::asType(const LExprPtr &e, ElemType t) {
  std::string text = expr(e, e->isInt ? ElemType::Int : t);
  if (e->isInt && t != ElemType::Int)
    return fmt::format("({})({})", cType(t), text);
  return text;
}

// The type a comparison of floats compares in, as the interpreter does: the wider of the array elements
// its operands read (a constant takes their type); the statement's float type when they read none.
ElemType CPrinter::comparedIn(const LExprPtr &e) const {
  std::optional<ElemType> found;
  std::vector<const LExpr *> todo{e->args[0].get(), e->args[1].get()};
  while (!todo.empty()) {
    const LExpr *x = todo.back();
    todo.pop_back();
    if (x->isInt) // an integer, or a truth value: it converts, it does not set the type
      continue;
    if (x->kind == LExprKind::Load && !isInteger(k.buffers[x->buffer].elem))
      found = found && *found == ElemType::F64 ? ElemType::F64 : k.buffers[x->buffer].elem;
    for (const LExprPtr &a : x->args)
      todo.push_back(a.get());
  }
  return found.value_or(floatType);
}

std::string CPrinter::expr(const LExprPtr &e, ElemType t) {
  bool f32 = t == ElemType::F32;
  if (t != ElemType::Int) // the float type of the statement being printed
    floatType = t;
  switch (e->kind) {
  case LExprKind::Float: return floatLiteral(e->floatValue, t);
  case LExprKind::Int: return integer(e->intValue);
  case LExprKind::Load: {
    if (auto reg = registers.find({e->buffer, e->offset}); reg != registers.end())
      return reg->second;
    std::string load = fmt::format("{}[{}]", cn.buffer(e->buffer), integer(e->offset));
    ElemType stored = k.buffers[e->buffer].elem;
    if (stored == ElemType::F64 && t == ElemType::F32) // a constant temp (DnfArray::constant) in f32
      return "(float)" + load;
    if (stored == ElemType::I32) // widened to int64_t, the type every int computes in
      return "(int64_t)" + load;
    return isHalf(stored) ? fmt::format("{}({})", widen(stored), load) : load;
  }
  case LExprKind::Var: return name(e->var);
  case LExprKind::Unary: {
    std::string a = asType(e->args[0], t);
    switch (e->unop) {
    case UnOp::Neg: return a[0] == '-' ? "(-(" + a + "))" : "(-" + a + ")"; // never "--"
    case UnOp::Abs: return t == ElemType::Int ? "moart_absi(" + a + ")" : (f32 ? "fabsf(" : "fabs(") + a + ")";
    case UnOp::Exp: return (f32 ? "expf(" : "exp(") + a + ")";
    case UnOp::Log: return (f32 ? "logf(" : "log(") + a + ")";
    case UnOp::Sqrt: return (f32 ? "sqrtf(" : "sqrt(") + a + ")";
    case UnOp::Not: return "(!" + a + ")";
    case UnOp::Tanh: return (f32 ? "tanhf(" : "tanh(") + a + ")";
    case UnOp::Sin: return (f32 ? "sinf(" : "sin(") + a + ")";
    case UnOp::Cos: return (f32 ? "cosf(" : "cos(") + a + ")";
    case UnOp::Exp2: return (f32 ? "exp2f(" : "exp2(") + a + ")";
    case UnOp::Log2: return (f32 ? "log2f(" : "log2(") + a + ")";
    case UnOp::Sigmoid: return fmt::format("moart_sigmoid{}({})", f32 ? "f" : "", a);
    }
    break;
  }
  case LExprKind::Binary: {
    if (givesTruth(e->op)) { // an int 0 or 1 from operands compared in their own type
      const LExprPtr &l = e->args[0], &r = e->args[1];
      ElemType in = l->isInt && r->isInt ? ElemType::Int : comparedIn(e);
      std::string op = e->op == BinOp::And ? "&&" : e->op == BinOp::Or ? "||" : std::string(spell(e->op));
      return fmt::format("({} {} {})", asType(l, in), op, asType(r, in));
    }
    std::string a = asType(e->args[0], t), b = asType(e->args[1], t);
    const char *suffix = t == ElemType::Int ? "i" : f32 ? "f" : "";
    switch (e->op) {
    case BinOp::Add: return "(" + a + " + " + b + ")";
    case BinOp::Sub: return "(" + a + " - " + b + ")";
    case BinOp::Mul: return "(" + a + " * " + b + ")";
    case BinOp::Div: return "(" + a + " / " + b + ")";
    case BinOp::Max: return fmt::format("moart_max{}({}, {})", suffix, a, b);
    case BinOp::Min: return fmt::format("moart_min{}({}, {})", suffix, a, b);
    case BinOp::IntDiv: return fmt::format("moart_floordiv({}, {})", a, b);
    case BinOp::Mod: return fmt::format("moart_floormod({}, {})", a, b);
    case BinOp::Pow: return fmt::format("{}({}, {})", f32 ? "powf" : "pow", a, b);
    default: break;
    }
    break;
  }
  case LExprKind::Select:
    return fmt::format("({} < {} ? {} : {})", integer(e->lhs), integer(e->rhs), asType(e->args[0], t),
                       asType(e->args[1], t));
  case LExprKind::Rescale:
    return fmt::format("moart_rescale{}({}, {})", f32 ? "f" : "", asType(e->args[0], t), asType(e->args[1], t));
  case LExprKind::Where:
    return fmt::format("({} ? {} : {})", asType(e->args[0], ElemType::Int), asType(e->args[1], t),
                       asType(e->args[2], t));
  case LExprKind::InF32: {
    std::string inner = expr(e->args[0], ElemType::F32);
    floatType = t; // the statement's type again for what follows
    return fmt::format("(double)({})", inner);
  }
  }
  return "0";
}

// Declares a local for each floor division and modulus of the statements whose operands are `known`
// (the dims and chunk counts, then also the parallel indices), before them.
std::vector<std::tuple<bool, SymExpr, SymExpr>> CPrinter::hoist(const std::vector<LStmt> &body,
                                                                   const std::set<Symbol> &known) {
  std::vector<std::tuple<bool, SymExpr, SymExpr>> atoms, added;
  forEachInteger(body, [&](const SymExpr &e, bool divisor) {
    if (!divisor) // a divisor is also met as an operand
      invariantAtoms(e, known, atoms);
  });
  for (const auto &key : atoms) {
    if (hoisted.count(key))
      continue;
    added.push_back(key);
    const auto &[div, lhs, rhs] = key;
    std::string text = fmt::format("{}({}, {})", div ? "moart_floordiv" : "moart_floormod", integer(lhs), integer(rhs));
    std::string local = fmt::format("moa_{}{}", div ? "div" : "mod", hoisted.size());
    line(fmt::format("const int64_t {} = {};", local, text));
    hoisted.emplace(key, local);
  }
  return added;
}

void CPrinter::stmt(const LStmt &s, ElemType t) {
  switch (s.kind) {
  case LStmt::Loop: {
    std::string pragma;
    if (s.loopKind == LoopKind::Serial) {
      pragma = policy.serialLoop();
    } else if (s.loopKind == LoopKind::Vector) {
      std::vector<std::string> reductions;
      for (const LStmt *r : outerReductions(s))
        reductions.push_back(fmt::format("{}:{}", reductionOperator(r->op), name(r->scalar)));
      pragma = policy.vectorLoop(reductions);
    }
    if (!pragma.empty())
      line(pragma);
    line(loopHeader(s));
    std::vector<std::tuple<bool, SymExpr, SymExpr>> added;
    if (s.loopKind == LoopKind::Parallel && policy.hoistsDivisions()) {
      parallelKnown.insert(s.var);
      const bool innermost =
          !(s.body.size() == 1 && s.body[0].kind == LStmt::Loop && s.body[0].loopKind == LoopKind::Parallel);
      if (innermost) // inside the collapsed nest, which must stay perfect
        added = hoist(s.body, parallelKnown);
    }
    for (const LStmt &x : s.body)
      stmt(x, t);
    for (const auto &key : added) // their locals end with the iteration
      hoisted.erase(key);
    line("}");
    break;
  }
  case LStmt::Decl:
    line(fmt::format("{} {} = {};{}", cType(s.type), name(s.scalar), asType(s.value, s.type), where(s.loc)));
    break;
  case LStmt::Assign:
    line(fmt::format("{} = {};{}", name(s.scalar), asType(s.value, s.type), where(s.loc)));
    break;
  case LStmt::Accumulate: {
    const std::string &acc = name(s.scalar);
    std::string v = asType(s.value, s.type);
    const char *suffix = s.type == ElemType::Int ? "i" : s.type == ElemType::F32 ? "f" : "";
    std::string rhs;
    switch (s.op) {
    case BinOp::Add: rhs = acc + " + " + v; break;
    case BinOp::Mul: rhs = acc + " * " + v; break;
    case BinOp::Max: rhs = fmt::format("moart_max{}({}, {})", suffix, acc, v); break;
    case BinOp::Min: rhs = fmt::format("moart_min{}({}, {})", suffix, acc, v); break;
    default: rhs = acc; break;
    }
    line(fmt::format("{} = {};{}", acc, rhs, where(s.loc)));
    break;
  }
  case LStmt::Store: {
    // a half-precision store rounds the f32 value once, to nearest-even
    ElemType stored = k.buffers[s.buffer].elem;
    std::string value = asType(s.value, computeType(stored));
    if (isHalf(stored))
      value = fmt::format("{}({})", narrow(stored), value);
    else if (stored == ElemType::I32) // an int value stored in 32 bits (moac check's inputs keep it in range)
      value = fmt::format("(int32_t)({})", value);
    auto reg = registers.find({s.buffer, s.offset});
    if (reg != registers.end())
      line(fmt::format("{} = {};{}", reg->second, value, where(s.loc)));
    else
      line(fmt::format("{}[{}] = {};{}", cn.buffer(s.buffer), integer(s.offset), value, where(s.loc)));
    break;
  }
  case LStmt::Prefetch:
    line(fmt::format("MOART_PREFETCH(&{}[{}]);{}", cn.buffer(s.buffer), integer(s.offset), where(s.loc)));
    break;
  case LStmt::If:
    line(ifHeader(s));
    for (const LStmt &x : s.body)
      stmt(x, t);
    if (!s.orElse.empty()) {
      line("} else {");
      for (const LStmt &x : s.orElse)
        stmt(x, t);
    }
    line("}");
    break;
  }
}

// The buffers a region touches, as OpenACC array sections.
std::string CPrinter::present(const Region &r) {
  std::set<size_t> used;
  forEachAccess(r.body, [&](size_t buffer, const SymExpr &, bool) { used.insert(buffer); });
  std::string out;
  for (size_t b : used)
    out += fmt::format("{}{}[0:{}]", out.empty() ? "" : ", ", cn.buffer(b),
                       integer(k.buffers[b].storageElements()));
  return out;
}

std::string CPrinter::loopHeader(const LStmt &s) {
  const std::string &v = name(s.var);
  std::string step = s.step == SymExpr(1) ? "++" + v : v + " += " + integer(s.step);
  return fmt::format("for (int64_t {} = {}; {} < {}; {}) {{", v, integer(s.start), v, integer(s.end), step);
}

std::string CPrinter::ifHeader(const LStmt &s) {
  if (s.value) { // a comparison prints its own parentheses: `if (j <= i) {`, never `if ((j <= i))`
    std::string c = asType(s.value, ElemType::Int);
    bool bracketed = s.value->kind == LExprKind::Binary && givesTruth(s.value->op);
    return fmt::format("if {} {{", bracketed ? c : "(" + c + ")");
  }
  return fmt::format("if ({} < {}) {{", integer(s.lhs), integer(s.rhs));
}

ElemType CPrinter::regionType(const Region &r) {
  ElemType t = ElemType::F32;
  for (const LStmt &s : r.body)
    if (s.kind == LStmt::Decl)
      t = s.type;
  return t;
}

void CPrinter::region(const Region &r) {
  line("");
  line(fmt::format("/* {} */", commentText(regionName(k, r))));
  if (r.onlyIfChunks)
    line(fmt::format("if ({} > 1) {{", name(*r.onlyIfChunks)));
  ElemType t = regionType(r);
  floatType = t == ElemType::Int ? ElemType::F32 : t;
  std::string sections = present(r);
  if (r.parallelDepth > 0) {
    std::string pragma = policy.parallelNest(r.parallelDepth, sections, hasVectorLoop(r.body));
    if (!pragma.empty())
      line(pragma);
    parallelKnown.clear();
    for (const TDim &d : k.dims)
      parallelKnown.insert(d.sym);
    for (const ChunkCount &c : k.chunkCounts)
      parallelKnown.insert(c.sym);
    for (const LStmt &s : r.body)
      stmt(s, t);
  } else {
    std::string pragma = policy.serialRegion(sections);
    if (!pragma.empty())
      line(pragma);
    line("{");
    for (const LStmt &s : r.body)
      stmt(s, t);
    line("}");
  }
  if (r.onlyIfChunks)
    line("}");
}

const PragmaPolicy &sequentialPolicy() {
  static constexpr SequentialPolicy policy;
  return policy;
}

const PragmaPolicy &policyFor(Target target) {
  switch (target) {
  case Target::OpenMP: return openmpPolicy();
  case Target::OpenACC: return openaccPolicy();
  case Target::C:
  case Target::Cuda: break;
  }
  return sequentialPolicy();
}

EmittedKernel emitKernel(const Kernel &kernel, Target target, const EmitInputs &inputs) {
  if (target == Target::Cuda)
    return emitCuda(kernel, inputs);
  return CPrinter(kernel, policyFor(target), target).print(inputs);
}

} // namespace moac
