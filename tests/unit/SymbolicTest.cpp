// Unit tests of Symbolic: the canonical form of symbolic integer expressions, floor division and
// modulus with Python semantics, substitution, evaluation, linear coefficients, overflow and printing.
//
// Symbols are interned in one process-wide table and products print in interning order, so tests that
// check the printed order of several symbols intern names of their own, in a fixed order, first.
#include "FrontEnd.h"
#include "Gamma.h"

#include <climits>
#include <map>

using namespace moac;

namespace {

SymExpr sym(const std::string &name) { return SymExpr::symbol(test::testSymbols().intern(name)); }

std::function<int64_t(Symbol)> env(std::map<std::string, int64_t> values) {
  return [values](Symbol s) -> int64_t {
    auto it = values.find(s.name());
    if (it == values.end())
      throw SymArithmeticError("unbound symbol " + s.name());
    return it->second;
  };
}

} // namespace

TEST_CASE("Symbol interning", "[symbolic]") {
  Symbol a = test::testSymbols().intern("symA");
  CHECK(test::testSymbols().intern("symA") == a);
  CHECK(a.name() == "symA");
  CHECK(test::testSymbols().intern("symB") != a);

  Symbol f1 = test::testSymbols().fresh("symA");
  Symbol f2 = test::testSymbols().fresh("symA");
  CHECK(f1 != a);
  CHECK(f2 != f1);
  CHECK(f1.name() != f2.name());
  CHECK(test::testSymbols().intern("symA") == a); // fresh names never capture the interned one
}

TEST_CASE("Symbolic canonical form", "[symbolic]") {
  SymExpr n = sym("n"), dk = sym("dk");

  SECTION("n, n+0 and 0+n are the same value") {
    CHECK(n + 0 == n);
    CHECK(SymExpr(0) + n == n);
    CHECK(n * 1 == n);
    CHECK(n - 0 == n);
    CHECK((n + 0).asSymbol() == test::testSymbols().intern("n"));
  }
  SECTION("products commute") {
    CHECK(n * dk == dk * n);
    CHECK(n * dk * 2 == 2 * dk * n);
    CHECK((n * dk).str() == (dk * n).str());
  }
  SECTION("polynomials expand and collect") {
    CHECK((n + 1) * (n - 1) == n * n - 1);
    CHECK(n + n == 2 * n);
    CHECK((n + dk) * (n + dk) == n * n + 2 * n * dk + dk * dk);
    CHECK(n - n == 0);
    CHECK((n - n).isConstant());
    CHECK(n * dk - dk * n == 0);
  }
  SECTION("different values stay different") {
    CHECK(n != dk);
    CHECK(n + 1 != n);
    CHECK(n * n != 2 * n);
    CHECK(2 * n != n);
  }
  SECTION("compare is a consistent total order") {
    std::vector<SymExpr> values = {SymExpr(0), SymExpr(3), n, dk, n + 1, n * dk, n * n - 1, -n};
    for (const auto &a : values)
      for (const auto &b : values) {
        int ab = SymExpr::compare(a, b), ba = SymExpr::compare(b, a);
        CHECK((ab < 0) == (ba > 0));
        CHECK((ab == 0) == (a == b));
      }
  }
}

TEST_CASE("Symbolic constant folding", "[symbolic]") {
  SymExpr n = sym("n");
  CHECK((SymExpr(3) + SymExpr(4)).constant() == 7);
  CHECK(((SymExpr(2) + 3) * 4).constant() == 20);
  CHECK((SymExpr(2) - 5).constant() == -3);
  CHECK((-SymExpr(6)).constant() == -6);
  CHECK((n - n + 5).constant() == 5);
  CHECK((n * 0).constant() == 0);
  CHECK(SymExpr().constant() == 0);
  CHECK_FALSE(n.isConstant());
  CHECK_FALSE((n + 1).constant().has_value());
  CHECK(SymExpr::floorDiv(SymExpr(17), SymExpr(5)).constant() == 3);
  CHECK(SymExpr::mod(SymExpr(17), SymExpr(5)).constant() == 2);
}

