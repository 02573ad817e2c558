// Unit tests of the shape rules: one TEST_CASE per rule function of ShapeRules.h, named after it, checking
// result shapes, element types, known integer values, guards, and each error the rule can give.
#include "FrontEnd.h"
#include "ShapeRules.h"

#include <algorithm>
#include <climits>

using namespace moac;

namespace {

SymExpr dim(const std::string &name) { return SymExpr::symbol(test::testSymbols().intern(name)); }

const SymExpr n = dim("n"), m = dim("m"), dk = dim("dk"), dv = dim("dv"), B = dim("B");

Type f32(SymVec shape) { return Type{ElemType::F32, std::move(shape), std::nullopt}; }
Type f64(SymVec shape) { return Type{ElemType::F64, std::move(shape), std::nullopt}; }
// An integer scalar whose value is known (a literal, a dim, an index).
Type intScalar(SymExpr v) { return Type{ElemType::Int, {}, SymVec{std::move(v)}}; }
// An integer vector whose entries are known, like <1 0> or <b, g*hkv div hq>.
Type intVector(SymVec v) {
  SymExpr len(int64_t(v.size()));
  return Type{ElemType::Int, {len}, std::move(v)};
}
// Integer data whose value is not known at compile time.
Type intData(SymVec shape) { return Type{ElemType::Int, std::move(shape), std::nullopt}; }

std::string shapeOf(const RuleResult &r) { return r.ok() ? strShape(r.type().shape) : "error"; }

// The rule failed with `kind`, with one argument per hole of that diagnostic's message (a mismatch
// would throw when the message is rendered); returns the arguments for further checks.
std::vector<std::string> errorOf(const RuleResult &r, Diag kind) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == kind);
  std::string format = diagInfo(r.error().kind).format;
  CHECK(size_t(std::count(format.begin(), format.end(), '{')) == r.error().args.size());
  return r.error().args;
}

std::vector<std::string> guardsOf(const RuleResult &r) {
  std::vector<std::string> out;
  for (const Guard &g : r.guards)
    out.push_back(g.str());
  return out;
}

} // namespace

TEST_CASE("signOf") {
  CHECK(signOf(SymExpr(3)) == Sign::Positive);
  CHECK(signOf(SymExpr(0)) == Sign::Zero);
  CHECK(signOf(SymExpr(-2)) == Sign::Negative);
  CHECK(signOf(n) == Sign::Positive);
  CHECK(signOf(n * dk) == Sign::Positive);
  CHECK(signOf(n + dk - 1) == Sign::Positive);  // >= 1 at n = dk = 1
  CHECK(signOf(n - 1) == Sign::NonNegative);    // 0 at n = 1
  CHECK(signOf(n * dk - 1) == Sign::NonNegative);
  CHECK(signOf(n - 2) == Sign::Unknown);        // -1 at n = 1, positive later
  CHECK(signOf(n - dk) == Sign::Unknown);       // mixed signs
  CHECK(signOf(-n) == Sign::Negative);
  CHECK(signOf(1 - n) == Sign::NonPositive);
  CHECK(signOf(2 - n) == Sign::Unknown);
  CHECK(signOf(-n * dk - 3) == Sign::Negative);
  CHECK(signOf(SymExpr::floorDiv(n, 2)) == Sign::Unknown); // div and mod atoms are not analysed
  CHECK(signOf(SymExpr::mod(n, 2) + 1) == Sign::Unknown);
  // conservative, never wrong, when the value at dims = 1 does not fit in int64
  CHECK(signOf(n + SymExpr(INT64_MAX)) == Sign::Unknown);
  CHECK(signOf(n * INT64_MAX + SymExpr(INT64_MAX)) == Sign::Unknown);
  CHECK(nonNegative(Sign::Zero));
  CHECK(nonNegative(Sign::NonNegative));
  CHECK_FALSE(nonNegative(Sign::Unknown));
  CHECK_FALSE(nonNegative(Sign::NonPositive));
}

TEST_CASE("promote") {
  CHECK(promote(ElemType::Int, ElemType::Int) == ElemType::Int);
  CHECK(promote(ElemType::Int, ElemType::F32) == ElemType::F32);
  CHECK(promote(ElemType::F32, ElemType::F64) == ElemType::F64);
  CHECK(promote(ElemType::F64, ElemType::Int) == ElemType::F64);
}

