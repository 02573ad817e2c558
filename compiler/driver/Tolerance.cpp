#include "Tolerance.h"

#include "Gamma.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <unordered_map>

namespace moac {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// λ of the probabilistic rounding model (docs/cli.md, "The tolerance"): a sum of n terms rounds with an
// error of about λ·u·√n times the size of its partial sums, not the worst case (n−1)·u·Σ|x|, which at
// n = 10⁶ in f32 is 6 % of Σ|x| and would let an all-zero kernel pass.
constexpr double kLambda = 1.0;

double unitRoundoff(ElemType t) {
  switch (t) {
  case ElemType::F32: return std::ldexp(1.0, -24);
  case ElemType::F64: return std::ldexp(1.0, -53);
  case ElemType::BF16: return std::ldexp(1.0, -8);
  case ElemType::F16: return std::ldexp(1.0, -11);
  case ElemType::I32:
  case ElemType::Int: break;
  }
  return 0.0;
}
// The smallest subnormal of a half-precision type: what a store rounding into it loses absolutely.
double halfTiny(ElemType t) { return t == ElemType::BF16 ? std::ldexp(1.0, -133) : std::ldexp(1.0, -24); }
// The smallest subnormal: an underflowing operation loses at most this much absolutely.
double tinyOf(double u) { return u == 0 ? 0 : u > 1e-10 ? std::ldexp(1.0, -149) : std::ldexp(1.0, -1074); }
// The largest finite value of the type; beyond it the kernel's intermediate is ±inf.
double maxOf(double u) { return u > 1e-10 ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max(); }

// A value of the DNF evaluated in double beside a bound on how far a rounded evaluation may be from it.
struct Val {
  double v = 0; // the value, evaluated in double
  double e = 0; // bound on |rounded − exact|
  double R = 0; // reduction terms on the longest chain of sums that fed it
  double L = 0; // other rounded operations on that chain
  double m = 0; // the size of the partial results it was made of: |v| where nothing cancelled, more where it did
  // A reduction that fed it may overflow in one order of its terms and not in another (a partial sum
  // or product beyond the type's largest value), so the kernel's order may give ±inf or NaN where the
  // reference's does not, or the other way round.
  bool reordered = false;
};

class BoundEvaluator {
public:
  BoundEvaluator(const DnfProgram &p, const DimValues &dims) : p(p), dims(dims) {}
  std::vector<OutputBounds> run(const std::vector<NDArray> &inputs);

private:
  int64_t value(Symbol s) const {
    if (auto it = env.find(s.id()); it != env.end())
      return it->second;
    if (auto it = dims.find(s); it != dims.end())
      return it->second;
    throw EvalError(fmt::format("no value for '{}'", s.name()), SourceLoc{});
  }
  int64_t integer(const SymExpr &e) const { // a gather's load reads its (exact, integer) input
    return e.evaluate([this](Symbol s) { return value(s); },
                      [this](uint32_t array, int64_t at) { return int64_t(inputData.at(array)->data.at(size_t(at))); });
  }
  // One rounding of the current array's arithmetic: relative u, absolute tiny (underflow).
  double rounding(double v) const { return u * std::fabs(v) + tiny; }
  Val finish(Val r) const {
    if (std::isnan(r.e) || (u > 0 && std::fabs(r.v) + r.e > maxOf(u)))
      r.e = kInf; // the rounded evaluation may have overflowed: no bound
    return r;
  }
  Val eval(const DExpr &e);
  Val read(const DExpr &e);
  Val unary(UnOp op, Val a) const;
  Val binary(BinOp op, Val a, Val b) const;
  Val reduce(const DExpr &e);
  Val accumulate(BinOp op, bool isInt, int64_t n, const std::function<Val(int64_t)> &term, bool rescaled = false);
  Val fused(const DExpr &e);