TEST_CASE("Symbolic floorDiv and mod follow Python semantics", "[symbolic]") {
  struct Case {
    int64_t a, b, div, mod;
  };
  // Python: a // b, a % b
  const Case cases[] = {
      {7, 2, 3, 1},    {-7, 2, -4, 1},  {7, -2, -4, -1}, {-7, -2, 3, -1}, {6, 3, 2, 0},
      {-6, 3, -2, 0},  {6, -3, -2, 0},  {0, 5, 0, 0},    {0, -5, 0, 0},   {1, 5, 0, 1},
      {-1, 5, -1, 4},  {1, -5, -1, -4}, {-1, -5, 0, -1}, {5, 1, 5, 0},    {-5, -1, 5, 0},
      {INT64_MIN, 3, -3074457345618258603, 1},            {INT64_MAX, -2, -4611686018427387904, -1},
      {INT64_MIN, 2, -4611686018427387904, 0},            {INT64_MAX, 1, INT64_MAX, 0},
  };
  for (const Case &c : cases) {
    INFO(c.a << " // " << c.b);
    CHECK(SymExpr::floorDiv(SymExpr(c.a), SymExpr(c.b)).constant() == c.div);
    CHECK(SymExpr::mod(SymExpr(c.a), SymExpr(c.b)).constant() == c.mod);
    // evaluate() folds div and mod atoms with the same semantics
    SymExpr x = sym("x"), y = sym("y");
    auto values = env({{"x", c.a}, {"y", c.b}});
    CHECK(SymExpr::floorDiv(x, y).evaluate(values) == c.div);
    CHECK(SymExpr::mod(x, y).evaluate(values) == c.mod);
  }
  SECTION("INT64_MIN mod -1 is 0, its quotient overflows") {
    CHECK(SymExpr::mod(SymExpr(INT64_MIN), SymExpr(-1)).constant() == 0);
    CHECK_THROWS_AS(SymExpr::floorDiv(SymExpr(INT64_MIN), SymExpr(-1)), SymArithmeticError);
  }
  SECTION("division by zero throws") {
    SymExpr n = sym("n");
    CHECK_THROWS_AS(SymExpr::floorDiv(SymExpr(1), SymExpr(0)), SymArithmeticError);
    CHECK_THROWS_AS(SymExpr::mod(SymExpr(1), SymExpr(0)), SymArithmeticError);
    CHECK_THROWS_AS(SymExpr::floorDiv(n, SymExpr(0)), SymArithmeticError);
    CHECK_THROWS_AS(SymExpr::mod(n, n - n), SymArithmeticError);
    CHECK_THROWS_WITH(SymExpr::floorDiv(n, sym("z")).evaluate(env({{"n", 3}, {"z", 0}})),
                      "division by zero in integer expression");
  }
}