TEST_CASE("shapeOfElementwise") {
  SECTION("equal shapes") {
    RuleResult r = shapeOfElementwise(BinOp::Add, f32({n, dk}), f32({n, dk}));
    CHECK(shapeOf(r) == "⟨n dk⟩");
    CHECK(r.type().elem == ElemType::F32);
    CHECK_FALSE(r.type().value);
    CHECK(r.guards.empty());
  }
  SECTION("scalar extension on either side") {
    CHECK(shapeOf(shapeOfElementwise(BinOp::Sub, f32({n}), f32({}))) == "⟨n⟩");
    CHECK(shapeOf(shapeOfElementwise(BinOp::Mul, f32({}), f32({n, dv}))) == "⟨n dv⟩");
    CHECK(shapeOf(shapeOfElementwise(BinOp::Div, f32({n}), intScalar(dk))) == "⟨n⟩");
  }
  SECTION("mismatched shapes") {
    auto args = errorOf(shapeOfElementwise(BinOp::Add, f32({n, dk}), f32({dk, n})), Diag::ShapeMismatch);
    CHECK(args == std::vector<std::string>{"'+'", "⟨n dk⟩", "⟨dk n⟩"});
    errorOf(shapeOfElementwise(BinOp::Max, f32({n}), f32({n, n})), Diag::ShapeMismatch);
    errorOf(shapeOfElementwise(BinOp::Mul, f32({n}), f32({n + 1})), Diag::ShapeMismatch);
  }
  SECTION("element types") {
    CHECK(shapeOfElementwise(BinOp::Add, f32({n}), f64({n})).type().elem == ElemType::F64);
    CHECK(shapeOfElementwise(BinOp::Add, intScalar(n), intScalar(2)).type().elem == ElemType::Int);
    CHECK(shapeOfElementwise(BinOp::Div, intScalar(n), intScalar(2)).type().elem == ElemType::F32);
    CHECK(shapeOfElementwise(BinOp::Div, intScalar(n), f64({})).type().elem == ElemType::F64);
    CHECK(shapeOfElementwise(BinOp::Add, intScalar(n), f32({n})).type().elem == ElemType::F32);
  }
  SECTION("integer values fold symbolically") {
    auto value = [](const RuleResult &r) { return r.type().value; };
    CHECK(value(shapeOfElementwise(BinOp::Add, intScalar(n), intScalar(1))) == SymVec{n + 1});
    CHECK(value(shapeOfElementwise(BinOp::Mul, intScalar(dk), intScalar(n))) == SymVec{n * dk});
    CHECK(value(shapeOfElementwise(BinOp::IntDiv, intScalar(4 * n), intScalar(4))) == SymVec{n});
    CHECK(value(shapeOfElementwise(BinOp::Mod, intScalar(SymExpr(-7)), intScalar(3))) == SymVec{SymExpr(2)});
    CHECK(value(shapeOfElementwise(BinOp::Max, intScalar(3), intScalar(5))) == SymVec{SymExpr(5)});
    CHECK(value(shapeOfElementwise(BinOp::Min, intScalar(3), intScalar(-5))) == SymVec{SymExpr(-5)});
    CHECK_FALSE(value(shapeOfElementwise(BinOp::Max, intScalar(n), intScalar(1))));
    CHECK_FALSE(value(shapeOfElementwise(BinOp::Div, intScalar(4), intScalar(2))));
    CHECK(value(shapeOfElementwise(BinOp::Mul, intVector({n, dk}), intScalar(2))) == SymVec{2 * n, 2 * dk});
    CHECK(value(shapeOfElementwise(BinOp::Add, intVector({n, SymExpr(1)}), intVector({SymExpr(1), dk}))) ==
          SymVec{n + 1, dk + 1});
    CHECK_FALSE(value(shapeOfElementwise(BinOp::Add, intScalar(n), intData({}))));
  }
  SECTION("div and mod need integers") {
    auto args = errorOf(shapeOfElementwise(BinOp::IntDiv, f32({n}), intScalar(2)), Diag::NotInteger);
    CHECK(args[0] == "the operands of 'div'");
    errorOf(shapeOfElementwise(BinOp::Mod, intScalar(n), f32({})), Diag::NotInteger);
  }
  SECTION("integer faults") {
    auto zero = errorOf(shapeOfElementwise(BinOp::IntDiv, intScalar(n), intScalar(0)), Diag::Arithmetic);
    CHECK(zero == std::vector<std::string>{"division by zero in integer expression"});
    errorOf(shapeOfElementwise(BinOp::Mod, intScalar(7), intScalar(n - n)), Diag::Arithmetic);
    auto args = errorOf(shapeOfElementwise(BinOp::Add, intScalar(INT64_MAX), intScalar(1)), Diag::Arithmetic);
    CHECK(args == std::vector<std::string>{"integer overflow in extent arithmetic"});
  }
}

TEST_CASE("shapeOfUnary") {
  RuleResult e = shapeOfUnary(UnOp::Exp, f32({n, dk}));
  CHECK(shapeOf(e) == "⟨n dk⟩");
  CHECK(e.type().elem == ElemType::F32);
  CHECK(shapeOfUnary(UnOp::Sqrt, intScalar(dk)).type().elem == ElemType::F32);
  CHECK(shapeOfUnary(UnOp::Log, f64({})).type().elem == ElemType::F64);
  CHECK_FALSE(shapeOfUnary(UnOp::Sqrt, intScalar(dk)).type().value);
  RuleResult neg = shapeOfUnary(UnOp::Neg, intScalar(n));
  CHECK(neg.type().elem == ElemType::Int);
  CHECK(neg.type().value == SymVec{-n});
  CHECK(shapeOfUnary(UnOp::Neg, intVector({n, SymExpr(2)})).type().value == SymVec{-n, SymExpr(-2)});
  RuleResult abs = shapeOfUnary(UnOp::Abs, intScalar(SymExpr(-3)));
  CHECK(abs.type().elem == ElemType::Int);
  CHECK_FALSE(abs.type().value);
}