  const DnfProgram &p;
  DimValues dims;
  std::unordered_map<uint32_t, int64_t> env;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<const NDArray *> inputData;
  std::vector<std::vector<Val>> stored;
  std::map<std::vector<int64_t>, Val> fusedCache; // (group, member, index…) → its value and bound
  std::vector<int64_t> scoresOf; // (group, 0, frame…) whose n scores `scores` holds
  std::vector<Val> scores;
  std::vector<double> units; // per array: u of its arithmetic (the coarsest float it reads or is)
  double u = 0, tiny = 0;    // of the array being evaluated
};

Val BoundEvaluator::read(const DExpr &e) {
  const std::vector<int64_t> &shape = shapes[e.array];
  int64_t offset = 0;
  for (size_t k = 0; k < e.index.size(); ++k) {
    int64_t i = integer(e.index[k]);
    if (i < 0 || i >= shape[k])
      throw EvalError(fmt::format("index {} out of range for axis {} of '{}' (extent {})", i, k,
                                  p.arrays[e.array].name, shape[k]),
                      e.loc);
    offset = offset * shape[k] + i;
  }
  if (inputData[e.array])
  {
    double v = inputData[e.array]->data[size_t(offset)];
    return Val{v, 0, 0, 0, std::fabs(v)}; // inputs are exact
  }
  return stored[e.array][size_t(offset)];
}

Val BoundEvaluator::unary(UnOp op, Val a) const {
  Val r = a;
  r.v = apply(op, a.v);
  switch (op) {
  case UnOp::Neg:
  case UnOp::Abs:
  case UnOp::Not: return r;
  case UnOp::Sin:
  case UnOp::Cos:
    // not well-conditioned relative to their result (cos(x) near its zeros, or any x of 1e12 whose
    // rounding moves it by 1e-4): |f'| <= 1, so the argument's error carries over absolutely
    r.m = std::max(std::fabs(r.v), a.m);
    break;
  // exp(x(1 + δ)) = exp(x)·(1 + xδ): exp's relative error is its argument's roundings times |x|, and
  // log(x(1 + δ)) = log(x) + δ: log's absolute error is its argument's relative one. Both are taken from
  // the argument's value, not its partial sizes m_x: softmax's x − max(x) is exactly 0 where it matters
  // and far below where exp gives 0, though m_x is the scores' size (2^80 at inputs of 1e12).
  case UnOp::Exp: r.m = std::fabs(r.v) * std::max(1.0, std::fabs(a.v)); break;
  case UnOp::Exp2: r.m = std::fabs(r.v) * std::max(1.0, std::log(2.0) * std::fabs(a.v)); break;
  case UnOp::Log: r.m = std::max(std::fabs(r.v), 1.0); break;
  case UnOp::Log2: r.m = std::max(std::fabs(r.v), 1 / std::log(2.0)); break;
  // tanh and sigmoid carry their argument's error absolutely, times their slope 1 − tanh² or s·(1 − s):
  // tanh(log(1.04)) has log's absolute error, large against its result 0.04
  case UnOp::Tanh: r.m = std::max(std::fabs(r.v), (1 - r.v * r.v) * a.m); break;
  case UnOp::Sigmoid: r.m = std::max(std::fabs(r.v), r.v * (1 - r.v) * a.m); break;
  default: r.m = std::fabs(r.v); // sqrt halves its argument's relative error
  }
  switch (op) {
  case UnOp::Neg:
  case UnOp::Abs:
  case UnOp::Not: return r;
  case UnOp::Exp: // exp is increasing and convex: the upper end of [a − e, a + e] is the farther one
    r.e = (a.e == 0 ? 0 : std::exp(a.v + a.e) - r.v) + 2 * rounding(r.v);
    break;
  case UnOp::Log: // increasing and concave: the lower end is the farther one
    r.e = a.e == 0 ? 0 : a.v - a.e <= 0 ? kInf : r.v - std::log(a.v - a.e);
    r.e += 2 * rounding(r.v);
    break;
  case UnOp::Sqrt:
    r.e = (a.e == 0 ? 0 : r.v - std::sqrt(std::max(a.v - a.e, 0.0))) + rounding(r.v);
    break;
  case UnOp::Exp2: // as exp
    r.e = (a.e == 0 ? 0 : std::exp2(a.v + a.e) - r.v) + 2 * rounding(r.v);
    break;
  case UnOp::Log2: // as log
    r.e = a.e == 0 ? 0 : a.v - a.e <= 0 ? kInf : r.v - std::log2(a.v - a.e);
    r.e += 2 * rounding(r.v);
    break;
  case UnOp::Tanh: // |f'| <= 1 (sigmoid's <= 1/4); a few roundings (sigmoid: exp, add, divide)
  case UnOp::Sin:
  case UnOp::Cos:
  case UnOp::Sigmoid:
    r.e = a.e + 4 * rounding(r.v) + 2 * rounding(1.0);
    break;
  }
  r.L += 1;
  return finish(r);
}

// x^y = exp(y·ln x): as exp's, its relative error is the absolute one of y·ln x, which x's relative
// roundings (m_x/|x| of them) bring times |y| and y's (m_y) times |ln x|: pow(x, 2) doubles x's error.
double powMagnitude(const Val &x, const Val &y, double r) {
  double fx = std::fabs(x.v), relX = fx == 0 ? 1 : std::max(1.0, x.m / fx);
  double logX = fx == 0 ? 0 : std::fabs(std::log(fx));
  auto times = [](double a, double b) { return a == 0 || b == 0 ? 0 : a * b; }; // 0 · inf is 0 here
  return times(std::fabs(r), std::max({1.0, times(std::fabs(y.v), relX), times(logX, y.m)}));
}

Val BoundEvaluator::binary(BinOp op, Val a, Val b) const {
  Val r{apply(op, a.v, b.v), 0, std::max(a.R, b.R), std::max(a.L, b.L) + 1, 0, a.reordered || b.reordered};
  if (op == BinOp::Mul || op == BinOp::Div) { // the operands' relative errors add: √R = √R_a + √R_b
    double root = std::sqrt(a.R) + std::sqrt(b.R);
    r.R = root * root;
    r.L = a.L + b.L + 1;
  }
  double fa = std::fabs(a.v), fb = std::fabs(b.v);
  r.m = op == BinOp::Add || op == BinOp::Sub ? std::fabs(r.v) + std::hypot(a.m, b.m)
        : op == BinOp::Mul                   ? a.m * b.m
        : op == BinOp::Div                   ? (fb == 0 ? kInf : a.m * b.m / (fb * fb))
        : op == BinOp::Max || op == BinOp::Min ? std::max(a.m, b.m)
        : op == BinOp::Pow                   ? powMagnitude(a, b, r.v)
                                             : std::fabs(r.v);
  switch (op) {
  case BinOp::Add:
  case BinOp::Sub: r.e = a.e + b.e + rounding(r.v); break;
  case BinOp::Mul: r.e = fa * b.e + fb * a.e + a.e * b.e + rounding(r.v); break;
  case BinOp::Div:
    r.e = a.e == 0 && b.e == 0 ? rounding(r.v)
          : fb <= b.e          ? kInf
                               : (a.e + std::fabs(r.v) * b.e) / (fb - b.e) + rounding(r.v);
    break;
  case BinOp::Max:
  case BinOp::Min: // exact: the result is one of the operands
    r.e = std::max(a.e, b.e);
    r.L -= 1;
    break;
  case BinOp::IntDiv:
  case BinOp::Mod: r.e = a.e == 0 && b.e == 0 ? 0 : kInf; break;
  case BinOp::Pow: // |∂/∂x| = |y·x^(y−1)|, |∂/∂y| = |ln x · x^y|, for x > 0 beyond its error
    r.e = a.e == 0 && b.e == 0 ? 0
          : a.v - a.e <= 0     ? kInf
                               : std::fabs(b.v * std::pow(a.v - (b.v < 1 ? a.e : -a.e), b.v - 1)) * a.e +
                                     std::fabs(std::log(a.v + a.e)) * std::pow(a.v + a.e, std::fabs(b.v) + b.e) * b.e;
    r.e += 2 * rounding(r.v);
    break;
  default: r.e = 0; break; // comparisons and logic: a truth value, taken as exact (see DKind::Where below)
  }
  return finish(r);
}

// A sum of n terms x_k, each with error bound e_k: the terms' own errors, as independent (√Σe²) and as a
// common relative error (max e_k/|x_k| · |S|), plus the sum's rounding: λ·u·√n·(|S| + √Σx²) — the
// size of the partial sums of any summation order, whether they cancel or not — or, when smaller, the
// worst case (n−1)·u/(1−(n−1)·u)·Σ|x|.
// A right fold (−/, ÷/: t₀ op (t₁ op (…)), which the kernels compute in the reference's order) is bounded
// by its definition: t_l op acc from the last term down. t₀ − (t₁ − (…)) is the sum of ±t_l, and its
// partial results are that sum's from the right, so −/ is bounded as that sum.
Val BoundEvaluator::reduce(const DExpr &e) {
  const int64_t n = integer(e.extent);
  auto term = [&](int64_t i) {
    env[e.var.id()] = i;
    Val x = eval(*e.args[0]);
    env.erase(e.var.id());
    return x;
  };
  if (e.op == BinOp::Sub)
    return accumulate(BinOp::Add, e.isInt, n, [&](int64_t i) {
      Val x = term(i);
      x.v = i % 2 ? -x.v : x.v;
      return x;
    });
  if (e.op == BinOp::Div) {
    Val r{1, 0, 0, 0, 1};
    for (int64_t i = n; i-- > 0;)
      r = binary(BinOp::Div, term(i), r);
    return finish(r);
  }
  return accumulate(e.op, e.isInt, n, term);
}

// The reduction of n terms term(0 … n−1) with op (reduce() above). `rescaled`: every partial sum is also
// multiplied by a rounded rescaling factor as it goes (the online softmax's e^{m−M}), which adds as much
// rounding again as the summation's own.
Val BoundEvaluator::accumulate(BinOp op, bool isInt, int64_t n, const std::function<Val(int64_t)> &term,
                               bool rescaled) {
  Val r{identity(op, isInt), 0, 0, 0, 0};
  double absSum = 0, squares = 0, errSquares = 0, worstRel = 0, magSquares = 0, logProduct = 0;
  for (int64_t i = 0; i < n; ++i) {
    Val x = term(i);
    r.reordered = r.reordered || x.reordered;
    if (op == BinOp::Mul) // the largest partial product of any order: the factors beyond 1
      logProduct += std::log(std::max(1.0, std::fabs(x.v) + x.e));
    if (op == BinOp::Add) {
      r.R = std::max(r.R, x.R);
      r.L = std::max(r.L, x.L);
      r.v += x.v;
      absSum += std::fabs(x.v);
      squares += x.v * x.v;
      errSquares += x.e * x.e;
      magSquares += x.m * x.m;
      if (x.v != 0) // a zero term's error is in √Σe² alone
        worstRel = std::max(worstRel, x.e / std::fabs(x.v));
    } else {
      r = binary(op, r, x); // max/min: exact; a product: one rounding per factor, the factors' errors add
    }
  }
  if (u > 0 && !isInt && ((op == BinOp::Add && absSum + std::sqrt(errSquares) > maxOf(u)) ||
                          (op == BinOp::Mul && logProduct > std::log(maxOf(u)))))
    r.reordered = true;
  if (op == BinOp::Add && n > 0) {
    double k = double(n - 1), gamma = k * u < 1 ? k * u / (1 - k * u) : kInf;
    double model = kLambda * u * std::sqrt(double(n)) * (std::fabs(r.v) + std::sqrt(squares));
    r.m = std::fabs(r.v) + std::sqrt(magSquares);
    r.e = std::sqrt(errSquares) + worstRel * std::fabs(r.v) + (rescaled ? 2 : 1) * std::min(gamma * absSum, model) +
          double(n) * tiny;
  }
  if (op == BinOp::Add || op == BinOp::Mul)
    r.R += double(n); // max/ and min/ round nothing
  return finish(r);
}

// A member of a fused online-softmax group (psi/Fuse.h) at the read's frame and extra indices, bounded as
// the reductions it replaced — M = max_l e_l, S = Σ_l exp(e_l − M)·w_l — plus the rescaling's roundings;
// each (member, index) is evaluated once.
Val BoundEvaluator::fused(const DExpr &e) {
  const FusedGroup &g = p.groups[e.group];
  std::vector<int64_t> key{int64_t(e.group), int64_t(e.member)};
  for (const SymExpr &i : e.index)
    key.push_back(integer(i));
  if (auto it = fusedCache.find(key); it != fusedCache.end())
    return it->second;
  const FusedMember &m = g.members[e.member];
  Val top; // the member's maximum M, first: its evaluation binds and then unbinds the frame
  if (m.weight) {
    DExpr maxRead = e;
    maxRead.member = 0;
    maxRead.index.resize(g.frame.size());
    top = fused(maxRead);
  }
  for (size_t k = 0; k < g.frame.size(); ++k)
    env[g.frame[k].id()] = key[2 + k];
  for (size_t k = 0; k < m.extra.size(); ++k)
    env[m.extra[k].id()] = key[2 + g.frame.size() + k];
  int64_t n = integer(g.extent);
  // The scores of this frame, evaluated once for all its members and their extra indices (the readers
  // of one frame come one after another, so only the last frame's are kept).
  std::vector<int64_t> frameKey(key.begin(), key.begin() + 2 + long(g.frame.size()));
  frameKey[1] = 0;
  if (frameKey != scoresOf) {
    scoresOf = frameKey;
    scores.clear();
    for (int64_t l = 0; l < n; ++l) {
      env[g.var.id()] = l;
      scores.push_back(eval(*g.score));
    }
    env.erase(g.var.id());
  }
  auto score = [&](int64_t l) { return scores[size_t(l)]; };
  Val r;
  if (!m.weight) {
    r = accumulate(BinOp::Max, false, n, score);
  } else {
    r = accumulate(BinOp::Add, false, n, [&](int64_t l) {
      Val t = unary(UnOp::Exp, binary(BinOp::Sub, score(l), top));
      env[g.var.id()] = l;
      Val w = eval(*m.weight);
      env.erase(g.var.id());
      return binary(BinOp::Mul, t, w);
    }, true);
    r.L += 2; // the rescaling factor and its product
  }
  for (Symbol s : g.frame)
    env.erase(s.id());
  for (Symbol s : m.extra)
    env.erase(s.id());
  return fusedCache[key] = r;
}

Val BoundEvaluator::eval(const DExpr &e) {
  switch (e.kind) {
  case DKind::Float: {
    bool exact = u == 0 || u < 1e-10 || double(float(e.floatValue)) == e.floatValue;
    return Val{e.floatValue, exact ? 0 : rounding(e.floatValue), 0, 0, std::fabs(e.floatValue)};
  }
  case DKind::Int: {
    double v = double(integer(e.intValue));
    return Val{v, std::fabs(v) * u * 2 > 1 ? rounding(v) : 0, 0, 0, std::fabs(v)}; // exact below 2^precision
  }
  case DKind::Read: return read(e);
  case DKind::Unary: {
    Val a = eval(*e.args[0]);
    if (e.isInt)
      return Val{apply(e.unop, a.v), 0, 0, 0, std::fabs(apply(e.unop, a.v))};
    return unary(e.unop, a);
  }
  case DKind::Binary: {
    Val a = eval(*e.args[0]), b = eval(*e.args[1]);
    if ((e.op == BinOp::IntDiv || e.op == BinOp::Mod) && b.v == 0)
      throw EvalError("integer division by zero", e.loc);
    if (e.isInt)
      return Val{apply(e.op, a.v, b.v), 0, 0, 0, std::fabs(apply(e.op, a.v, b.v))};
    return binary(e.op, a, b);
  }
  case DKind::Reduce: return reduce(e);
  case DKind::Fused: return fused(e);
  case DKind::Select: return integer(e.lhs) < integer(e.rhs) ? eval(*e.args[0]) : eval(*e.args[1]);
  // the condition is taken as exact: comparisons of reads and of indices are (a comparison of rounded
  // values near a tie is not modelled)
  case DKind::Where: return eval(*e.args[0]).v != 0 ? eval(*e.args[1]) : eval(*e.args[2]);
  }
  return Val{};
}

std::vector<OutputBounds> BoundEvaluator::run(const std::vector<NDArray> &inputs) {
  for (const TDim &d : p.dims)
    if (d.value)
      dims[d.sym] = *d.value;
  size_t count = p.arrays.size(), nextInput = 0;
  shapes.resize(count);
  inputData.assign(count, nullptr);
  stored.resize(count);
  units.assign(count, 0);
  for (size_t k = 0; k < count; ++k) {
    const DnfArray &a = p.arrays[k];
    for (const auto &s : boundingShape(a.shape, a.index)) // a triangular array is held in its bounding box
      shapes[k].push_back(integer(s));
    units[k] = unitRoundoff(computeType(a.elem)); // a half-precision array's arithmetic is f32
    if (a.storage == Storage::Input)
      inputData[k] = &inputs.at(nextInput++);
  }
  for (size_t id : p.order) {
    const DnfArray &a = p.arrays[id];
    u = units[id];
    // An f64 result computed from f32 data carries f32 rounding, also through an f64 temporary that
    // holds it (p.order is topological: the unit of what it reads is already known).
    std::function<void(const DExpr &)> coarsest = [&](const DExpr &n) {
      if (n.kind == DKind::Read)
        u = std::max(u, units[n.array]);
      if (n.kind == DKind::Float && n.literalType)
        u = std::max(u, unitRoundoff(*n.literalType));
      if (n.kind == DKind::Fused) { // the group's arithmetic, and what its score and weights read
        const FusedGroup &g = p.groups[n.group];
        u = std::max(u, unitRoundoff(g.elem));
        forEachNode(g.score, coarsest);
        for (const FusedMember &m : g.members)
          if (m.weight)
            forEachNode(m.weight, coarsest);
      }
    };
    if (a.body)
      forEachNode(a.body, coarsest);
    units[id] = u;
    tiny = tinyOf(u);
    size_t elements = 1;
    for (int64_t s : shapes[id])
      elements *= size_t(s);
    std::vector<Val> &out = stored[id];
    out.assign(elements, Val{});
    std::vector<int64_t> idx(shapes[id].size(), 0);
    const bool ragged = boundingShape(a.shape, a.index) != a.shape;
    for (size_t flat = 0; flat < elements && a.body; ++flat) {
      bool inside = true;
      for (size_t k = 0; k < idx.size(); ++k) {
        inside = inside && (!ragged || idx[k] < integer(a.shape[k])); // the earlier axes' indices are bound
        env[a.index[k].id()] = idx[k];
      }
      if (inside)
        out[flat] = eval(*a.body);
      if (isHalf(a.elem)) { // the store's rounding to nearest-even: at most u·|v|, or the least subnormal
        Val &x = out[flat];
        x.e += unitRoundoff(a.elem) * std::fabs(x.v) + halfTiny(a.elem);
        if (a.elem == ElemType::F16 && std::fabs(x.v) + x.e >= 65520) // it may round to ±inf
          x.e = kInf;
      }
      for (size_t k = idx.size(); k-- > 0;) {
        if (++idx[k] < shapes[id][k])
          break;
        idx[k] = 0;
      }
    }
    for (Symbol s : a.index)
      env.erase(s.id());
  }
  std::vector<OutputBounds> result;
  auto collect = [&](size_t id) {
    OutputBounds b;
    b.unit = units[id];
    if (isHalf(p.arrays[id].elem))
      b.storeUnit = unitRoundoff(p.arrays[id].elem);
    for (const Val &x : stored[id]) {
      b.error.push_back(x.e);
      b.magnitude.push_back(x.m);
      b.reordered.push_back(x.reordered);
      b.terms = std::max(b.terms, x.R);
      b.steps = std::max(b.steps, x.L);
    }
    result.push_back(std::move(b));
  };
  for (size_t id : p.outputs)
    collect(id);
  for (size_t id : p.updates)
    collect(id);
  return result;
}

} // namespace