TEST_CASE("Symbolic div and mod simplification", "[symbolic]") {
  SymExpr n = sym("n"), m = sym("m");
  CHECK(SymExpr::floorDiv(4 * n, 4) == n);
  CHECK(SymExpr::mod(4 * n, 4) == 0);
  CHECK(SymExpr::floorDiv(4 * n + 8, 4) == n + 2);
  CHECK(SymExpr::floorDiv(-4 * n, 4) == -n);
  CHECK(SymExpr::floorDiv(6 * n * m, 3) == 2 * n * m);
  CHECK(SymExpr::mod(6 * n * m + 3, 3) == 0);
  CHECK(SymExpr::floorDiv(n, 1) == n);
  CHECK(SymExpr::mod(n, 1) == 0);
  CHECK(SymExpr::mod(n, -1) == 0);
  CHECK(SymExpr::floorDiv(n, n) == 1);
  CHECK(SymExpr::mod(n, n) == 0);
  CHECK(SymExpr::floorDiv(0, n) == 0);
  CHECK(SymExpr::mod(0, n) == 0);

  SECTION("inexact divisions stay atoms") {
    SymExpr d = SymExpr::floorDiv(4 * n + 2, 4);
    CHECK_FALSE(d.isConstant());
    CHECK(d != n);
    CHECK(d.terms().size() == 1);
    CHECK(d.terms()[0].factors[0]->kind == SymExpr::Atom::Div);
    SymExpr r = SymExpr::mod(n, 4);
    CHECK(r.terms()[0].factors[0]->kind == SymExpr::Atom::Mod);
    // a negative divisor does not divide exactly: (−4n) div −4 is left alone rather than guessed
    CHECK(SymExpr::floorDiv(4 * n, -4).terms()[0].factors[0]->kind == SymExpr::Atom::Div);
  }
  SECTION("equal atoms are one value") {
    CHECK(SymExpr::floorDiv(n, m) == SymExpr::floorDiv(n, m));
    CHECK(SymExpr::floorDiv(n, m) != SymExpr::mod(n, m));
    CHECK(SymExpr::floorDiv(n, m) + SymExpr::floorDiv(n, m) == 2 * SymExpr::floorDiv(n, m));
    CHECK(SymExpr::floorDiv(n, m) - SymExpr::floorDiv(n, m) == 0);
  }
}

TEST_CASE("Symbolic substitute", "[symbolic]") {
  Symbol ns = test::testSymbols().intern("n"), dks = test::testSymbols().intern("dk");
  SymExpr n = SymExpr::symbol(ns), dk = SymExpr::symbol(dks);
  SymExpr e = n * dk + n;
  CHECK(e.substitute({{ns, SymExpr(3)}}) == 3 * dk + 3);
  CHECK(e.substitute({{dks, n}}) == n * n + n);
  CHECK(e.substitute({{ns, SymExpr(2)}, {dks, SymExpr(5)}}).constant() == 12);
  CHECK(e.substitute({}) == e);
  SECTION("into div and mod atoms, which then fold") {
    SymExpr d = SymExpr::floorDiv(n, 2);
    CHECK(d.substitute({{ns, SymExpr(9)}}).constant() == 4);
    CHECK(d.substitute({{ns, SymExpr(-9)}}).constant() == -5);
    CHECK(d.substitute({{ns, 2 * dk}}) == dk);
    CHECK(SymExpr::mod(n, 2).substitute({{ns, 2 * dk}}) == 0);
    CHECK(SymExpr::mod(n + 1, dk).substitute({{dks, SymExpr(3)}, {ns, SymExpr(4)}}).constant() == 2);
  }
  SECTION("into a zero divisor throws") {
    CHECK_THROWS_AS(SymExpr::floorDiv(n, dk).substitute({{dks, SymExpr(0)}}), SymArithmeticError);
  }
}

TEST_CASE("Symbolic evaluate", "[symbolic]") {
  SymExpr n = sym("n"), dk = sym("dk");
  CHECK((n * dk + 1).evaluate(env({{"n", 3}, {"dk", 4}})) == 13);
  CHECK((n * n - 2 * n).evaluate(env({{"n", 5}})) == 15);
  CHECK(SymExpr(-7).evaluate(env({})) == -7);
  CHECK(SymExpr::floorDiv(n, 2).evaluate(env({{"n", -7}})) == -4);
  CHECK(SymExpr::mod(n, 3).evaluate(env({{"n", -7}})) == 2);
  CHECK(SymExpr::floorDiv(n * dk, dk + 1).evaluate(env({{"n", 4}, {"dk", 2}})) == 2);
  CHECK_THROWS_AS((n + dk).evaluate(env({{"n", 1}})), SymArithmeticError);
}