TEST_CASE("shapeOfElementwise: comparisons and logic") {
  RuleResult lt = shapeOfElementwise(BinOp::Lt, f32({n, dk}), f32({}));
  CHECK(shapeOf(lt) == "⟨n dk⟩");
  CHECK(lt.type().elem == ElemType::Int);
  CHECK(shapeOfElementwise(BinOp::Eq, f64({n}), f32({n})).type().elem == ElemType::Int);
  CHECK(shapeOfElementwise(BinOp::And, intData({n}), intData({})).type().elem == ElemType::Int);
  CHECK(shapeOfElementwise(BinOp::Le, intScalar(2), intScalar(3)).type().value == SymVec{SymExpr(1)});
  CHECK_FALSE(shapeOfElementwise(BinOp::Le, intScalar(n), intScalar(3)).type().value);
  auto args = errorOf(shapeOfElementwise(BinOp::Ge, f32({n}), f32({dk})), Diag::ShapeMismatch);
  CHECK(args == std::vector<std::string>{"'>='", "⟨n⟩", "⟨dk⟩"});
  auto logic = errorOf(shapeOfElementwise(BinOp::Or, intData({n}), f32({n})), Diag::NotInteger);
  CHECK(logic[0] == "the operands of 'or'");
}

TEST_CASE("shapeOfUnary: the scalar functions") {
  for (UnOp op : {UnOp::Tanh, UnOp::Sin, UnOp::Cos, UnOp::Exp2, UnOp::Log2, UnOp::Sigmoid}) {
    INFO(spell(op));
    CHECK(shapeOf(shapeOfUnary(op, f32({n, dk}))) == "⟨n dk⟩");
    CHECK(shapeOfUnary(op, intScalar(dk)).type().elem == ElemType::F32);
    CHECK(shapeOfUnary(op, f64({})).type().elem == ElemType::F64);
  }
}

TEST_CASE("shapeOfElementwise: pow") {
  CHECK(shapeOfElementwise(BinOp::Pow, intScalar(2), intScalar(3)).type().elem == ElemType::F32);
  CHECK_FALSE(shapeOfElementwise(BinOp::Pow, intScalar(2), intScalar(3)).type().value);
  CHECK(shapeOf(shapeOfElementwise(BinOp::Pow, f64({n}), f32({}))) == "⟨n⟩");
  errorOf(shapeOfElementwise(BinOp::Pow, f32({n}), f32({dk})), Diag::ShapeMismatch);
}

TEST_CASE("shapeOfUnary: not") {
  RuleResult r = shapeOfUnary(UnOp::Not, intData({n}));
  CHECK(shapeOf(r) == "⟨n⟩");
  CHECK(r.type().elem == ElemType::Int);
  CHECK(shapeOfUnary(UnOp::Not, intScalar(0)).type().value == SymVec{SymExpr(1)});
  errorOf(shapeOfUnary(UnOp::Not, f32({n})), Diag::NotInteger);
}

TEST_CASE("shapeOfWhere") {
  RuleResult r = shapeOfWhere(intData({n, dk}), f32({n, dk}), f64({}));
  CHECK(shapeOf(r) == "⟨n dk⟩");
  CHECK(r.type().elem == ElemType::F64);
  CHECK(shapeOf(shapeOfWhere(intScalar(n), f32({}), f32({dv}))) == "⟨dv⟩");
  CHECK(shapeOfWhere(intData({n}), intData({n}), intScalar(0)).type().elem == ElemType::Int);
  auto args = errorOf(shapeOfWhere(intData({n}), f32({n}), f32({dk})), Diag::ShapeMismatch);
  CHECK(args == std::vector<std::string>{"'where'", "⟨n⟩", "⟨dk⟩"});
  errorOf(shapeOfWhere(intData({n}), f32({dk}), f32({})), Diag::ShapeMismatch);
  auto cond = errorOf(shapeOfWhere(f32({n}), f32({n}), f32({n})), Diag::NotInteger);
  CHECK(cond[0] == "the condition of 'where'");
}

TEST_CASE("shapeOfPsi") {
  SECTION("full and partial indices") {
    CHECK(shapeOf(shapeOfPsi(intVector({SymExpr(0), SymExpr(1)}), f32({n, dk}))) == "⟨⟩");
    CHECK(shapeOf(shapeOfPsi(intVector({SymExpr(0)}), f32({n, dk}))) == "⟨dk⟩");
    CHECK(shapeOf(shapeOfPsi(intScalar(n - 1), f32({n, dk}))) == "⟨dk⟩");
    CHECK(shapeOf(shapeOfPsi(intVector({}), f32({n, dk}))) == "⟨n dk⟩");
    CHECK(shapeOf(shapeOfPsi(intVector({B, SymExpr::floorDiv(n, 2)}), f32({B, m, n, dv}))) == "⟨n dv⟩");
    CHECK(shapeOfPsi(intScalar(0), f64({n})).type().elem == ElemType::F64);
  }
  SECTION("selecting from a known vector gives its value") {
    CHECK(shapeOfPsi(intScalar(1), intVector({n, dk, dv})).type().value == SymVec{dk});
    CHECK_FALSE(shapeOfPsi(intScalar(n), intVector({n, dk, dv})).type().value);
    CHECK_FALSE(shapeOfPsi(intScalar(5), intVector({n, dk, dv})).type().value);
  }
  SECTION("an index longer than the rank") {
    auto args = errorOf(shapeOfPsi(intVector({SymExpr(0), SymExpr(0), SymExpr(0)}), f32({n, dk})),
                        Diag::IndexTooLong);
    CHECK(args == std::vector<std::string>{"3", "2"});
    errorOf(shapeOfPsi(intScalar(0), f32({})), Diag::IndexTooLong);
  }
  SECTION("the index must be an integer vector of known length") {
    errorOf(shapeOfPsi(f32({SymExpr(2)}), f32({n, dk})), Diag::NotInteger);
    auto rank = errorOf(shapeOfPsi(intData({SymExpr(2), SymExpr(2)}), f32({n, dk})), Diag::NeedsVector);
    CHECK(rank == std::vector<std::string>{"psi", "⟨2 2⟩"});
    errorOf(shapeOfPsi(intData({n}), f32({n, dk})), Diag::NeedsConstantLength);
    errorOf(shapeOfPsi(intData({SymExpr(1)}), f32({n, dk})), Diag::GatherIndex); // computed from data
  }
}

