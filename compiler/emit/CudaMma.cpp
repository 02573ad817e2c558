// Tensor-core tiles (CudaPrinter.h; docs/schedule.md, "Tensor-core tiles"): a pipelined row loop of a packed split
// pass whose score is a dot product of an invariant row (q's, one per packed value) with a moving half-precision
// row (K's), and whose weighted sum adds a weight times a moving half-precision row (V's), runs sixteen rows at a
// time on the tensor cores, each 16 × 8 × 16 product one mma.sync:
//   - S = Q·Kᵀ: the warp's packed values are the rows of Q (sixteen, the dead ones zero), 8 rows of K the
//     columns; the dot product's feature order is permuted so that each lane's operands are its own 16-byte
//     loads (a sum does not depend on the order of its terms: lane c loads features 32t + 8c … + 7);
//   - the statements between score and sums run on each score the lane holds (two per value and 8 rows),
//     except the running maximum: `next = max(m, e)` takes the maximum of the sixteen rows at once (the
//     online-softmax monoid holds for any maximum at least the running one, psi/Fuse.h), so the rescaling test
//     runs once a tile and the weights of a tile share one maximum;
//   - Oᵀ += Vᵀ·Pᵀ: the weights, in the layout the scores' accumulators have, are the right operand as they are,
//     split into a rounded part and the rounding's remainder (two products: 16 bits of each f32 weight); V's
//     rows, paired across rows, are the left operand, its columns permuted so that each lane loads 32
//     contiguous bytes a row.
// The held registers of the weighted sum and the scalars the loop carries are moved into this layout before the
// loop and back after it, so the statements after the loop see what the other paths leave.
#include "CudaPrinter.h"

#include <functional>