TEST_CASE("Symbolic linearCoefficient", "[symbolic]") {
  Symbol ns = test::testSymbols().intern("n"), dks = test::testSymbols().intern("dk"), ms = test::testSymbols().intern("m");
  SymExpr n = SymExpr::symbol(ns), dk = SymExpr::symbol(dks), m = SymExpr::symbol(ms);
  SymExpr e = 3 * n + n * dk + 5;
  REQUIRE(e.linearCoefficient(ns));
  CHECK(*e.linearCoefficient(ns) == dk + 3);
  REQUIRE(e.linearCoefficient(dks));
  CHECK(*e.linearCoefficient(dks) == n);
  REQUIRE(e.linearCoefficient(ms));
  CHECK(*e.linearCoefficient(ms) == 0);
  CHECK(*(m * 7 - m).linearCoefficient(ms) == 6);
  CHECK_FALSE((n * n + 1).linearCoefficient(ns).has_value());
  CHECK_FALSE((n + SymExpr::floorDiv(n, 2)).linearCoefficient(ns).has_value());
  CHECK_FALSE((m + SymExpr::mod(dk, n)).linearCoefficient(ns).has_value());
  // a div atom not involving the symbol is a constant factor
  REQUIRE((n * SymExpr::floorDiv(dk, 2)).linearCoefficient(ns));
  CHECK(*(n * SymExpr::floorDiv(dk, 2)).linearCoefficient(ns) == SymExpr::floorDiv(dk, 2));
}

TEST_CASE("Symbolic symbols and dependsOn", "[symbolic]") {
  Symbol a = test::testSymbols().intern("depA"), b = test::testSymbols().intern("depB"), c = test::testSymbols().intern("depC");
  SymExpr e = SymExpr::symbol(b) * SymExpr::symbol(a) + SymExpr::floorDiv(SymExpr::symbol(c), SymExpr::symbol(a));
  CHECK(e.symbols() == std::vector<Symbol>{a, b, c});
  CHECK(e.dependsOn(c));
  CHECK_FALSE(SymExpr(4).dependsOn(a));
  CHECK(SymExpr(4).symbols().empty());
}

TEST_CASE("Symbolic overflow throws SymArithmeticError", "[symbolic]") {
  SymExpr n = sym("n");
  CHECK_THROWS_AS(SymExpr(INT64_MAX) + 1, SymArithmeticError);
  CHECK_THROWS_AS(SymExpr(INT64_MIN) - 1, SymArithmeticError);
  CHECK_THROWS_AS(SymExpr(INT64_MAX) * 2, SymArithmeticError);
  CHECK_THROWS_AS(-SymExpr(INT64_MIN), SymArithmeticError);
  CHECK_THROWS_AS(n * INT64_MAX + n, SymArithmeticError); // collecting like terms
  CHECK_THROWS_AS((n + INT64_MAX) * (n + 2), SymArithmeticError);
  CHECK_THROWS_WITH(SymExpr(INT64_MAX) + 1, "integer overflow in extent arithmetic");
  CHECK_THROWS_AS((n * n).evaluate(env({{"n", int64_t(1) << 32}})), SymArithmeticError);
  CHECK_THROWS_AS((n + 1).evaluate(env({{"n", INT64_MAX}})), SymArithmeticError);
  // the largest values that fit do not throw
  CHECK((SymExpr(INT64_MAX - 1) + 1).constant() == INT64_MAX);
  CHECK((n * n).evaluate(env({{"n", 3037000499}})) == 9223372030926249001);
}