TEST_CASE("shapeOfTran") {
  CHECK(shapeOf(shapeOfTran(f32({n, dk}))) == "⟨dk n⟩");
  CHECK(shapeOf(shapeOfTran(f32({B, n, dk}))) == "⟨dk n B⟩");
  CHECK(shapeOf(shapeOfTran(f32({n}))) == "⟨n⟩");
  CHECK(shapeOf(shapeOfTran(f32({}))) == "⟨⟩");
  CHECK(shapeOfTran(f64({n, dk})).type().elem == ElemType::F64);
  CHECK(shapeOfTran(intVector({n, dk})).type().value == SymVec{n, dk}); // a vector is its own transpose
  CHECK(shapeOfTran(f32({n, dk})).guards.empty());
}

TEST_CASE("shapeOfTranPerm") {
  auto perm = [](std::initializer_list<int64_t> p) {
    SymVec v;
    for (int64_t x : p)
      v.push_back(SymExpr(x));
    return intVector(v);
  };
  SECTION("result axis p_k has the extent of axis k") {
    CHECK(shapeOf(shapeOfTranPerm(perm({1, 0}), f32({n, dk}))) == "⟨dk n⟩");
    CHECK(shapeOf(shapeOfTranPerm(perm({0, 1}), f32({n, dk}))) == "⟨n dk⟩");
    CHECK(shapeOf(shapeOfTranPerm(perm({2, 0, 1}), f32({B, n, dk}))) == "⟨n dk B⟩");
    CHECK(shapeOf(shapeOfTranPerm(perm({1, 2, 0}), f32({B, n, dk}))) == "⟨dk B n⟩");
    CHECK(shapeOf(shapeOfTranPerm(perm({0}), f32({n}))) == "⟨n⟩");
  }
  SECTION("bad permutations") {
    auto repeated = errorOf(shapeOfTranPerm(perm({0, 0}), f32({n, dk})), Diag::BadPermutation);
    CHECK(repeated == std::vector<std::string>{"⟨0 0⟩", "2"});
    errorOf(shapeOfTranPerm(perm({0, 2}), f32({n, dk})), Diag::BadPermutation);
    errorOf(shapeOfTranPerm(perm({-1, 0}), f32({n, dk})), Diag::BadPermutation);
    errorOf(shapeOfTranPerm(perm({1, 0, 2}), f32({n, dk})), Diag::BadPermutation); // wrong length
    errorOf(shapeOfTranPerm(perm({0}), f32({n, dk})), Diag::BadPermutation);
    errorOf(shapeOfTranPerm(intVector({n, SymExpr(0)}), f32({n, dk})), Diag::BadPermutation); // not constant
    auto unknown = errorOf(shapeOfTranPerm(intData({SymExpr(2)}), f32({n, dk})), Diag::BadPermutation);
    CHECK(unknown[0] == "the left operand");
    errorOf(shapeOfTranPerm(f32({SymExpr(2)}), f32({n, dk})), Diag::NotInteger);
  }
}

TEST_CASE("shapeOfTake") {
  SECTION("a constant count within a symbolic extent is a guard") {
    RuleResult r = shapeOfTake(intScalar(2), f32({n, dk}));
    CHECK(shapeOf(r) == "⟨2 dk⟩");
    CHECK(guardsOf(r) == std::vector<std::string>{"2 <= n"});
  }
  SECTION("counts that provably fit need no guard") {
    RuleResult r = shapeOfTake(intScalar(n), f32({n, dk}));
    CHECK(shapeOf(r) == "⟨n dk⟩");
    CHECK(r.guards.empty());
    CHECK(shapeOfTake(intScalar(1), f32({n})).guards.empty());
    CHECK(shapeOfTake(intScalar(n - 1), f32({n})).guards.empty());
    CHECK(shapeOfTake(intScalar(3), f32({SymExpr(4)})).guards.empty());
  }
  SECTION("negative counts take from the end") {
    RuleResult r = shapeOfTake(intScalar(-1), f32({n, dk}));
    CHECK(shapeOf(r) == "⟨1 dk⟩");
    CHECK(r.guards.empty());
    CHECK(shapeOf(shapeOfTake(intScalar(-n), f32({n}))) == "⟨n⟩");
    CHECK(guardsOf(shapeOfTake(intScalar(-3), f32({n}))) == std::vector<std::string>{"3 <= n"});
  }
  SECTION("a symbolic count that may exceed the extent is a guard") {
    RuleResult r = shapeOfTake(intScalar(m), f32({n}));
    CHECK(shapeOf(r) == "⟨m⟩");
    CHECK(guardsOf(r) == std::vector<std::string>{"m <= n"});
    CHECK(guardsOf(shapeOfTake(intScalar(n), f32({n * m - 1}))) == std::vector<std::string>{"n <= n*m - 1"});
  }
  SECTION("counts that never fit") {
    auto args = errorOf(shapeOfTake(intScalar(5), f32({SymExpr(4)})), Diag::TakeTooLong);
    CHECK(args == std::vector<std::string>{"take", "5", "4"});
    errorOf(shapeOfTake(intScalar(n + 1), f32({n})), Diag::TakeTooLong);
    errorOf(shapeOfTake(intScalar(-n - 1), f32({n})), Diag::TakeTooLong);
  }
  SECTION("count and operand errors") {
    errorOf(shapeOfTake(intScalar(1), f32({})), Diag::NeedsRank);
    errorOf(shapeOfTake(f32({}), f32({n})), Diag::NotInteger);
    errorOf(shapeOfTake(intVector({SymExpr(1)}), f32({n})), Diag::NotInteger);
    errorOf(shapeOfTake(intData({}), f32({n})), Diag::NotInteger);
    auto sign = errorOf(shapeOfTake(intScalar(n - m), f32({n})), Diag::NotInteger);
    CHECK(sign[1] == "the sign of n - m is not known (an 'assume' of the dims can declare it)");
  }
  SECTION("a zero count gives an empty leading axis") {
    RuleResult r = shapeOfTake(intScalar(0), f32({n, dk}));
    CHECK(shapeOf(r) == "⟨0 dk⟩");
    CHECK(r.guards.empty());
  }
}

