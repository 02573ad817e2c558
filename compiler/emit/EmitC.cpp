// The C printer over the loop IR, shared by every target (sequential C99 adds no pragmas).
#include "CPrinter.h"

#include "CommentText.h"
#include "KernelChecks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

namespace moac {

namespace {

class SequentialPolicy final : public PragmaPolicy {
public:
  std::string parallelNest(int, const std::string &) const override { return ""; }
  std::string serialRegion(const std::string &) const override { return ""; }
};

// The header spells `restrict` through MOART_RESTRICT, so that C++ can include it: C++ has no `restrict`,
// its compilers (GCC, Clang, MSVC) take `__restrict`. Every generated C header defines it the same way.
constexpr const char *restrictMacro = "/* C99's restrict, or what C++ compilers call it. */\n#ifndef MOART_RESTRICT\n"
                                      "#ifdef __cplusplus\n#define MOART_RESTRICT __restrict\n#else\n"
                                      "#define MOART_RESTRICT restrict\n#endif\n#endif\n\n";

} // namespace

// bf16 and f16 are stored as their bit patterns (docs/abi.md), converted by moart/kernel.h's helpers.
const char *cType(ElemType t) {
  switch (t) {
  case ElemType::F32: return "float";
  case ElemType::F64: return "double";
  case ElemType::BF16:
  case ElemType::F16: return "uint16_t";
  case ElemType::Int: break;
  }
  return "int64_t";
}

// The helpers that widen a stored half-precision element to f32 and round an f32 value to one.
static const char *widen(ElemType t) { return t == ElemType::BF16 ? "moart_bf16_to_f32" : "moart_f16_to_f32"; }
static const char *narrow(ElemType t) { return t == ElemType::BF16 ? "moart_f32_to_bf16" : "moart_f32_to_f16"; }

std::string CPrinter::integer(const SymExpr &e) {
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
        factors.push_back(name(f->sym));
      else if (auto at = hoisted.find({f->kind == SymExpr::Atom::Div, f->lhs, f->rhs}); at != hoisted.end())
        factors.push_back(at->second);
      else
        factors.push_back(fmt::format("{}({}, {})", f->kind == SymExpr::Atom::Div ? "moart_floordiv" : "moart_floormod",
                                      integer(f->lhs), integer(f->rhs)));
    }
    std::string term;
    for (size_t j = 0; j < factors.size(); ++j)
      term += (j ? " * " : "") + factors[j];
    out += term;
  }
  return e.terms().size() > 1 ? "(" + out + ")" : out;
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
    if (x->kind == LExprKind::Load && k.buffers[x->buffer].elem != ElemType::Int)
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