TEST_CASE("Symbolic str", "[symbolic]") {
  // Interned here, in this order, so that products print as `pn*pk`.
  SymExpr n = sym("pn"), dk = sym("pk");
  CHECK(SymExpr().str() == "0");
  CHECK(SymExpr(42).str() == "42");
  CHECK(SymExpr(-3).str() == "-3");
  CHECK(n.str() == "pn");
  CHECK((-n).str() == "-pn");
  CHECK((2 * n).str() == "2*pn");
  CHECK((n - 3).str() == "pn - 3");
  CHECK((1 - 2 * n).str() == "-2*pn + 1");
  CHECK((dk * n + 2).str() == "pn*pk + 2");
  CHECK(((n + 1) * (n - 1)).str() == "pn*pn - 1");
  CHECK((n * dk + n + dk + 1).str() == "pn*pk + pn + pk + 1");
  CHECK((n - dk).str() == "pn - pk");
  SECTION("div and mod atoms") {
    CHECK(SymExpr::floorDiv(n, 2).str() == "pn div 2");
    CHECK(SymExpr::mod(n, dk).str() == "pn mod pk");
    CHECK(SymExpr::floorDiv(n + 1, 2).str() == "(pn + 1) div 2");
    CHECK(SymExpr::floorDiv(n, dk + 1).str() == "pn div (pk + 1)");
    CHECK(SymExpr::mod(n, -2).str() == "pn mod (-2)");
    CHECK((3 * SymExpr::floorDiv(n, 2)).str() == "3*(pn div 2)");
    CHECK((dk * SymExpr::floorDiv(n, 2)).str() == "pk*(pn div 2)");
    CHECK((SymExpr::floorDiv(n, 2) + 1).str() == "pn div 2 + 1");
    CHECK((-SymExpr::floorDiv(n, 2)).str() == "-(pn div 2)");
    CHECK((1 - SymExpr::floorDiv(n, 2)).str() == "-(pn div 2) + 1");
    CHECK((dk - SymExpr::floorDiv(n, 2)).str() == "pk - pn div 2");
    CHECK((-SymExpr::floorDiv(-n, 2)).str() == "-((-pn) div 2)");
  }
  SECTION("extreme coefficients print their true magnitude") {
    CHECK(SymExpr(INT64_MIN).str() == "-9223372036854775808");
    CHECK((n + SymExpr(INT64_MIN)).str() == "pn - 9223372036854775808");
    CHECK((n * SymExpr(INT64_MIN)).str() == "-9223372036854775808*pn");
    CHECK((dk + n * SymExpr(INT64_MIN)).str() == "-9223372036854775808*pn + pk");
  }
}

TEST_CASE("Symbolic strShape", "[symbolic]") {
  SymExpr b = sym("sb"), g = sym("sg"), hkv = sym("shkv"), hq = sym("shq"), n = sym("sn");
  CHECK(strShape({}) == "⟨⟩");
  CHECK(strShape({n}) == "⟨sn⟩");
  CHECK(strShape({b, hq, n}) == "⟨sb shq sn⟩");
  CHECK(strShape({SymExpr(4), n, SymExpr(0)}) == "⟨4 sn 0⟩");
  CHECK(strShapeAscii({b, n}) == "<sb sn>");
  SECTION("one entry that is not plain puts commas between all of them") {
    CHECK(strShape({b, SymExpr::floorDiv(g * hkv, hq)}) == "⟨sb, (sg*shkv) div shq⟩");
    CHECK(strShape({n + 1, b}) == "⟨sn + 1, sb⟩");
    CHECK(strShape({SymExpr(-1), n}) == "⟨-1, sn⟩");
    CHECK(strShape({2 * n}) == "⟨2*sn⟩");
    CHECK(strShapeAscii({n - 1, SymExpr(3)}) == "<sn - 1, 3>");
  }
}

TEST_CASE("Symbolic product", "[symbolic]") {
  SymExpr n = sym("n"), dk = sym("dk");
  CHECK(product({}) == 1);
  CHECK(product({n}) == n);
  CHECK(product({n, dk, SymExpr(2)}) == 2 * n * dk);
  CHECK(product({n, SymExpr(0)}) == 0);
}