TEST_CASE("shapeOfTake over comprehension indices") {
  const Symbol i = test::testSymbols().fresh("i"), j = test::testSymbols().fresh("j");
  const SymExpr si = SymExpr::symbol(i), sj = SymExpr::symbol(j);
  const IndexRanges rows{{i, n}};
  SECTION("the rows 0 … i: an extent over the index, proven within n") {
    RuleResult r = shapeOfTake(intScalar(si + 1), f32({n, dk}), rows);
    CHECK(shapeOf(r) == "⟨" + si.str() + " + 1, dk⟩");
    CHECK(r.guards.empty());
  }
  SECTION("the greatest count over the dims is a guard") {
    CHECK(guardsOf(shapeOfTake(intScalar(si + 1), f32({m, dk}), rows)) == std::vector<std::string>{"n <= m"});
  }
  SECTION("a count past the extent at the last index, or one whose sign changes, is an error") {
    auto args = errorOf(shapeOfTake(intScalar(si + 2), f32({n}), rows), Diag::TakeTooLongAt);
    CHECK(args.back() == "n + 1");
    errorOf(shapeOfTake(intScalar(si - 1), f32({n}), rows), Diag::NotInteger);
  }
  SECTION("a negative count over the index takes from the end") {
    CHECK(shapeOf(shapeOfTake(intScalar(-si - 1), f32({n}), rows)) == "⟨" + si.str() + " + 1⟩");
  }
  SECTION("nested ranges: j < i + 1 bounds j by n - 1") {
    IndexRanges nested{{i, n}, {j, si + 1}};
    CHECK(shapeOfTake(intScalar(sj + 1), f32({n}), nested).guards.empty());
    CHECK(shapeOfTake(intScalar(sj + 1), f32({si + 1}), nested).guards.empty());
  }
}

TEST_CASE("shapeOfDrop over comprehension indices") {
  const Symbol i = test::testSymbols().fresh("i");
  const SymExpr si = SymExpr::symbol(i);
  RuleResult r = shapeOfDrop(intScalar(si), f32({n, dk}), {{i, n}});
  CHECK(shapeOf(r) == "⟨n - " + si.str() + ", dk⟩");
  CHECK(r.guards.empty());
  errorOf(shapeOfDrop(intScalar(si + 2), f32({n}), {{i, n}}), Diag::TakeTooLongAt);
}

TEST_CASE("shapeOfDrop") {
  SECTION("positive counts") {
    RuleResult r = shapeOfDrop(intScalar(1), f32({n, dk}));
    CHECK(shapeOf(r) == "⟨n - 1, dk⟩");
    CHECK(r.guards.empty());
    RuleResult two = shapeOfDrop(intScalar(2), f32({n}));
    CHECK(shapeOf(two) == "⟨n - 2⟩");
    CHECK(guardsOf(two) == std::vector<std::string>{"2 <= n"});
    CHECK(shapeOf(shapeOfDrop(intScalar(n), f32({n, dk}))) == "⟨0 dk⟩");
    CHECK(shapeOf(shapeOfDrop(intScalar(1), f32({SymExpr(4)}))) == "⟨3⟩");
  }
  SECTION("negative counts drop from the end") {
    RuleResult r = shapeOfDrop(intScalar(-1), f32({n, dk}));
    CHECK(shapeOf(r) == "⟨n - 1, dk⟩");
    CHECK(r.guards.empty());
    CHECK(guardsOf(shapeOfDrop(intScalar(-m), f32({n}))) == std::vector<std::string>{"m <= n"});
  }
  SECTION("errors") {
    auto args = errorOf(shapeOfDrop(intScalar(-5), f32({SymExpr(4)})), Diag::TakeTooLong);
    CHECK(args == std::vector<std::string>{"drop", "5", "4"});
    errorOf(shapeOfDrop(intScalar(n + dk), f32({n})), Diag::TakeTooLong);
    errorOf(shapeOfDrop(intScalar(1), f32({})), Diag::NeedsRank);
    errorOf(shapeOfDrop(intScalar(SymExpr::floorDiv(n, 2)), f32({n})), Diag::NotInteger);
  }
}