namespace moac {

namespace {

constexpr const char *fullMask = "0xffffffffu";
const char *const component[4] = {"x", "y", "z", "w"};

bool loads(const LExprPtr &e) {
  if (e->kind == LExprKind::Load)
    return true;
  for (const LExprPtr &a : e->args)
    if (loads(a))
      return true;
  return false;
}
bool dependsOn(const LExprPtr &e, Symbol s) {
  if ((e->kind == LExprKind::Var && e->var == s) || (e->kind == LExprKind::Int && e->intValue.dependsOn(s)) ||
      (e->kind == LExprKind::Load && e->offset.dependsOn(s)) ||
      (e->kind == LExprKind::Select && (e->lhs.dependsOn(s) || e->rhs.dependsOn(s))))
    return true;
  for (const LExprPtr &a : e->args)
    if (dependsOn(a, s))
      return true;
  return false;
}
void varsOf(const LExprPtr &e, std::set<Symbol> &out) {
  if (e->kind == LExprKind::Var)
    out.insert(e->var);
  for (const LExprPtr &a : e->args)
    varsOf(a, out);
}
bool isVar(const LExprPtr &e, Symbol s) { return e->kind == LExprKind::Var && e->var == s; }

} // namespace

// The plan of a tiled row loop, or none where its statements are not of the
// shape the tiles compute.
std::optional<CudaPrinter::MmaPlan> CudaPrinter::mmaPlan(const LStmt &loop,
                                                         const std::vector<PipeStream> &streams) const {
  if (!tiles || !packed || lanes > 8 || combine || loop.step != SymExpr(1))
    return std::nullopt;
  MmaPlan p;
  const std::vector<LStmt> *body = &loop.body;
  // the guards on the index around the statements (`l < n`): rows past them are
  // masked
  while (body->size() == 1 && (*body)[0].kind == LStmt::If && !(*body)[0].value && (*body)[0].orElse.empty()) {
    const LStmt &g = (*body)[0];
    std::optional<int64_t> c = (g.lhs - SymExpr::symbol(loop.var)).constant();
    if (!c || g.rhs.dependsOn(loop.var))
      return std::nullopt;
    p.bounds.push_back(g.rhs - SymExpr(*c));
    body = &g.body;
  }
  p.body = body;
  // a lane loop of one statement whose access moves by one element an iteration
  // from offset base + var
  auto along = [&](const SymExpr &offset, Symbol var, SymExpr &base) {
    SymExpr rest = offset - SymExpr::symbol(var);
    if (rest.dependsOn(var))
      return false;
    base = rest;
    return true;
  };
  auto streamOf = [&](size_t buffer, const SymExpr &base, bool moves) -> const PipeStream * {
    for (const PipeStream &st : streams)
      if (st.buffer == buffer && st.base == base && st.moves == moves)
        return &st;
    return nullptr;
  };
  std::set<Symbol> declared; // scalars the body declares
  // the rescaling's sums (s = s * factor) and lane loops (o = o * factor): each must be one the loop carries
  std::set<Symbol> scaled;
  std::vector<const LStmt *> rescaled;
  bool sawNext = false;
  for (const LStmt &s : *body) {
    switch (s.kind) {
    case LStmt::Decl: {
      declared.insert(s.scalar);
      if (s.type != ElemType::F32 || loads(s.value))
        return std::nullopt;
      if (!p.dot && s.value->kind == LExprKind::Float && s.value->floatValue == 0) {
        p.acc = s.scalar; // the dot product's accumulator, its loop next
        continue;
      }
      const LExprPtr &v = s.value;
      if (!sawNext && v->kind == LExprKind::Binary && v->op == BinOp::Max) {
        const LExprPtr &a = v->args[0], &b = v->args[1];
        for (auto [run, score] : {std::pair{a, b}, std::pair{b, a}})
          if (run->kind == LExprKind::Var && score->kind == LExprKind::Var && p.perElement.count(score->var) &&
              !declared.count(run->var)) {
            p.max = run->var, p.score = score->var, p.next = s.scalar, sawNext = true;
            break;
          }
        if (sawNext) {
          p.perSlot.insert(s.scalar);
          continue;
        }
      }
      bool element = readsVar(v, p.perElement) || dependsOn(v, loop.var);
      (element ? p.perElement : p.perSlot).insert(s.scalar);
      break;
    }
    case LStmt::Loop: {
      if (s.body.size() != 1 || s.start != SymExpr(0) || s.end.dependsOn(loop.var))
        return std::nullopt;
      const LStmt &x = s.body[0];
      if (!p.dot) { // acc += a[base + f] * b[base' + f]
        if (x.kind != LStmt::Accumulate || x.scalar != p.acc || x.op != BinOp::Add ||
            x.value->kind != LExprKind::Binary || x.value->op != BinOp::Mul)
          return std::nullopt;
        const LExprPtr &l = x.value->args[0], &r = x.value->args[1];
        if (l->kind != LExprKind::Load || r->kind != LExprKind::Load)
          return std::nullopt;
        SymExpr lb, rb;
        if (!along(l->offset, s.var, lb) || !along(r->offset, s.var, rb))
          return std::nullopt;
        const bool lMoves = lb.dependsOn(loop.var), rMoves = rb.dependsOn(loop.var);
        if (lMoves == rMoves)
          return std::nullopt;
        p.query = streamOf(lMoves ? r->buffer : l->buffer, lMoves ? rb : lb, false);
        p.keys = streamOf(lMoves ? l->buffer : r->buffer, lMoves ? lb : rb, true);
        if (!p.query || !p.keys)
          return std::nullopt;
        p.dot = &s;
        p.perElement.insert(p.acc);
        continue;
      }
      // o = o + weight * v[base + k], o held
      if (p.weighted || x.kind != LStmt::Store || x.value->kind != LExprKind::Binary || x.value->op != BinOp::Add)
        return std::nullopt;
      SymExpr ob;
      if (!along(x.offset, s.var, ob) || !held.count({x.buffer, ob}))
        return std::nullopt;
      for (int side = 0; side < 2 && !p.weighted; ++side) {
        const LExprPtr &o = x.value->args[size_t(side)], &term = x.value->args[size_t(1 - side)];
        if (o->kind != LExprKind::Load || o->buffer != x.buffer || o->offset != x.offset ||
            term->kind != LExprKind::Binary || term->op != BinOp::Mul)
          continue;
        for (int f = 0; f < 2; ++f) {
          const LExprPtr &w = term->args[size_t(f)], &v = term->args[size_t(1 - f)];
          SymExpr vb;
          if (v->kind != LExprKind::Load || loads(w) || !along(v->offset, s.var, vb) || !vb.dependsOn(loop.var))
            continue;
          p.values = streamOf(v->buffer, vb, true);
          if (!p.values)
            continue;
          p.weighted = &s, p.weight = w, p.sum = {x.buffer, ob};
          break;
        }
      }
      if (!p.weighted)
        return std::nullopt;
      break;
    }
    case LStmt::Assign:
      if (s.type != ElemType::F32 || declared.count(s.scalar))
        return std::nullopt;
      if (s.scalar == p.max && sawNext && isVar(s.value, p.next))
        break; // m = next
      // (a term of a row's score: one the statements compute for each score)
      if (s.value->kind == LExprKind::Binary && s.value->op == BinOp::Add && !loads(s.value) &&
          readsVar(s.value, p.perElement) &&
          ((isVar(s.value->args[0], s.scalar) && !dependsOn(s.value->args[1], s.scalar)) ||
           (isVar(s.value->args[1], s.scalar) && !dependsOn(s.value->args[0], s.scalar)))) {
        p.sums.insert(s.scalar); // s = s + x: each lane sums its rows, the
                                 // quad's sums added after the loop
        break;
      }
      return std::nullopt;
    case LStmt::If: {
      // the rescaling where the maximum moved: statements of a value, each
      // applied to its sums and held registers (s = s * factor; o = o * factor)
      if (!s.value || !s.onlySaves || !s.orElse.empty() || readsVar(s.value, p.perElement))
        return std::nullopt;
      p.rescaling = &s;
      for (const LStmt &x : s.body) {
        if (x.kind == LStmt::Decl && x.type == ElemType::F32 && !loads(x.value) && !readsVar(x.value, p.perElement)) {
          declared.insert(x.scalar);
          p.perSlot.insert(x.scalar);
        } else if (x.kind == LStmt::Assign && x.type == ElemType::F32 && x.value->kind == LExprKind::Binary &&
                   x.value->op == BinOp::Mul && !loads(x.value) && !readsVar(x.value, p.perElement) &&
                   (isVar(x.value->args[0], x.scalar) || isVar(x.value->args[1], x.scalar))) {
          scaled.insert(x.scalar);
        } else if (x.kind == LStmt::Loop && x.body.size() == 1 && x.start == SymExpr(0) &&
                   x.body[0].kind == LStmt::Store) {
          const LStmt &st = x.body[0];
          SymExpr ob;
          if (!along(st.offset, x.var, ob) || !held.count({st.buffer, ob}) || readsVar(st.value, p.perElement))
            return std::nullopt;
          bool onlyItself = true; // its one load is the element it stores
          std::function<void(const LExprPtr &)> walk = [&](const LExprPtr &e) {
            if (e->kind == LExprKind::Load)
              onlyItself &= e->buffer == st.buffer && e->offset == st.offset;
            for (const LExprPtr &a : e->args)
              walk(a);
          };
          walk(st.value);
          if (!onlyItself)
            return std::nullopt;
          rescaled.push_back(&x);
        } else {
          return std::nullopt;
        }
      }
      break;
    }
    default:
      return std::nullopt;
    }
  }
  if (!p.dot || !p.weighted || !sawNext)
    return std::nullopt;
  for (const LStmt *x : rescaled)
    if (x->body[0].buffer != p.sum.first)
      return std::nullopt;
  for (Symbol s : scaled)
    if (!p.sums.count(s))
      return std::nullopt;
  // the tensor cores' types: K and V bf16 or f16; q K's type, or f32 where K is
  // bf16 (three bf16 parts)
  const ElemType kt = k.buffers[p.keys->buffer].elem, vt = k.buffers[p.values->buffer].elem,
                 qt = k.buffers[p.query->buffer].elem;
  if (!isHalf(kt) || !isHalf(vt) || !(qt == kt || (qt == ElemType::F32 && kt == ElemType::BF16)))
    return std::nullopt;
  // a scalar from before the loop that the statements read is the warp's, not
  // one packed value's
  std::set<Symbol> read;
  std::function<void(const std::vector<LStmt> &)> collect = [&](const std::vector<LStmt> &b) {
    for (const LStmt &s : b) {
      if (s.value)
        varsOf(s.value, read);
      collect(s.body);
    }
  };
  collect(*body);
  for (Symbol s : read) {
    if (declared.count(s) || s == p.max || p.sums.count(s) || s == p.acc)
      continue;
    if (!warpUniform(s))
      return std::nullopt;
  }
  return p;
}

// Whether a scalar declared among the warp's statements before its loops has
// the same value for every packed value: it reads no array and no packed index,
// nor a scalar that does.
bool CudaPrinter::warpUniform(Symbol s) const {
  for (const LStmt &d : *warpBody) {
    if (d.kind != LStmt::Decl || d.scalar != s)
      continue;
    if (loads(d.value) || dependsOn(d.value, packedVar))
      return false;
    std::set<Symbol> inner;
    varsOf(d.value, inner);
    for (Symbol x : inner)
      if (x == s || !warpUniform(x))
        return false;
    return true;
  }
  return false;
}

// Prints `const bool moa_mma{n} = …; if (moa_mma{n}) { tiled loop } else` and
// returns true, or prints nothing and returns false (the pipelined loop then
// runs alone).
bool CudaPrinter::mmaTiles(const LStmt &loop, ElemType t, int n, const std::vector<PipeStream> &streams) {
  std::optional<MmaPlan> plan = mmaPlan(loop, streams);
  if (!plan || t != ElemType::F32)
    return false;
  const MmaPlan &p = *plan;
  const int pack = 32 / lanes, slots = pack > 8 ? 2 : 1;
  const ElemType kt = k.buffers[p.keys->buffer].elem, vt = k.buffers[p.values->buffer].elem,
                 qt = k.buffers[p.query->buffer].elem;
  const int qParts = qt == ElemType::F32 ? 3 : 1;
  const std::string kMma = kt == ElemType::BF16 ? "moart_cuda_mma_bf16" : "moart_cuda_mma_f16";
  const std::string vMma = vt == ElemType::BF16 ? "moart_cuda_mma_bf16" : "moart_cuda_mma_f16";
  const std::string vSplit = vt == ElemType::BF16 ? "moart_cuda_split_bf16x2" : "moart_cuda_split_f16x2";
  auto at = [&](const PipeStream &st) { return integer(st.base.substitute({{loop.var, loop.start}})); };
  const std::string dk = integer(p.dot->end), dv = integer(p.weighted->end);
  const std::string kStep = integer(p.keys->step), vStep = integer(p.values->step);
  const std::string K = cn.buffer(p.keys->buffer), V = cn.buffer(p.values->buffer), Q = cn.buffer(p.query->buffer);
  auto N = [&](const std::string &what) { return fmt::format("moa_{}{}", what, n); };

  // the run-time test: the pipelined path's, 16-byte aligned rows, every live
  // value on the same rows of K and V
  line(fmt::format("const int64_t {} = {};", N("tk"), at(*p.keys)));
  line(fmt::format("const int64_t {} = {};", N("tv"), at(*p.values)));
  line(fmt::format("const int64_t {} = {};", N("tq"), at(*p.query)));
  const int qAlign = qt == ElemType::F32 ? 3 : 7;
  // (the shuffles and the vote before any test: every lane of the warp takes
  // part in each)
  line(fmt::format("const int64_t {0}_0 = __shfl_sync({1}, {0}, 0), {2}_0 = "
                   "__shfl_sync({1}, {2}, 0);",
                   N("tk"), fullMask, N("tv")));
  std::vector<std::string> tests{fmt::format("MOART_CUDA_MMA && moa_pipe{}", n)};
  for (const std::string &b : {K, V, Q})
    tests.push_back(fmt::format("((uintptr_t){} & 15u) == 0", b));
  for (const std::string &e : {kStep, vStep, dk, dv})
    tests.push_back(fmt::format("(({}) & 7) == 0", e));
  tests.push_back(fmt::format("(!moa_live || ({0} == {0}_0 && {1} == {1}_0 && "
                              "({0} & 7) == 0 && ({1} & 7) == 0 && "
                              "({2} & {3}) == 0))",
                              N("tk"), N("tv"), N("tq"), qAlign));
  line(fmt::format("const bool {} = __all_sync({}, {});", N("mma"), fullMask, fmt::join(tests, " && ")));
  line(fmt::format("if ({}) {{", N("mma")));
  const bool wasLocated = locate;
  locate = false;

  // the lane's place in the tiles: row group r (a value of the pack, and a row
  // of K), column pair c
  const std::string R = N("gr"), C = N("gc"), X = N("x");
  line(fmt::format("const int {} = (int)((threadIdx.x & 31u) >> 2), {} = "
                   "(int)(threadIdx.x & 3u);",
                   R, C));
  line(fmt::format("__shared__ float4 {}[{}]; /* each warp's values' rows of "
                   "the weighted sum, moved between layouts */",
                   N("xs"), 4 * pack * 32));
  line(fmt::format("float *{} = (float *)&{}[(threadIdx.x >> 5) * {}];", X, N("xs"), pack * 32));
  // the held registers into the tiles' accumulators: lane (r, c) holds value
  // r's columns 32c … 32c + 31 (the n-tile u's columns 32c + u and 32c + 16 +
  // u), value r + 8's in the other two
  const Held &h = held.at(p.sum);
  for (int g = 0; g < groups(); ++g)
    line(fmt::format("*(float4 *)&{}[moa_pack * 128 + {}] = {};", X, groupStart(g), h.regs[size_t(g)]));
  line("__syncwarp();");
  // the weighted sum is accumulated transposed, Oᵀ = Vᵀ·Pᵀ: o's columns are the
  // products' sixteen rows (m-tile mt: columns 16r + 2mt and 16r + 2mt + 1 of
  // lane (r, c)) and the heads their eight columns (heads 2c and 2c + 1, + 8 in
  // the second n-tile): lane (r, c) holds heads 2c, 2c + 1 at columns 16r … 16r
  // + 15
  auto acc = [&](int hs, int mt) { return fmt::format("moa_o{}_{}_{}", n, hs, mt); };
  auto slotLive = [&](int slot) { return fmt::format("{} + {} < {}", R, 8 * slot, pack); };
  auto headOf = [&](int hs, int k4) { return fmt::format("2 * {} + {}", C, 8 * hs + k4 % 2); };
  auto colOf = [&](int mt, int k4) { return fmt::format("16 * {} + {}", R, 2 * mt + k4 / 2); };
  for (int hs = 0; hs < slots; ++hs)
    for (int mt = 0; mt < 8; ++mt) {
      std::vector<std::string> parts;
      for (int k4 = 0; k4 < 4; ++k4)
        parts.push_back(
            fmt::format("{0} < {1} ? {2}[({0}) * 128 + {3}] : 0.0f", headOf(hs, k4), pack, X, colOf(mt, k4)));
      line(fmt::format("float4 {} = make_float4({});", acc(hs, mt), fmt::join(parts, ", ")));
    }
  line("__syncwarp();");
  // the scalars the loop carries, for value r (+ 8): the maximum as it is, each
  // sum on the quad's first lane
  auto slotName = [&](Symbol s, int slot) { return fmt::format("moa_{}_{}", cn.symbol(s), slot); };
  std::vector<Symbol> carried{p.max};
  carried.insert(carried.end(), p.sums.begin(), p.sums.end());
  for (Symbol s : carried)
    for (int slot = 0; slot < slots; ++slot) {
      line(fmt::format("float {} = __shfl_sync({}, {}, ({} + {}) * {});", slotName(s, slot), fullMask, cn.symbol(s), R,
                       8 * slot, lanes));
      if (s != p.max)
        line(fmt::format("if ({} != 0) {} = 0.0f;", C, slotName(s, slot)));
    }
  // q's rows: value r's (+ 8), dead ones zero; lane c's features 32t + 8c … +
  // 7, in qParts parts
  for (int t4 = 0; t4 < 4; ++t4)
    line(fmt::format("const bool {}_{} = 32 * {} + 8 * {} < {};", N("kc"), t4, t4, C, dk));
  for (int slot = 0; slot < slots; ++slot) {
    line(fmt::format("const int64_t {}_{} = __shfl_sync({}, {}, ({} + {}) * {});", N("qa"), slot, fullMask, N("tq"), R,
                     8 * slot, lanes));
    // (every lane shuffles: a shuffle that some lanes skip is undefined)
    line(fmt::format("const bool {}_{} = __shfl_sync({}, (int)moa_live, ({} + "
                     "{}) * {}) && {};",
                     N("ql"), slot, fullMask, R, 8 * slot, lanes, slotLive(slot)));
    for (int t4 = 0; t4 < 4; ++t4) {
      std::string ok = fmt::format("{}_{} && {}_{}", N("ql"), slot, N("kc"), t4);
      std::string first = fmt::format("{}_{} + {} + 8 * {}", N("qa"), slot, 32 * t4, C);
      auto reg = [&](int part) { return fmt::format("moa_q{}_{}_{}_{}", n, slot, t4, part); };
      if (qParts == 1) {
        line(fmt::format("uint4 {} = make_uint4(0u, 0u, 0u, 0u);", reg(0)));
        line(fmt::format("if ({}) {} = *(const uint4 *)&{}[{}];", ok, reg(0), Q, first));
      } else {
        line(fmt::format("uint4 {}, {}, {};", reg(0), reg(1), reg(2)));
        line("{");
        line("float4 moa_a = make_float4(0.0f, 0.0f, 0.0f, 0.0f), moa_b = "
             "moa_a;");
        line(fmt::format("if ({}) {{", ok));
        line(fmt::format("moa_a = *(const float4 *)&{}[{}];", Q, first));
        line(fmt::format("moa_b = *(const float4 *)&{}[{} + 4];", Q, first));
        line("}");
        line(fmt::format("moart_cuda_split_bf16x8(moa_a, moa_b, &{}, &{}, &{});", reg(0), reg(1), reg(2)));
        line("}");
      }
    }
  }
  // the scores' left operands, q's rows as a product takes them (value r: a0 a1, a4 a5; value r + 8: a2 a3,
  // a6 a7), made once before the loop where q has one part (each a tile would be register moves)
  auto qMade = [&](int t4, int h2, int part) {
    auto q = [&](int slot, int word) {
      return slot < slots ? fmt::format("moa_q{}_{}_{}_{}.{}", n, slot, t4, part, component[word]) : "0u";
    };
    return fmt::format("make_uint4({}, {}, {}, {})", q(0, 2 * h2), q(1, 2 * h2), q(0, 2 * h2 + 1), q(1, 2 * h2 + 1));
  };
  auto qOperand = [&](int t4, int h2, int part) {
    return qParts == 1 ? fmt::format("moa_qa{}_{}_{}", n, t4, h2) : qMade(t4, h2, part);
  };
  if (qParts == 1)
    for (int t4 = 0; t4 < 4; ++t4)
      for (int h2 = 0; h2 < 2; ++h2)
        line(fmt::format("const uint4 moa_qa{}_{}_{} = {};", n, t4, h2, qMade(t4, h2, 0)));
  // the rows' pointers: K's row r (+ 8) at features 8c …; V's rows 2c, 2c + 1,
  // 2c + 8, 2c + 9 at columns 16r …
  line(fmt::format("const auto *{} = &{}[{}_0 + (int64_t){} * {} + 8 * {}];", N("kp"), K, N("tk"), R, kStep, C));
  line(fmt::format("const auto *{} = &{}[{}_0 + (int64_t)(2 * {}) * {} + 16 * {}];", N("vp"), V, N("tv"), C, vStep, R));
  for (int h2 = 0; h2 < 2; ++h2)
    line(fmt::format("const bool {}_{} = 16 * {} + {} < {};", N("vc"), h2, R, 8 * h2, dv));
  // the end: the loop's, and its guards' bounds
  std::string stopAt = integer(loop.end);
  for (const SymExpr &b : p.bounds)
    stopAt = fmt::format("moart_mini({}, {})", stopAt, integer(b));
  const std::string stopName = N("ms");
  std::string row; // the first row of the tile being printed
  line(fmt::format("const int64_t {} = {};", stopName, stopAt));
  // a tile's registers, zero once: a lane's features or columns past dk or dv
  // are never loaded (a second tile's registers, loaded while the first
  // computes, were slower: 255 registers and spills, bench/cuda/NOTES.md #49)
  const int vRows[4] = {0, 1, 8, 9};
  const int b = 0;
  for (int nt = 0; nt < 2; ++nt)
    for (int t4 = 0; t4 < 4; ++t4)
      line(fmt::format("uint4 moa_k{}_{}_{}_{} = make_uint4(0u, 0u, 0u, 0u);", n, b, nt, t4));
  for (int q = 0; q < 4; ++q)
    for (int h2 = 0; h2 < 2; ++h2)
      line(fmt::format("uint4 moa_v{}_{}_{}_{} = make_uint4(0u, 0u, 0u, 0u);", n, b, q, h2));
  // the tiles whose sixteen rows are all in the split, then the one cut by its
  // end (tail): only the tail tests its rows, zeroes the registers of rows past
  // the end and scores them −∞
  auto tileBody = [&](bool tail) {
    // a tile's loads, all issued before any is used
    auto rowTest = [&](const std::string &test, const std::vector<std::string> &regs,
                       const std::function<void()> &loads) {
      if (!tail)
        return loads();
      line(fmt::format("if ({}) {{", test));
      loads();
      line("} else {");
      for (const std::string &r : regs)
        line(fmt::format("{} = make_uint4(0u, 0u, 0u, 0u);", r));
      line("}");
    };
    for (int nt = 0; nt < 2; ++nt) {
      std::vector<std::string> regs;
      for (int t4 = 0; t4 < 4; ++t4)
        regs.push_back(fmt::format("moa_k{}_{}_{}_{}", n, b, nt, t4));
      rowTest(fmt::format("{} + {} + {} < {}", row, 8 * nt, R, stopName), regs, [&] {
        for (int t4 = 0; t4 < 4; ++t4)
          line(fmt::format("if ({}_{}) {} = *(const uint4 *)&{}[{}{}];", N("kc"), t4, regs[size_t(t4)], N("kp"),
                           nt ? fmt::format("8 * ({}) + ", kStep) : "", 32 * t4));
      });
    }
    for (int q = 0; q < 4; ++q) {
      std::vector<std::string> regs;
      for (int h2 = 0; h2 < 2; ++h2)
        regs.push_back(fmt::format("moa_v{}_{}_{}_{}", n, b, q, h2));
      rowTest(fmt::format("{} + 2 * {} + {} < {}", row, C, vRows[q], stopName), regs, [&] {
        for (int h2 = 0; h2 < 2; ++h2)
          line(fmt::format("if ({}_{}) {} = *(const uint4 *)&{}[{}{}];", N("vc"), h2, regs[size_t(h2)], N("vp"),
                           vRows[q] ? fmt::format("{} * ({}) + ", vRows[q], vStep) : "", 8 * h2));
      });
    }
    line(fmt::format("{} += 16 * ({});", N("kp"), kStep));
    line(fmt::format("{} += 16 * ({});", N("vp"), vStep));
    // the scores: n-tile nt holds rows 8nt + 2c, + 1 of value r (x, y) and r +
    // 8 (z, w)
    auto score = [&](int nt) { return fmt::format("moa_s{}_{}", n, nt); };
    for (int nt = 0; nt < 2; ++nt)
      line(fmt::format("float4 {} = make_float4(0.0f, 0.0f, 0.0f, 0.0f);", score(nt)));
    for (int t4 = 0; t4 < 4; ++t4) {
      if (t4)
        line(fmt::format("if ({} < {}) {{", 32 * t4, dk));
      for (int h2 = 0; h2 < 2; ++h2)
        for (int part = 0; part < qParts; ++part) {
          std::string a = qOperand(t4, h2, part);
          for (int nt = 0; nt < 2; ++nt)
            line(fmt::format("{}(&{}, {}, make_uint2(moa_k{}_{}_{}_{}.{}, "
                             "moa_k{}_{}_{}_{}.{}));",
                             kMma, score(nt), a, n, b, nt, t4, component[2 * h2], n, b, nt, t4, component[2 * h2 + 1]));
        }
      if (t4)
        line("}");
    }
    // the statements, on each score of the lane (element {slot}{nt}{half}: row
    // 8nt + 2c + half of value r + 8·slot)
    auto elementName = [&](Symbol s, int slot, int nt, int half) {
      return fmt::format("moa_{}_{}{}{}", cn.symbol(s), slot, nt, half);
    };
    auto rowOf = [&](int nt, int half) { return fmt::format("{} + {} + 2 * {}", row, 8 * nt + half, C); };
    std::vector<std::tuple<int, int, int>> elements;
    for (int slot = 0; slot < slots; ++slot)
      for (int nt = 0; nt < 2; ++nt)
        for (int half = 0; half < 2; ++half)
          elements.push_back({slot, nt, half});
    auto forElement = [&](int slot, int nt, int half) {
      renamed.clear();
      for (Symbol s : p.perElement)
        renamed[s] = elementName(s, slot, nt, half);
      for (Symbol s : p.perSlot)
        renamed[s] = slotName(s, slot);
      for (Symbol s : carried)
        renamed[s] = slotName(s, slot);
      renamed[p.acc] = fmt::format("{}.{}", score(nt), component[2 * slot + half]);
      renamed[loop.var] = fmt::format("moa_row{}_{}{}{}", n, slot, nt, half);
    };
    auto forSlot = [&](int slot) {
      renamed.clear();
      for (Symbol s : p.perSlot)
        renamed[s] = slotName(s, slot);
      for (Symbol s : carried)
        renamed[s] = slotName(s, slot);
    };
    bool rowsDeclared = false;
    auto needRows = [&](const LExprPtr &e) {
      if (rowsDeclared || !dependsOn(e, loop.var))
        return;
      for (auto [slot, nt, half] : elements)
        line(fmt::format("const int64_t moa_row{}_{}{}{} = {};", n, slot, nt, half, rowOf(nt, half)));
      rowsDeclared = true;
    };
    for (const LStmt &s : *p.body) {
      if (&s == p.dot || (s.kind == LStmt::Decl && s.scalar == p.acc))
        continue;
      if (s.kind == LStmt::Decl && s.scalar == p.next) {
        // rows past the end score −∞ (weight 0); the tile's maximum, for each
        // value
        if (tail)
          for (auto [slot, nt, half] : elements)
            line(fmt::format("if ({} >= {}) {} = -INFINITY;", rowOf(nt, half), stopName,
                             elementName(p.score, slot, nt, half)));
        for (int slot = 0; slot < slots; ++slot) {
          std::string m = N("tm") + "_" + std::to_string(slot);
          line(fmt::format("float {} = moart_maxf(moart_maxf({}, {}), moart_maxf({}, {}));", m,
                           elementName(p.score, slot, 0, 0), elementName(p.score, slot, 0, 1),
                           elementName(p.score, slot, 1, 0), elementName(p.score, slot, 1, 1)));
          for (int x = 1; x < 4; x *= 2)
            line(fmt::format("{0} = moart_maxf({0}, __shfl_xor_sync({1}, {0}, {2}));", m, fullMask, x));
          forSlot(slot);
          renamed[p.score] = m;
          stmt(s, t);
        }
        continue;
      }
      // a score's statements (and a sum's term, s = s + x, into the lane's part of s): once an element
      // (in the cut tile a row past the split's end adds nothing, as the loop IR's guard `l < n` skips it)
      if ((s.kind == LStmt::Decl && p.perElement.count(s.scalar)) || (s.kind == LStmt::Assign && p.sums.count(s.scalar))) {
        needRows(s.value);
        for (auto [slot, nt, half] : elements) {
          forElement(slot, nt, half);
          if (tail && s.kind == LStmt::Assign)
            line(fmt::format("if ({} < {})", rowOf(nt, half), stopName));
          stmt(s, t);
        }
        continue;
      }
      if (s.kind == LStmt::Decl || s.kind == LStmt::Assign) { // of the value: once a slot
        for (int slot = 0; slot < slots; ++slot) {
          forSlot(slot);
          stmt(s, t);
        }
        continue;
      }
      if (&s == p.rescaling) {
        std::vector<std::string> moved;
        for (int slot = 0; slot < slots; ++slot) {
          forSlot(slot);
          moved.push_back(asType(s.value, ElemType::Int));
        }
        line(fmt::format("if (__any_sync({}, {})) {{", fullMask, fmt::join(moved, " || ")));
        for (int slot = 0; slot < slots; ++slot) {
          forSlot(slot);
          for (const LStmt &x : s.body) {
            if (x.kind != LStmt::Loop) {
              stmt(x, t);
              continue;
            }
            // the heads' scalars of the statement, from the lanes that hold
            // them (head 2c + e: lane 4(2c + e))
            const LStmt &st = x.body[0];
            std::set<Symbol> used;
            varsOf(st.value, used);
            std::map<Symbol, std::string> headScalar[2];
            for (Symbol v : used)
              for (int e = 0; e < 2; ++e) {
                headScalar[e][v] = fmt::format("moa_{}_h{}{}", cn.symbol(v), slot, e);
                line(fmt::format("const float {} = __shfl_sync({}, {}, 4 * (2 * {} + {}));", headScalar[e][v], fullMask,
                                 name(v), C, e));
              }
            for (int mt = 0; mt < 8; ++mt)
              for (int k4 = 0; k4 < 4; ++k4) {
                std::string reg = fmt::format("{}.{}", acc(slot, mt), component[k4]);
                auto saved = renamed;
                for (const auto &[v, text] : headScalar[k4 % 2])
                  renamed[v] = text;
                registers[{st.buffer, st.offset}] = reg;
                line(fmt::format("{} = {};", reg, asType(st.value, ElemType::F32)));
                registers.erase({st.buffer, st.offset});
                renamed = saved;
              }
          }
        }
        line("}");
        continue;
      }
      if (&s == p.weighted) {
        // the weights as the left operand: rows 2c, 2c + 1 of n-tile 0 (a0 a1,
        // value r; a2 a3, value r + 8), then of n-tile 1 (a4 … a7); each weight
        // a rounded part and its remainder
        needRows(p.weight);
        for (auto [slot, nt, half] : elements) {
          forElement(slot, nt, half);
          // (a row past the split's end weighs nothing, whatever the weight's expression gives there)
          std::string weight = asType(p.weight, ElemType::F32);
          if (tail)
            weight = fmt::format("{} < {} ? {} : 0.0f", rowOf(nt, half), stopName, weight);
          line(fmt::format("const float moa_w{}_{}{}{} = {};", n, slot, nt, half, weight));
        }
        for (int slot = 0; slot < slots; ++slot)
          for (int nt = 0; nt < 2; ++nt) {
            line(fmt::format("uint32_t moa_pa{0}_{1}{2}, moa_pb{0}_{1}{2};", n, slot, nt));
            line(fmt::format("{}(moa_w{}_{}{}0, moa_w{}_{}{}1, &moa_pa{}_{}{}, "
                             "&moa_pb{}_{}{});",
                             vSplit, n, slot, nt, n, slot, nt, n, slot, nt, n, slot, nt));
          }
        // Vᵀ as the left operand of m-tile mt: columns 16r + 2mt (a0 a1: rows
        // 2c, 2c + 1; a4 a5: rows 2c + 8, 2c + 9) and 16r + 2mt + 1 (a2 a3, a6
        // a7), paired across rows; the weights (Pᵀ) as the right operand are
        // the scores' accumulators as they lie: rows 2c, 2c + 1 (b0 b1) and 2c
        // + 8, 2c + 9 (b2 b3) of head r
        for (int mt = 0; mt < 8; ++mt) {
          const int h2 = mt / 4;
          const char *w = component[mt % 4];
          line(fmt::format("{{ const uint4 moa_a = "
                           "make_uint4(__byte_perm(moa_v{0}_{1}_0_{2}.{3}, "
                           "moa_v{0}_{1}_1_{2}.{3}, "
                           "0x5410), __byte_perm(moa_v{0}_{1}_0_{2}.{3}, "
                           "moa_v{0}_{1}_1_{2}.{3}, 0x7632), "
                           "__byte_perm(moa_v{0}_{1}_2_{2}.{3}, "
                           "moa_v{0}_{1}_3_{2}.{3}, 0x5410), "
                           "__byte_perm(moa_v{0}_{1}_2_{2}.{3}, "
                           "moa_v{0}_{1}_3_{2}.{3}, 0x7632));",
                           n, b, h2, w));
          for (int hs = 0; hs < slots; ++hs)
            for (const char *part : {"pa", "pb"})
              line(fmt::format("{}(&{}, moa_a, make_uint2(moa_{}{}_{}0, moa_{}{}_{}1));", vMma, acc(hs, mt), part, n,
                               hs, part, n, hs));
          line("}");
        }
        continue;
      }
      // mmaPlan accepted no other statement
    }
    renamed.clear();
  };
  // (the printer's own loop, `moa_`: explain --html maps the loop IR's loop to the lanes' copy)
  const std::string start = integer(loop.start), full = N("full"), tileRow = N("lt");
  line(fmt::format("const int64_t {0} = {1} > {2} ? {2} + ({1} - {2}) / 16 * 16 : {2};", full, stopName, start));
  line(fmt::format("for (int64_t {0} = {1}; {0} < {2}; {0} += 16) {{", tileRow, start, full));
  row = tileRow;
  tileBody(false);
  line("}");
  line(fmt::format("if ({} < {}) {{", full, stopName));
  row = full;
  tileBody(true);
  line("}");
  // back: the accumulators into the held registers, the carried scalars into
  // each lane of their value
  for (int hs = 0; hs < slots; ++hs)
    for (int e = 0; e < 2; ++e) {
      line(fmt::format("if ({} < {}) {{", headOf(hs, e), pack));
      for (int mt = 0; mt < 8; ++mt)
        for (int k4 = e; k4 < 4; k4 += 2)
          line(fmt::format("{}[({}) * 128 + {}] = {}.{};", X, headOf(hs, k4), colOf(mt, k4), acc(hs, mt),
                           component[k4]));
      line("}");
    }
  line("__syncwarp();");
  for (int g = 0; g < groups(); ++g)
    line(fmt::format("{} = *(const float4 *)&{}[moa_pack * 128 + {}];", h.regs[size_t(g)], X, groupStart(g)));
  for (Symbol s : carried) {
    if (s != p.max)
      for (int slot = 0; slot < slots; ++slot)
        for (int x = 1; x < 4; x *= 2)
          line(fmt::format("{0} += __shfl_xor_sync({1}, {0}, {2});", slotName(s, slot), fullMask, x));
    std::string from = fmt::format("4 * (moa_pack % 8)");
    if (slots == 1) {
      line(fmt::format("{} = __shfl_sync({}, {}, {});", cn.symbol(s), fullMask, slotName(s, 0), from));
    } else {
      line(fmt::format("{{ const float moa_a = __shfl_sync({0}, {1}, {3}), "
                       "moa_b = __shfl_sync({0}, {2}, {3});",
                       fullMask, slotName(s, 0), slotName(s, 1), from));
      line(fmt::format("{} = moa_pack < 8 ? moa_a : moa_b; }}", cn.symbol(s)));
    }
  }
  locate = wasLocated;
  line("} else");
  return true;
}

} // namespace moac