TEST_CASE("signOf: least values (dim t >= 0) and assumptions (assume w <= n)", "[symbolic]") {
  SymbolTable table; // its own: the least values and facts below belong to it
  Symbol t = table.intern("t"), n = table.intern("n"), w = table.intern("w"), c = table.intern("cap");
  SymExpr T = SymExpr::symbol(t), N = SymExpr::symbol(n), W = SymExpr::symbol(w), C = SymExpr::symbol(c);
  CHECK(signOf(T) == Sign::Positive); // the language's default: dims are at least 1
  table.setLeast(t, 0);
  CHECK(signOf(T) == Sign::NonNegative);
  CHECK(signOf(T * N) == Sign::NonNegative);
  CHECK(signOf(T + 1) == Sign::Positive);
  CHECK(signOf(T - 1) == Sign::Unknown); // was NonNegative while t was at least 1
  CHECK(signOf(-T) == Sign::NonPositive);
  CHECK(signOf(T, Least::AsIfPositive) == Sign::Positive);
  CHECK(signOf(T - 1, Least::AsIfPositive) == Sign::NonNegative);
  table.setLeast(c, 3);
  CHECK(signOf(C - 3) == Sign::NonNegative);
  CHECK(signOf(C - 2) == Sign::Positive);
  SECTION("an assumption decides what the least values leave open") {
    CHECK(signOf(N - W) == Sign::Unknown);
    table.assume(N - W); // assume w <= n
    CHECK(signOf(N - W) == Sign::NonNegative);
    CHECK(signOf(N - W + 1) == Sign::Positive);
    CHECK(signOf(W - N) == Sign::NonPositive);
    CHECK(signOf(W - N - 1) == Sign::Negative);
    CHECK(signOf(2 * N - W) == Sign::Positive); // n − w ≥ 0 and n ≥ 1
    table.assume(C - N - 1);                    // assume n < cap
    CHECK(signOf(C - W) == Sign::Positive);     // the two facts together: cap − w ≥ 1
    CHECK(signOf(C - T) == Sign::Unknown);      // nothing relates t and cap
  }
  SECTION("an equality, as two facts, makes the difference zero") {
    table.assume(N - W);
    table.assume(W - N);
    CHECK(signOf(N - W) == Sign::Zero);
  }
}

TEST_CASE("Symbolic loads: a gather's index, bounded, substituted and evaluated", "[symbolic][gather]") {
  SymExpr i = sym("gi"), V = sym("gV"), d = sym("gd");
  SymExpr load = SymExpr::load(3, "ids", i + 1, V);
  SymExpr offset = d * load + sym("gj");
  CHECK(offset.hasLoad());
  CHECK_FALSE((d * i).hasLoad());
  CHECK(load.str() == "ids[gi + 1]");
  CHECK(offset.dependsOn(test::testSymbols().intern("gi"))); // through the load's offset
  // substitution rewrites the offset inside the load
  SymExpr moved = load.substitute({{test::testSymbols().intern("gi"), sym("gk")}});
  CHECK(moved == SymExpr::load(3, "ids", sym("gk") + 1, V));
  CHECK_FALSE(moved == SymExpr::load(4, "ids", sym("gk") + 1, V)); // another array
  // evaluation reads the array through the callback; without one it is an error
  auto values = env({{"gi", 2}, {"gd", 10}, {"gj", 7}, {"gV", 5}});
  CHECK(offset.evaluate(values, [](uint32_t array, int64_t at) { return int64_t(array) * 100 + at; }) == 3037);
  CHECK_THROWS_AS(offset.evaluate(values), SymArithmeticError);
  // a load is at least 0 (checked at run time), so d*ids[..] + 1 is positive
  CHECK(signOf(d * load + 1) == Sign::Positive);
  // bounded by its axis: [0, V - 1]
  auto bounds = indexBounds(load, {});
  REQUIRE(bounds);
  CHECK(bounds->first == SymExpr(0));
  CHECK(bounds->second == V - 1);
  CHECK_FALSE(indexBounds(SymExpr::load(3, "ids", i, SymExpr(0)), {})); // bound not known yet
  // withLoadBounds sets a bound where it is missing
  SymExpr unbounded = SymExpr::load(3, "ids", i, SymExpr(0));
  CHECK(unbounded.withLoadBounds([&](const SymExpr::Atom &) { return V; }) == SymExpr::load(3, "ids", i, V));
  int loads = 0;
  offset.forEachLoad([&](const SymExpr::Atom &a) { loads += a.array == 3; });
  CHECK(loads == 1);
}