TEST_CASE("shapeOfCat") {
  SECTION("along the leading axis") {
    RuleResult r = shapeOfCat(f32({n, dk}), f32({m, dk}));
    CHECK(shapeOf(r) == "⟨n + m, dk⟩");
    CHECK(shapeOf(shapeOfCat(f32({n}), f32({n}))) == "⟨2*n⟩");
    CHECK(shapeOfCat(f32({n}), f64({m})).type().elem == ElemType::F64);
  }
  SECTION("row append: K cat k") {
    CHECK(shapeOf(shapeOfCat(f32({n, dk}), f32({dk}))) == "⟨n + 1, dk⟩");
    CHECK(shapeOf(shapeOfCat(f32({dk}), f32({n, dk}))) == "⟨n + 1, dk⟩");
    CHECK(shapeOf(shapeOfCat(f32({n}), f32({}))) == "⟨n + 1⟩");
    CHECK(shapeOf(shapeOfCat(f32({}), f32({}))) == "⟨2⟩");
  }
  SECTION("known integer vectors concatenate their values") {
    CHECK(shapeOfCat(intVector({n}), intVector({dk, SymExpr(2)})).type().value == SymVec{n, dk, SymExpr(2)});
    CHECK(shapeOfCat(intVector({n}), intScalar(dk)).type().value == SymVec{n, dk});
  }
  SECTION("trailing axes must agree") {
    auto args = errorOf(shapeOfCat(f32({n, dk}), f32({n, dv})), Diag::CatTailMismatch);
    CHECK(args == std::vector<std::string>{"⟨n dk⟩", "⟨n dv⟩"});
    errorOf(shapeOfCat(f32({n, dk}), f32({dv})), Diag::CatTailMismatch);
    errorOf(shapeOfCat(f32({B, n, dk}), f32({dk})), Diag::CatTailMismatch); // two ranks apart
    errorOf(shapeOfCat(f32({n, dk}), f32({})), Diag::CatTailMismatch);
  }
}

TEST_CASE("shapeOfReshape") {
  SECTION("constant shapes") {
    RuleResult r = shapeOfReshape(intVector({SymExpr(2), SymExpr(3)}), f32({SymExpr(6)}));
    CHECK(shapeOf(r) == "⟨2 3⟩");
    CHECK(r.guards.empty());
    CHECK(r.type().elem == ElemType::F32);
  }
  SECTION("symbolic shapes with an equal element count") {
    RuleResult r = shapeOfReshape(intVector({n, dk}), f32({dk, n}));
    CHECK(shapeOf(r) == "⟨n dk⟩");
    CHECK(r.guards.empty());
    CHECK(shapeOf(shapeOfReshape(intVector({n * dk}), f32({n, dk}))) == "⟨n*dk⟩");
  }
  SECTION("element counts that differ for every dim are rejected") {
    auto args = errorOf(shapeOfReshape(intVector({SymExpr(3), SymExpr(2)}), f32({SymExpr(5)})),
                        Diag::ReshapeMismatch);
    CHECK(args == std::vector<std::string>{"5", "6"});
    errorOf(shapeOfReshape(intVector({SymExpr(2), n}), f32({n})), Diag::ReshapeMismatch);
    errorOf(shapeOfReshape(intVector({n, n}), f32({n * n + 1})), Diag::ReshapeMismatch);
  }
  SECTION("counts that only the dims decide are guards") {
    RuleResult r = shapeOfReshape(intVector({m}), f32({n}));
    CHECK(shapeOf(r) == "⟨m⟩");
    CHECK(guardsOf(r) == std::vector<std::string>{"m == n"});
  }
  SECTION("a div or mod extent is a guard, not an error") {
    SymExpr half = SymExpr::floorDiv(n, 2);
    RuleResult r = shapeOfReshape(intVector({SymExpr(2), half}), f32({n}));
    CHECK(shapeOf(r) == "⟨2, n div 2⟩");
    CHECK(guardsOf(r) == std::vector<std::string>{"1 <= n div 2", "2*(n div 2) == n"});
    RuleResult exact = shapeOfReshape(intVector({SymExpr(4), SymExpr::floorDiv(4 * n, 4)}), f32({n, SymExpr(4)}));
    CHECK(shapeOf(exact) == "⟨4 n⟩");
    CHECK(exact.guards.empty());
  }
  SECTION("non-positive extents") {
    auto args = errorOf(shapeOfReshape(intVector({SymExpr(0), n}), f32({n})), Diag::NonPositiveExtent);
    CHECK(args == std::vector<std::string>{"0"});
    errorOf(shapeOfReshape(intVector({SymExpr(-2), SymExpr(-3)}), f32({SymExpr(6)})), Diag::NonPositiveExtent);
    // n - 1 is positive for n >= 2: a guard, like any extent of unknown sign
    CHECK(guardsOf(shapeOfReshape(intVector({n - 1}), f32({n - 1}))) == std::vector<std::string>{"1 <= n - 1"});
  }
  SECTION("the shape operand") {
    errorOf(shapeOfReshape(intData({SymExpr(2)}), f32({n})), Diag::NotInteger);
    errorOf(shapeOfReshape(f32({SymExpr(2)}), f32({n})), Diag::NotInteger);
    errorOf(shapeOfReshape(intData({n}), f32({n})), Diag::NeedsConstantLength);
  }
}

TEST_CASE("shapeOfRav") {
  CHECK(shapeOf(shapeOfRav(f32({n, dk}))) == "⟨n*dk⟩");
  CHECK(shapeOf(shapeOfRav(f32({n}))) == "⟨n⟩");
  CHECK(shapeOf(shapeOfRav(f32({}))) == "⟨1⟩");
  CHECK(shapeOf(shapeOfRav(f32({SymExpr(2), n, SymExpr(3)}))) == "⟨6*n⟩");
  CHECK(shapeOfRav(f64({n})).type().elem == ElemType::F64);
}