void CPrinter::stmt(const LStmt &s, ElemType t) {
  switch (s.kind) {
  case LStmt::Loop: {
    if (s.loopKind == LoopKind::Serial) {
      std::string pragma = policy.serialLoop();
      if (!pragma.empty())
        line(pragma);
    }
    line(loopHeader(s));
    for (const LStmt &x : s.body)
      stmt(x, t);
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
    auto reg = registers.find({s.buffer, s.offset});
    if (reg != registers.end())
      line(fmt::format("{} = {};{}", reg->second, value, where(s.loc)));
    else
      line(fmt::format("{}[{}] = {};{}", cn.buffer(s.buffer), integer(s.offset), value, where(s.loc)));
    break;
  }
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
    std::string pragma = policy.parallelNest(r.parallelDepth, sections);
    if (!pragma.empty())
      line(pragma);
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

std::string CPrinter::dimParams() const {
  std::string out;
  for (const TDim &d : k.dims)
    if (!d.value)
      out += fmt::format("{}int64_t {}", out.empty() ? "" : ", ", cn.dim(d.sym));
  return out;
}

std::string CPrinter::dimArgs() const {
  std::string out;
  for (const TDim &d : k.dims)
    if (!d.value)
      out += fmt::format("{}{}", out.empty() ? "" : ", ", cn.dim(d.sym));
  return out;
}

// One comment line per parameter of the kernel, saying which .moa name it carries (a name C cannot
// have is renamed: docs/abi.md).
std::string CPrinter::parameterComment() const {
  std::string out = "/* Parameters, in order:\n";
  for (const TDim &d : k.dims)
    if (!d.value)
      out += fmt::format(" *   {}: dim {}\n", cn.dim(d.sym), commentText(d.name));
  auto array = [&](size_t b, const char *role) {
    const Buffer &buf = k.buffers[b];
    out += fmt::format(" *   {}: {} {} : {}{}\n", cn.buffer(b), role, commentText(buf.name), spell(buf.elem),
                       commentText(strShapeAscii(buf.shape)));
  };
  for (size_t b : k.inputs())
    array(b, k.buffers[b].inout ? "inout" : "in");
  for (size_t b : k.outputs())
    array(b, "out");
  std::string dims = dimArgs();
  return out + fmt::format(" *   workspace: {}_workspace_bytes({}) bytes, 64-byte aligned\n */\n", k.name, dims);
}

// restrictWord: `restrict` in the kernel (C99), MOART_RESTRICT in the header (which C++ includes too), none
// for CUDA's launcher, which takes device pointers and a stream (its kernels promise no aliasing).
std::string CPrinter::signature(const char *restrictWord) const {
  const bool cuda = target == Target::Cuda;
  const std::string qualifier = *restrictWord ? std::string(restrictWord) + " " : "";
  std::string params = dimParams();
  for (size_t b : k.inputs()) // an inout is written in place: not const
    params += fmt::format("{}{}{} *{}{}", params.empty() ? "" : ", ", k.buffers[b].inout ? "" : "const ",
                          cType(k.buffers[b].elem), qualifier, cn.buffer(b));
  for (size_t b : k.outputs())
    params += fmt::format("{}{} *{}", params.empty() ? "" : ", ", cType(k.buffers[b].elem), cn.buffer(b));
  params += fmt::format("{}void *workspace{}", params.empty() ? "" : ", ", cuda ? ", cudaStream_t stream" : "");
  return fmt::format("int {}({})", k.name, params);
}

// P = moart_chunks(items, terms, threads, chunk); threads 0 is the device's (CUDA: moart_cuda_splits, the
// splits that fit in one wave of 32 warps on each of the current device's SMs).
std::string CPrinter::chunkCount(const ChunkCount &c, const std::string &items, const std::string &terms) const {
  if (c.threads == 0)
    return fmt::format("moart_cuda_splits({}, {}, INT64_C({}), INT64_C({}))", items, terms, c.chunk, c.pack);
  return fmt::format("moart_chunks({}, {}, INT64_C({}), INT64_C({}))", items, terms, c.threads, c.chunk);
}

// `X_workspace_layout(dims, offsets)`: 1, with each workspace slot's offset and (last) the total in bytes,
// when the kernel takes these dims; 0 when a dim is out of range (below 1, or below 0 where
// dimsAllowedZero allows 0), an extent is negative, an element count, byte size or bound leaves int64, the
// loops' index arithmetic could leave int64 (checkedLoopMagnitudes), or a run-time shape guard fails. Every operation is checked (KernelChecks.h), so none of this overflows,
// and the kernel and `X_workspace_bytes` share the one decision (docs/abi.md, "Checked extents").
std::string CPrinter::workspaceLayout(const std::string &voidDims) {
  const std::string flag = "overflow"; // reserved for the layout function by CNames (dims only)
  auto checked = [&](const SymExpr &e) { return checkedInteger(e, [&](Symbol s) { return name(s); }, flag); };
  std::set<Symbol> zero = dimsAllowedZero(k);
  std::string out = fmt::format("static int {}_workspace_layout({}{}size_t offsets[{}]) {{\n  int {} = 0;\n"
                                "  int64_t total = 0;\n{}",
                                k.name, dimParams(), dimParams().empty() ? "" : ", ", k.buffers.size() + 1, flag,
                                voidDims);
  std::vector<std::string> ranges, zeroNames;
  for (const TDim &d : k.dims)
    if (!d.value)
      ranges.push_back(fmt::format("{} < {}", cn.dim(d.sym), zero.count(d.sym) ? 0 : 1));
  for (Symbol z : zero)
    zeroNames.push_back(cn.dim(z));
  if (!ranges.empty())
    out += fmt::format("  if ({}) /* dims are at least 1{} */\n    return 0;\n", fmt::join(ranges, " || "),
                       zero.empty() ? "" : fmt::format("; {}, declared >= 0, at least 0",
                                                       fmt::join(zeroNames, ", ")));
  for (const ChunkCount &c : k.chunkCounts)
    out += fmt::format("  const int64_t {} = {};\n", name(c.sym), chunkCount(c, checked(c.items), checked(c.terms)));
  // every array's extents are not negative and its bytes fit; workspace arrays take slots in buffer order
  // (a partials buffer with one chunk takes none: it is the result itself)
  for (size_t b = 0; b < k.buffers.size(); ++b) {
    const Buffer &buf = k.buffers[b];
    std::string count;
    for (const SymExpr &e : buf.shape) {
      std::string extent = fmt::format("moart_extent_checked({}, &{})", checked(e), flag);
      count = count.empty() ? extent : fmt::format("moart_mul_checked({}, {}, &{})", count, extent, flag);
    }
    if (count.empty())
      count = "1";
    std::string bytes = fmt::format("moart_bytes_checked({}, sizeof({}), &{})", count, cType(buf.elem), flag);
    if (buf.layout.kind == Layout::Lifted)
      out += fmt::format("  (void){};\n", bytes);
    if (buf.layout.kind == Layout::Lifted || buf.role == Buffer::Workspace)
      bytes = fmt::format("moart_bytes_checked({}, sizeof({}), &{})", checked(buf.storageElements()),
                          cType(buf.elem), flag);
    if (buf.role != Buffer::Workspace) {
      out += fmt::format("  (void){}; /* {} */\n", bytes, cn.buffer(b));
      continue;
    }
    if (buf.aliasOf)
      bytes = fmt::format("({} > 1 ? {} : 0)", name(buf.aliasChunks), bytes);
    out += fmt::format("  offsets[{}] = (size_t)total;\n  total = moart_add_checked(total, {}, &{});\n", b, bytes, flag);
  }
  for (const SymExpr &e : dimExpressions(k))
    out += fmt::format("  (void){};\n", checked(e));
  out += checkedLoopMagnitudes(k, [&](Symbol s) { return name(s); }, flag);
  for (const Guard &g : k.guards) {
    const char *op = g.cmp == Guard::Eq ? "==" : g.cmp == Guard::Le ? "<=" : "<";
    out += fmt::format("  if (!({} {} {}) || {}) /* {}: {} */\n    return 0;\n", checked(g.lhs), op, checked(g.rhs), flag,
                       commentText(g.reason), commentText(g.str()));
  }
  return out + fmt::format("  offsets[{}] = moart_size_checked(total, &{});\n  return !{};\n}}\n\n", k.buffers.size(),
                           flag, flag);
}

// A NULL array or workspace where the kernel needs memory is MOART_ERR_ARG (after the dims were checked,
// so these counts are exact).
std::string CPrinter::pointerChecks(size_t totalSlot) {
  std::set<Symbol> zero = dimsAllowedZero(k);
  std::vector<std::string> missing{fmt::format("(offsets[{}] > 0 && !workspace)", totalSlot)};
  for (size_t b = 0; b < k.buffers.size(); ++b) {
    const Buffer &buf = k.buffers[b];
    SymExpr count = buf.storageElements();
    std::optional<int64_t> constant = count.constant();
    if (buf.role == Buffer::Workspace || (constant && *constant <= 0))
      continue;
    std::vector<Symbol> symbols = count.symbols();
    bool positive = signOf(count) == Sign::Positive &&
                    std::none_of(symbols.begin(), symbols.end(), [&](Symbol s) { return zero.count(s) > 0; });
    missing.push_back(positive ? "!" + cn.buffer(b) : fmt::format("(!{} && {} > 0)", cn.buffer(b), integer(count)));
  }
  return fmt::format("  if ({}) /* an array or the workspace is NULL */\n    return MOART_ERR_ARG;\n",
                     fmt::join(missing, " || "));
}

EmittedKernel CPrinter::print(const EmitInputs &in) {
  const bool cuda = target == Target::Cuda;
  const std::string command = commentText(in.command);
  std::string chunkDecls;
  for (const ChunkCount &c : k.chunkCounts)
    chunkDecls += fmt::format("  const int64_t {} = {};\n", name(c.sym), chunkCount(c, integer(c.items), integer(c.terms)));
  // Buffers some stage loads or stores; a partials buffer also needs the result it may alias. Others
  // (inputs the outputs do not depend on, arrays with an empty index space) are declared but unused.
  std::set<size_t> used;
  for (const Region &r : k.stages)
    forEachAccess(r.body, [&](size_t b, const SymExpr &, bool) { used.insert(b); });
  for (size_t b = 0; b < k.buffers.size(); ++b)
    if (used.count(b) && k.buffers[b].aliasOf)
      used.insert(*k.buffers[b].aliasOf);
  std::string ws;
  for (size_t b : k.workspace()) {
    if (!used.count(b))
      continue;
    const Buffer &buf = k.buffers[b];
    std::string pointer = fmt::format("({} *)((char *)workspace + offsets[{}])", cType(buf.elem), b);
    if (buf.aliasOf)
      pointer = fmt::format("{} > 1 ? {} : {}", name(buf.aliasChunks), pointer, cn.buffer(*buf.aliasOf));
    ws += fmt::format("  {} *{} = {};\n", cType(buf.elem), cn.buffer(b), pointer);
  }
  for (const Region &r : k.stages)
    region(r);
  std::string regions = std::move(body);

  std::string header = fmt::format(
      "/* {}: the kernel compiled by moac from {} for target {}.\n"
      " * Generated by `{}`; do not edit. ABI: docs/abi.md. */\n"
      "#ifndef {}_H\n#define {}_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n{}"
      "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n",
      k.name, fileStem, targetName(target), command, k.name, k.name,
      cuda ? "#include <cuda_runtime_api.h> /* cudaStream_t */\n\n" : restrictMacro);
  header += "/* Array layouts: */\n";
  for (size_t b : k.inputs()) {
    const Layout &l = k.buffers[b].layout;
    const std::string &c = cn.buffer(b);
    if (l.kind == Layout::Lifted && l.axis == 0)
      header += fmt::format("#define {}_{}_LIFTED_BLOCK {} /* {} is stored lifted: T([x, y]) = [x / {}, y, x % {}] */\n",
                            k.name, c, l.block, c, l.block, l.block);
    else if (l.kind == Layout::Lifted)
      header += fmt::format("/* {} is stored lifted on axis {}: T([p, x, y]) = [p, x / {}, y, x % {}] */\n"
                            "#define {}_{}_LIFTED_BLOCK {}\n",
                            c, l.axis, l.block, l.block, k.name, c, l.block);
    else
      header += fmt::format("#define {}_{}_LIFTED_BLOCK 0 /* {} is row-major */\n", k.name, c, c);
    header += fmt::format("#define {}_{}_LIFTED_AXIS {}\n", k.name, c, l.kind == Layout::Lifted ? l.axis : 0);
  }
  std::string dims = dimParams();
  header += fmt::format("\n/* Bytes of workspace the kernel needs for these dims (SIZE_MAX for dims it does not take). "
                        "*/\nsize_t {}_workspace_bytes({});\n\n",
                        k.name, dims.empty() ? "void" : dims);
  header += fmt::format("/* Returns 0; MOART_ERR_SHAPE, writing nothing, for dims it does not take (a dim out of "
                        "range, an\n * overflowing extent, a failed shape guard); MOART_ERR_ARG for a NULL array or "
                        "workspace{}. */\n{}{};\n\n#ifdef __cplusplus\n}}\n#endif\n\n#endif\n",
                        cuda ? ";\n * MOART_ERR_DEVICE when a launch fails. The arrays and the workspace are device "
                               "memory; the kernels\n * run on `stream` after the call returns"
                             : "",
                        parameterComment(), signature(cuda ? "" : "MOART_RESTRICT"));

  std::string src = fmt::format("/* Generated by moac from {} for target {}; do not edit.\n * {}\n *\n", fileStem,
                                targetName(target), command);
  auto block = [&](const char *title, const std::string &text) {
    src += fmt::format(" * {}\n", title);
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos)
        end = text.size();
      std::string l = text.substr(start, end - start);
      if (!l.empty() && l.back() == '\r') // a CRLF line ends at its newline too
        l.pop_back();
      src += l.empty() ? " *\n" : " *   " + commentText(l) + "\n";
      start = end + 1;
    }
    src += " *\n";
  };
  block("Source:", in.sourceText);
  block("DNF:", in.dnf);
  block("Traffic model:", in.traffic);
  src += " */\n";
  src += fmt::format("#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n{}\n#include \"moart/kernel.h\"\n",
                     cuda ? "\n#include <cuda_runtime.h>\n" : policy.extraIncludes());
  if (!in.headerName.empty())
    src += fmt::format("#include \"{}\"\n", in.headerName);
  // Every dim is "used" explicitly: a kernel need not read every dim, and -Wextra would say so.
  std::string voidDims;
  for (const TDim &d : k.dims)
    if (!d.value)
      voidDims += fmt::format("  (void){};\n", cn.dim(d.sym));
  const size_t slots = k.buffers.size() + 1; // offsets[buffer], then the total
  src += kernels; // CUDA's __global__ functions (and the launch helpers they need)
  src += workspaceLayout(voidDims);
  const char *linkage = cuda ? "extern \"C\" " : ""; // C callers link the launcher
  src += fmt::format("{}size_t {}_workspace_bytes({}) {{\n  size_t offsets[{}];\n  return {}_workspace_layout({}{}offsets) ? "
                     "offsets[{}] : SIZE_MAX;\n}}\n\n",
                     linkage, k.name, dims.empty() ? "void" : dims, slots, k.name, dimArgs(), dimArgs().empty() ? "" : ", ",
                     slots - 1);
  // Unused arguments are still parameters of the ABI; -Wextra would call them unused.
  std::string voidInputs;
  for (size_t b = 0; b < k.buffers.size(); ++b)
    if (k.buffers[b].role != Buffer::Workspace && !used.count(b))
      voidInputs += fmt::format("  (void){};\n", cn.buffer(b));
  src += linkage + signature(cuda ? "" : "restrict") + " {\n";
  src += voidDims;
  src += voidInputs;
  src += fmt::format("  size_t offsets[{}];\n  if (!{}_workspace_layout({}{}offsets))\n    return MOART_ERR_SHAPE;\n",
                     slots, k.name, dimArgs(), dimArgs().empty() ? "" : ", ");
  src += pointerChecks(slots - 1);
  src += chunkDecls;
  src += ws;
  src += regions;
  // CUDA: a launch that failed (no device, a bad configuration) is MOART_ERR_DEVICE; the kernels run on
  // `stream` after the launcher returns
  src += cuda ? "  return cudaGetLastError() == cudaSuccess ? 0 : MOART_ERR_DEVICE;\n}\n" : "  return 0;\n}\n";
  return EmittedKernel{src, header};
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