double OutputBounds::normwise() const {
  return 2 * kLambda * unit * (std::sqrt(terms) + steps + 1) + 2 * storeUnit;
}


std::vector<OutputBounds> errorBounds(const DnfProgram &program, const DimValues &dims,
                                      const std::vector<NDArray> &inputs) {
  return BoundEvaluator(program, dims).run(inputs);
}

namespace {

// The reference's value as the array's element type holds it: an f32 output beyond FLT_MAX is ±inf.
double intoType(double r, ElemType elem) {
  if (elem != ElemType::F32 || !std::isfinite(r))
    return r;
  const double overflow = 0x1.ffffffp127; // halfway between FLT_MAX and 2^128
  return std::fabs(r) >= overflow ? std::copysign(kInf, r) : r;
}

bool identical(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// A 2-norm accumulated as scale·√sum with every term divided by the largest so far (LAPACK's dnrm2),
// so that elements beyond 1e154, whose squares overflow, still give a finite norm and ratio.
class ScaledNorm {
public:
  void add(double x) {
    x = std::fabs(x);
    if (x == 0)
      return;
    if (x > scale) {
      sum = 1 + sum * (scale / x) * (scale / x);
      scale = x;
    } else {
      sum += (x / scale) * (x / scale);
    }
  }
  bool zero() const { return scale == 0; }
  // ‖this‖ / ‖other‖, other nonzero
  double over(const ScaledNorm &other) const {
    if (scale == kInf || other.scale == kInf) // an element of |k − r| overflowed, or a magnitude
      return scale != kInf ? 0 : other.scale != kInf ? kInf : std::nan("");
    return scale / other.scale * std::sqrt(sum / other.sum);
  }

private:
  double scale = 0, sum = 0;
};

// Integers are exact in every target: an integer output (or an integer inout's storage) must equal the
// reference element for element.
Verdict compareIntegers(const NDArray &kernel, const NDArray &reference) {
  Verdict v;
  size_t differ = 0, first = 0;
  for (size_t j = kernel.ints.size(); j-- > 0;)
    if (kernel.ints[j] != reference.ints[j]) {
      ++differ;
      first = j;
    }
  v.ok = differ == 0;
  v.detail = differ == 0 ? fmt::format("exact: {} integers equal", kernel.ints.size())
                         : fmt::format("{} of {} integers differ; the first at element {}: {}, the reference {}", differ,
                                       kernel.ints.size(), first, kernel.ints[first], reference.ints[first]);
  return v;
}

} // namespace

Verdict compareWithBounds(const NDArray &kernel, const NDArray &reference, const OutputBounds &bounds,
                          ElemType elem) {
  Verdict v;
  if (kernel.data.size() != reference.data.size() || bounds.error.size() > reference.data.size()) {
    v.ok = false;
    v.detail = fmt::format("{} elements, the reference has {}", kernel.data.size(), reference.data.size());
    return v;
  }
  if (isInteger(elem) && kernel.ints.size() == kernel.data.size() && reference.ints.size() == reference.data.size())
    return compareIntegers(kernel, reference);
  size_t bounded = bounds.error.size(), badNonFinite = 0, badElements = 0, bothNaN = 0, changed = 0;
  size_t worstAt = 0, unbounded = 0, reorderedNonFinite = 0;
  double worstRatio = 0;
  ScaledNorm err, ref, mag; // |r| beyond 1e154 squares to inf
  for (size_t j = 0; j < reference.data.size(); ++j) {
    double k = kernel.data[j], r = intoType(reference.data[j], elem);
    if (j >= bounded) {
      changed += !identical(k, reference.data[j]);
      continue;
    }
    if ((!std::isfinite(r) || !std::isfinite(k)) && !identical(k, r) && bounds.reordered[j]) {
      ++reorderedNonFinite; // a reduction overflowed in one side's order: no value to compare
      continue;
    }
    if (!std::isfinite(r)) { // ±inf must be met exactly; NaN (an invalid operation) by NaN
      bool same = identical(k, r);
      badNonFinite += !same;
      bothNaN += same && std::isnan(r);
      continue;
    }
    if (!std::isfinite(k)) {
      ++badNonFinite;
      continue;
    }
    double d = std::fabs(k - r), allowed = 2 * bounds.error[j] + 2 * tinyOf(bounds.unit);
    unbounded += allowed == kInf;
    err.add(d);
    ref.add(r);
    mag.add(bounds.magnitude[j]);
    double ratio = d == 0 ? 0 : allowed == 0 ? kInf : d / allowed;
    if (ratio > worstRatio) {
      worstRatio = ratio;
      worstAt = j;
    }
    badElements += d > allowed;
  }
  double relative = err.zero() ? 0 : ref.zero() ? kInf : err.over(ref);
  // A relative error needs a nonzero reference: an empty or all-zero output (or one whose every element
  // is non-finite) is judged elementwise alone, and an exact one passes whatever its bound reads.
  double kappa = ref.zero() ? 1 : std::max(1.0, mag.over(ref));
  double normBound = bounds.normwise() * kappa;
  bool normOk = err.zero() || ref.zero() || relative <= normBound;
  v.ok = normOk && badElements == 0 && badNonFinite == 0 && changed == 0;
  v.detail = fmt::format("‖k−r‖₂/‖r‖₂ = {:.3g} (bound {:.3g} = 2·λ·ε·(√{:g} + {:g} + 1)·κ, κ = {:.3g}), max |k−r|/bound = {:.3g}",
                         relative, normBound, bounds.terms, bounds.steps, kappa, worstRatio);
  if (worstRatio > 0)
    v.detail += fmt::format(" at element {}", worstAt);
  if (unbounded) // an intermediate may overflow, or an error is amplified beyond measure (exp of a large error)
    v.detail += fmt::format("; {} element(s) without an elementwise bound", unbounded);
  if (badElements)
    v.detail += fmt::format("; {} element(s) beyond their bound", badElements);
  if (badNonFinite)
    v.detail += fmt::format("; {} element(s) NaN, ±inf or unwritten where the reference differs", badNonFinite);
  if (reorderedNonFinite)
    v.detail += fmt::format("; {} element(s) non-finite on one side only, where a reduction overflows in one "
                            "order of its terms and not in another: not compared", reorderedNonFinite);
  if (bothNaN)
    v.detail += fmt::format("; {} element(s) NaN in both (an invalid operation in the reference too)", bothNaN);
  if (bounded < reference.data.size())
    v.detail += fmt::format("; elements {}… left unchanged: {}", bounded, changed == 0 ? "bit-identical" : "CHANGED");
  return v;
}

} // namespace moac