TEST_CASE("shapeOfReduce") {
  CHECK(shapeOf(shapeOfReduce(BinOp::Add, f32({n, dk}))) == "⟨dk⟩");
  CHECK(shapeOf(shapeOfReduce(BinOp::Max, f32({n}))) == "⟨⟩");
  CHECK(shapeOfReduce(BinOp::Add, f64({n})).type().elem == ElemType::F64);
  auto args = errorOf(shapeOfReduce(BinOp::Add, f32({})), Diag::NeedsRank);
  CHECK(args == std::vector<std::string>{"reduction", "1", "⟨⟩"});
  SECTION("along axis k: ρA without its axis k") {
    CHECK(shapeOf(shapeOfReduce(BinOp::Add, f32({n, dk}), 1)) == "⟨n⟩");
    CHECK(shapeOf(shapeOfReduce(BinOp::Min, f32({B, n, dk}), 1)) == "⟨B dk⟩");
    CHECK(shapeOf(shapeOfReduce(BinOp::Sub, f32({B, n, dk}), 2)) == "⟨B n⟩");
    CHECK(shapeOf(shapeOfReduce(BinOp::Mul, f32({B, n, dk}), 0)) == "⟨n dk⟩");
    auto past = errorOf(shapeOfReduce(BinOp::Add, f32({n, dk}), 2), Diag::ReduceAxis);
    CHECK(past == std::vector<std::string>{"2", "2", "⟨n dk⟩", "1"});
    errorOf(shapeOfReduce(BinOp::Add, f32({n, dk}), -1), Diag::ReduceAxis);
  }
  SECTION("the right folds: -/ keeps the type, ÷/ divides (a float, like /)") {
    CHECK(shapeOfReduce(BinOp::Sub, intData({n})).type().elem == ElemType::Int);
    CHECK(shapeOfReduce(BinOp::Div, intData({n})).type().elem == ElemType::F32);
    CHECK(shapeOfReduce(BinOp::Div, f64({n})).type().elem == ElemType::F64);
  }
}

TEST_CASE("shapeOfInner") {
  SECTION("init ρA ++ tail ρB") {
    CHECK(shapeOf(shapeOfInner(BinOp::Add, BinOp::Mul, f32({dk}), f32({dk, n}))) == "⟨n⟩");
    CHECK(shapeOf(shapeOfInner(BinOp::Add, BinOp::Mul, f32({n}), f32({n, dv}))) == "⟨dv⟩");
    CHECK(shapeOf(shapeOfInner(BinOp::Add, BinOp::Mul, f32({m, dk}), f32({dk, n}))) == "⟨m n⟩");
    CHECK(shapeOf(shapeOfInner(BinOp::Max, BinOp::Add, f32({n}), f32({n}))) == "⟨⟩");
    CHECK(shapeOf(shapeOfInner(BinOp::Add, BinOp::Mul, f32({B, m, dk}), f32({dk, n, dv}))) == "⟨B m n dv⟩");
  }
  SECTION("element types") {
    CHECK(shapeOfInner(BinOp::Add, BinOp::Mul, f32({n}), f64({n})).type().elem == ElemType::F64);
    CHECK(shapeOfInner(BinOp::Add, BinOp::Mul, intData({n}), intData({n})).type().elem == ElemType::Int);
    CHECK(shapeOfInner(BinOp::Add, BinOp::Div, intData({n}), intData({n})).type().elem == ElemType::F32);
    CHECK(shapeOfInner(BinOp::Sub, BinOp::Mul, intData({n}), intData({n})).type().elem == ElemType::Int);
    CHECK(shapeOfInner(BinOp::Div, BinOp::Add, intData({n}), intData({n})).type().elem == ElemType::F32);
  }
  SECTION("inner axes must match: dk vs n") {
    auto args = errorOf(shapeOfInner(BinOp::Add, BinOp::Mul, f32({dk}), f32({n, dk})), Diag::InnerMismatch);
    CHECK(args == std::vector<std::string>{"dk", "n"});
  }
  SECTION("rank errors") {
    errorOf(shapeOfInner(BinOp::Add, BinOp::Mul, f32({}), f32({n})), Diag::NeedsRank);
    auto right = errorOf(shapeOfInner(BinOp::Add, BinOp::Mul, f32({n}), f32({})), Diag::NeedsRank);
    CHECK(right[0] == "the right operand of an inner product");
  }
  SECTION("f may be any reducer, the right folds - and ÷ included") {
    CHECK(shapeOf(shapeOfInner(BinOp::Sub, BinOp::Mul, f32({m, n}), f32({n}))) == "⟨m⟩");
    CHECK(shapeOf(shapeOfInner(BinOp::Div, BinOp::Div, f32({n}), f32({n, dk}))) == "⟨dk⟩");
  }
}

TEST_CASE("shapeOfOuter") {
  CHECK(shapeOf(shapeOfOuter(BinOp::Mul, f32({n}), f32({dk}))) == "⟨n dk⟩");
  CHECK(shapeOf(shapeOfOuter(BinOp::Mul, f32({n, m}), f32({dk}))) == "⟨n m dk⟩");
  CHECK(shapeOf(shapeOfOuter(BinOp::Add, f32({}), f32({dk}))) == "⟨dk⟩");
  CHECK(shapeOfOuter(BinOp::Div, intData({n}), intData({n})).type().elem == ElemType::F32);
  CHECK(shapeOfOuter(BinOp::Mul, intData({n}), intData({n})).type().elem == ElemType::Int);
  CHECK(shapeOfOuter(BinOp::Mul, f32({n}), f32({n})).guards.empty());
}

TEST_CASE("shapeOfIota") {
  RuleResult r = shapeOfIota(intScalar(n));
  CHECK(shapeOf(r) == "⟨n⟩");
  CHECK(r.type().elem == ElemType::Int);
  CHECK_FALSE(r.type().value);
  CHECK(r.guards.empty());
  RuleResult three = shapeOfIota(intScalar(3));
  CHECK(three.type().value == SymVec{SymExpr(0), SymExpr(1), SymExpr(2)});
  CHECK_FALSE(shapeOfIota(intScalar(100)).type().value); // large iotas keep no value
  SECTION("non-positive counts") {
    auto zero = errorOf(shapeOfIota(intScalar(0)), Diag::NonPositiveExtent);
    CHECK(zero == std::vector<std::string>{"0"});
    errorOf(shapeOfIota(intScalar(-2)), Diag::NonPositiveExtent);
    errorOf(shapeOfIota(intScalar(-n)), Diag::NonPositiveExtent);
  }
  SECTION("counts of unknown sign are guards") {
    CHECK(guardsOf(shapeOfIota(intScalar(n - 1))) == std::vector<std::string>{"1 <= n - 1"}); // 0 when n = 1
    CHECK(guardsOf(shapeOfIota(intScalar(n - 2))) == std::vector<std::string>{"1 <= n - 2"});
    CHECK(guardsOf(shapeOfIota(intScalar(SymExpr::floorDiv(n, 2)))) == std::vector<std::string>{"1 <= n div 2"});
  }
  SECTION("the operand") {
    errorOf(shapeOfIota(f32({})), Diag::NotInteger);
    errorOf(shapeOfIota(intVector({n})), Diag::NotInteger);
    errorOf(shapeOfIota(intData({})), Diag::NotInteger);
  }
}

TEST_CASE("shapeOfRho") {
  RuleResult r = shapeOfRho(f32({n, dk}));
  CHECK(shapeOf(r) == "⟨2⟩");
  CHECK(r.type().elem == ElemType::Int);
  CHECK(r.type().value == SymVec{n, dk});
  RuleResult scalar = shapeOfRho(f32({}));
  CHECK(shapeOf(scalar) == "⟨0⟩");
  CHECK(scalar.type().value == SymVec{});
}

TEST_CASE("shapeOfVector") {
  RuleResult r = shapeOfVector({intScalar(n), intScalar(SymExpr::floorDiv(dk, 2))});
  CHECK(shapeOf(r) == "⟨2⟩");
  CHECK(r.type().elem == ElemType::Int);
  CHECK(r.type().value == SymVec{n, SymExpr::floorDiv(dk, 2)});
  RuleResult empty = shapeOfVector({});
  CHECK(shapeOf(empty) == "⟨0⟩");
  CHECK(empty.type().value == SymVec{});
  RuleResult floats = shapeOfVector({intScalar(1), f32({})});
  CHECK(floats.type().elem == ElemType::F32);
  CHECK_FALSE(floats.type().value);
  CHECK_FALSE(shapeOfVector({intScalar(1), intData({})}).type().value); // one entry unknown
  auto args = errorOf(shapeOfVector({intScalar(1), f32({n})}), Diag::NotScalar);
  CHECK(args == std::vector<std::string>{"a vector element", "⟨n⟩"});
}

TEST_CASE("shapeOfComprehension") {
  CHECK(shapeOf(shapeOfComprehension({n}, f32({}))) == "⟨n⟩");
  CHECK(shapeOf(shapeOfComprehension({B, m}, f32({dv}))) == "⟨B m dv⟩");
  CHECK(shapeOf(shapeOfComprehension({n}, f32({n, dk}))) == "⟨n n dk⟩");
  RuleResult r = shapeOfComprehension({n}, intScalar(n));
  CHECK(r.type().elem == ElemType::Int);
  CHECK_FALSE(r.type().value);
  CHECK(shapeOfComprehension({n}, f64({})).type().elem == ElemType::F64);
}

TEST_CASE("shapeOfPsi with a gather index: the shape any index in range gives", "[shapes][gather]") {
  // <ids[i]> psi E: the index is a load (an element of the integer input 0), its value unknown
  Type index = intData({SymExpr(1)});
  index.gather = SymVec{SymExpr::load(0, "ids", dim("i"), SymExpr(0))};
  RuleResult r = shapeOfPsi(index, f32({n, dk}));
  CHECK(shapeOf(r) == "⟨dk⟩");
  CHECK_FALSE(r.type().value);
  // a vector with a known entry and a load, <b, table[b]>, is a gather index too; arithmetic on a load is not
  std::vector<Type> entries{intScalar(dim("b")), intData({})};
  entries[1].gather = SymVec{SymExpr::load(1, "table", dim("b"), SymExpr(0))};
  RuleResult v = shapeOfVector(entries);
  REQUIRE(v.type().gather);
  CHECK(v.type().gather->size() == 2);
  CHECK(shapeOf(shapeOfPsi(v.type(), f32({B, n, dk}))) == "⟨dk⟩");
  CHECK_FALSE(shapeOfElementwise(BinOp::Add, entries[1], intScalar(1)).type().gather);
}

