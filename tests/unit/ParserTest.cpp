// Unit tests of the parser: precedence and associativity (checked on a compact s-expression of the AST),
// the statement forms, and error reporting with file:line:col and recovery to later lines.
#include "FrontEnd.h"

#include <fmt/format.h>

using namespace moac;
using moac::test::parseText;

namespace {

// (op lhs rhs) for operators, the name for names, the value for numbers: enough to see the tree shape.
std::string sexpr(const Expr &e) {
  auto args = [&](size_t from = 0) {
    std::string out;
    for (size_t i = from; i < e.args.size(); ++i)
      out += " " + sexpr(*e.args[i]);
    return out;
  };
  switch (e.kind) {
  case ExprKind::Number: return e.isInt ? std::to_string(e.intValue) : fmt::format("{}", e.floatValue);
  case ExprKind::Name: return e.name;
  case ExprKind::Vector: {
    std::string out = "<";
    for (size_t i = 0; i < e.args.size(); ++i)
      out += (i ? (e.commas ? ", " : " ") : "") + sexpr(*e.args[i]);
    return out + ">";
  }
  case ExprKind::Unary: return fmt::format("({}{})", spell(e.unop), args());
  case ExprKind::Binary: return fmt::format("({}{})", spell(e.op), args());
  case ExprKind::Reduce:
    return fmt::format("({}/{}{})", spell(e.op), e.axis ? fmt::format("[{}]", e.axis) : "", args());
  case ExprKind::Inner: return fmt::format("({}.{}{})", spell(e.op), spell(e.op2), args());
  case ExprKind::Outer: return fmt::format("(o.{}{})", spell(e.op2), args());
  case ExprKind::Call: return fmt::format("(call {}{})", e.name, args());
  case ExprKind::Comprehension: {
    std::string binders;
    for (const Binder &b : e.binders)
      binders += (binders.empty() ? "" : ", ") + b.name + "<" + sexpr(*b.extent);
    return fmt::format("([{}]{})", binders, args());
  }
  default: {
    std::string name = exprKindName(e.kind);
    name[0] = char(std::tolower(name[0]));
    return fmt::format("({}{})", name, args());
  }
  }
}

// Parses `x = <text>` and returns the s-expression of the right-hand side, or the diagnostics.
std::string parseExpr(const std::string &text) {
  auto parsed = parseText("x = " + text + "\n");
  if (parsed.errors)
    return "error: " + parsed.diags;
  if (parsed.program.items.size() != 1)
    return "error: not one item";
  const auto *b = std::get_if<Binding>(&parsed.program.items[0]);
  return b ? sexpr(*b->value) : "error: not a binding";
}

const Expr &valueOf(const Program &p, size_t item) { return *std::get<Binding>(p.items.at(item)).value; }

} // namespace

TEST_CASE("Parser precedence of arithmetic", "[parser]") {
  CHECK(parseExpr("a + b * c") == "(+ a (* b c))");
  CHECK(parseExpr("a * b + c") == "(+ (* a b) c)");
  CHECK(parseExpr("(a + b) * c") == "(* (+ a b) c)");
  CHECK(parseExpr("a - b - c") == "(- (- a b) c)");
  CHECK(parseExpr("a / b / c") == "(/ (/ a b) c)");
  CHECK(parseExpr("a - b + c") == "(+ (- a b) c)");
  CHECK(parseExpr("a max b * c") == "(* (max a b) c)");
  CHECK(parseExpr("a + b max c") == "(+ a (max b c))");
  CHECK(parseExpr("a min b") == "(min a b)");
  CHECK(parseExpr("a mod b + 1") == "(+ (mod a b) 1)");
}

TEST_CASE("Parser comparisons, logic and where", "[parser]") {
  CHECK(parseExpr("a + 1 < b * 2") == "(< (+ a 1) (* b 2))");
  CHECK(parseExpr("j <= i") == "(<= j i)");
  CHECK(parseExpr("a cat b == c") == "(== (cat a b) c)");
  CHECK(parseExpr("a < b and c >= d or e != f") == "(or (and (< a b) (>= c d)) (!= e f))");
  CHECK(parseExpr("not a < b and c") == "(and (not (< a b)) c)");
  CHECK(parseExpr("not not a") == "(not (not a))");
  CHECK(parseExpr("where(j <= i, <i j> psi s, -inf)") == "(where (<= j i) (psi <i j> s) -inf)");
  CHECK(parseExpr("[i < n] <i> psi x > 0.5") == "([i<n] (> (psi <i> x) 0.5))");
  CHECK(parseExpr("<i j> psi K") == "(psi <i j> K)");
  CHECK(parseExpr("a < b < c").find("comparisons do not chain") != std::string::npos);
  CHECK(parseExpr("where(a, b)").find("takes 3 arguments") != std::string::npos);
  CHECK(parseExpr("tanh x * 2") == "(* (tanh x) 2)");
  CHECK(parseExpr("pow(x, 2.0) + sigmoid(y)") == "(+ (pow x 2) (sigmoid y))");
}

TEST_CASE("Parser attention expressions", "[parser]") {
  CHECK(parseExpr("(q +.* tran K) / sqrt(dk)") == "(/ (+.* q (tran K)) (sqrt dk))");
  CHECK(parseExpr("q +.* tran K / sqrt(dk)") == "(/ (+.* q (tran K)) (sqrt dk))");
  CHECK(parseExpr("e / (+/ e)") == "(/ e (+/ e))");
  CHECK(parseExpr("exp(x - m)") == "(exp (- x m))");
  CHECK(parseExpr("max/ x") == "(max/ x)");
  CHECK(parseExpr("softmax(s) +.* V") == "(+.* (call softmax s) V)");
  CHECK(parseExpr("a o.* b") == "(o.* a b)");
  CHECK(parseExpr("a max.+ b") == "(max.+ a b)");
  CHECK(parseExpr("+/ e * 2") == "(* (+/ e) 2)");
  CHECK(parseExpr("sqrt dk * 2") == "(* (sqrt dk) 2)");
  CHECK(parseExpr("K cat k + 1") == "(cat K (+ k 1))");
  CHECK(parseExpr("A ++ B ++ C") == "(cat (cat A B) C)");
}

TEST_CASE("Parser index vectors", "[parser]") {
  CHECK(parseExpr("<l j> psi K") == "(psi <l j> K)");
  CHECK(parseExpr("⟨l j⟩ ψ K") == "(psi <l j> K)");
  CHECK(parseExpr("<b, g * hkv div hq> psi K") == "(psi <b, (div (* g hkv) hq)> K)");
  CHECK(parseExpr("<b, g div hq * hkv> psi K") == "(psi <b, (* (div g hq) hkv)> K)");
  CHECK(parseExpr("<i, j+1> psi A") == "(psi <i, (+ j 1)> A)");
  CHECK(parseExpr("<>") == "<>");
  CHECK(parseExpr("<1 0> tran K") == "(tran <1 0> K)");
  CHECK(parseExpr("<2 n> reshape A") == "(reshape <2 n> A)");
  SECTION("a negative literal in a spaced vector is its own element") {
    CHECK(parseExpr("<0 -1> take A") == "(take <0 -1> A)");
    CHECK(parseExpr("<i - 1>") == "<(- i 1)>");
    CHECK(parseExpr("<i-1>") == "<(- i 1)>");
  }
}

TEST_CASE("Parser structural operators", "[parser]") {
  CHECK(parseExpr("-1 take A") == "(take -1 A)");
  CHECK(parseExpr("- 1 take A") == "(neg (take 1 A))");
  CHECK(parseExpr("-2.5") == "-2.5");
  CHECK(parseExpr("-x * 2") == "(* (neg x) 2)");
  CHECK(parseExpr("2 * -x") == "(* 2 (neg x))");
  CHECK(parseExpr("a - -1") == "(- a -1)");
  CHECK(parseExpr("a -1") == "(- a 1)");
  CHECK(parseExpr("<i> psi 2 take A") == "(psi <i> (take 2 A))");
  CHECK(parseExpr("<i> psi A + 1") == "(+ (psi <i> A) 1)");
  CHECK(parseExpr("2 drop 3 take A") == "(drop 2 (take 3 A))");
  CHECK(parseExpr("rho iota n") == "(rho (iota n))");
  CHECK(parseExpr("rav tran A") == "(rav (tran A))");
  CHECK(parseExpr("neg abs log x") == "(neg (abs (log x)))");
  CHECK(parseExpr("<i> psi tran K") == "(psi <i> (tran K))");
  CHECK(parseExpr("n take iota n") == "(take n (iota n))");
  SECTION("negative literal values") {
    auto parsed = parseText("x = -1 take A\n");
    REQUIRE(parsed.errors == 0);
    const Expr &count = *valueOf(parsed.program, 0).args[0];
    CHECK(count.kind == ExprKind::Number);
    CHECK(count.isInt);
    CHECK(count.intValue == -1);
    CHECK(count.length == 2);
    CHECK(count.loc.col == 5);
  }
}

TEST_CASE("Parser reductions along an axis and the right folds", "[parser]") {
  CHECK(parseExpr("+/[1] A") == "(+/[1] A)");
  CHECK(parseExpr("+/ [1] A") == "(+/[1] A)");
  CHECK(parseExpr("max/[2] A * 2") == "(* (max/[2] A) 2)");
  CHECK(parseExpr("+/[1] +/ A") == "(+/[1] (+/ A))");
  CHECK(parseExpr("+/[0] A") == "(+/ A)");
  CHECK(parseExpr("+/[-1] A") == "(+/[-1] A)"); // rejected by the shape checker, at the axis
  CHECK(parseExpr("-/ x") == "(-/ x)");
  CHECK(parseExpr("−/[1] A") == "(-/[1] A)");
  CHECK(parseExpr("// x") == "(// x)");
  CHECK(parseExpr("÷/ x") == "(// x)");
  CHECK(parseExpr("A -.* B") == "(-.* A B)");
  CHECK(parseExpr("A ÷.× B") == "(/.* A B)");
  SECTION("a bracket after a reduction that is not [number] is a comprehension") {
    CHECK(parseExpr("+/ [i < n] i") == "(+/ ([i<n] i))");
    CHECK(parseExpr("+/[i < n] i") == "(+/ ([i<n] i))");
  }
  SECTION("the node spans the reduction and its axis") {
    auto parsed = parseText("x = +/[12] A\n");
    REQUIRE(parsed.errors == 0);
    const Expr &r = valueOf(parsed.program, 0);
    CHECK(r.axis == 12);
    CHECK(r.loc.col == 5);
    CHECK(r.length == 6);
  }
  SECTION("an axis that is not an integer literal") {
    auto parsed = parseText("x = +/[1.5] A\n");
    CHECK(parsed.diags.find("t.moa:1:8: error: expected an integer axis but found '1.5'") == 0);
  }
  SECTION("the Unicode minus makes negative literals like '-'") {
    CHECK(parseExpr("−1 take A") == "(take -1 A)");
    CHECK(parseExpr("a − 1") == "(- a 1)");
  }
}

TEST_CASE("Parser max and min as functions", "[parser]") {
  CHECK(parseExpr("max(a, b)") == "(max a b)");
  CHECK(parseExpr("min(a + 1, b) * 2") == "(* (min (+ a 1) b) 2)");
  CHECK(parseExpr("x * max(a, b)") == "(* x (max a b))");
  auto parsed = parseText("x = max(a)\n");
  CHECK(parsed.errors == 1);
  CHECK(parsed.diags.find("t.moa:1:5: error:") == 0);
  CHECK(parsed.diags.find("takes 2 arguments but 1 was given") != std::string::npos);
}

TEST_CASE("Parser comprehensions", "[parser]") {
  CHECK(parseExpr("[i < n] x + 1") == "([i<n] (+ x 1))");
  CHECK(parseExpr("[i < n] <i> psi A cat B") == "([i<n] (cat (psi <i> A) B))");
  CHECK(parseExpr("[b < B, g < hq] f(<b g> psi Q)") == "([b<B, g<hq] (call f (psi <b g> Q)))");
  CHECK(parseExpr("[i < 2 * n] i") == "([i<(* 2 n)] i)");
  CHECK(parseExpr("1 + [i < n] i * 2") == "(+ 1 ([i<n] (* i 2)))");
  CHECK(parseExpr("([i < n] i) * 2") == "(* ([i<n] i) 2)");
  // In an element of a vector the body ends with the element: the `>` closes the vector (a body parsed as a
  // whole expression read it as a comparison and failed at the ')' after it: difftest seed 1103085).
  CHECK(parseExpr("<+/ [j < n] <j> psi v, 2>") == "<(+/ ([j<n] (psi <j> v))), 2>");
  CHECK(parseExpr("(<-/ [j < n] (v * 2)>)") == "<(-/ ([j<n] (* v 2)))>");
  CHECK(parseExpr("<f([j < n] a > b)>") == "<(call f ([j<n] (> a b)))>");
  CHECK(parseExpr("<([j < n] a > b)>") == "<([j<n] (> a b))>");
  SECTION("binder locations") {
    auto parsed = parseText("x = [i < n, j < m] i\n");
    REQUIRE(parsed.errors == 0);
    const Expr &c = valueOf(parsed.program, 0);
    REQUIRE(c.binders.size() == 2);
    CHECK(c.binders[0].loc.col == 6);
    CHECK(c.binders[1].name == "j");
    CHECK(c.binders[1].loc.col == 13);
  }
}

TEST_CASE("Parser dims declared >= k, and assumptions", "[parser]") {
  auto parsed = parseText("dim t >= 0, n, w >= 2\nassume w <= n, t < n + 1\nassume n == w\n");
  REQUIRE(parsed.errors == 0);
  const auto &items = parsed.program.items;
  REQUIRE(items.size() == 6);
  CHECK(std::get<DimDecl>(items[0]).least == 0);
  CHECK(std::get<DimDecl>(items[0]).leastLoc.col == 10);
  CHECK(!std::get<DimDecl>(items[1]).least);
  CHECK(std::get<DimDecl>(items[2]).least == 2);
  CHECK(sexpr(*std::get<AssumeDecl>(items[3]).relation) == "(<= w n)");
  CHECK(sexpr(*std::get<AssumeDecl>(items[4]).relation) == "(< t (+ n 1))");
  CHECK(std::get<AssumeDecl>(items[4]).loc.col == 16);
  CHECK(sexpr(*std::get<AssumeDecl>(items[5]).relation) == "(== n w)");
  CHECK(dumpAst(parsed.program).find("Dim t >= 0 @1:5\n") == 0);
  SECTION("the least value is an integer literal") {
    auto bad = parseText("dim t >= -1\n");
    CHECK(bad.diags.find("t.moa:1:10: error: expected the dim's least value, an integer such as 0 but found '-'") == 0);
  }
  SECTION("assume is a reserved word") {
    CHECK(parseText("assume = 1\n").errors == 1);
  }
}

TEST_CASE("Parser calls", "[parser]") {
  CHECK(parseExpr("f(a, b + 1)") == "(call f a (+ b 1))");
  CHECK(parseExpr("f()") == "(call f)");
  CHECK(parseExpr("f(g(x))") == "(call f (call g x))");
  CHECK(parseExpr("f(\n  a,\n  b)") == "(call f a b)"); // newlines are invisible inside brackets
}

TEST_CASE("Parser declarations", "[parser]") {
  auto parsed = parseText("dim n, dk, B = 4\n"
                          "in q : f32[dk]\n"
                          "inout K : f64[n, dk]\n"
                          "in s : f32\n"
                          "y = q\n"
                          "out o = y; out p = y\n");
  REQUIRE(parsed.errors == 0);
  const auto &items = parsed.program.items;
  REQUIRE(items.size() == 9);
  CHECK(std::get<DimDecl>(items[0]).name == "n");
  CHECK(std::get<DimDecl>(items[0]).value == nullptr);
  CHECK(std::get<DimDecl>(items[2]).name == "B");
  REQUIRE(std::get<DimDecl>(items[2]).value);
  CHECK(std::get<DimDecl>(items[2]).value->intValue == 4);
  const auto &q = std::get<ArrayDecl>(items[3]);
  CHECK(q.role == ArrayRole::In);
  CHECK(q.elem == ElemType::F32);
  CHECK(q.extents.size() == 1);
  const auto &k = std::get<ArrayDecl>(items[4]);
  CHECK(k.role == ArrayRole::InOut);
  CHECK(k.elem == ElemType::F64);
  CHECK(k.extents.size() == 2);
  CHECK(std::get<ArrayDecl>(items[5]).extents.empty());
  CHECK_FALSE(std::get<Binding>(items[6]).isOutput);
  CHECK(std::get<Binding>(items[7]).isOutput);
  CHECK(std::get<Binding>(items[8]).name == "p");
  CHECK(std::get<Binding>(items[8]).loc.line == 6);
  CHECK(std::get<Binding>(items[8]).loc.col == 16);
}

TEST_CASE("Parser half-precision types and typed outputs", "[parser]") {
  auto parsed = parseText("dim n\n"
                          "in K : bf16[n]\n"
                          "inout V : f16[n]\n"
                          "out o : bf16 = K\n"
                          "out p : f64 = K\n"
                          "out r = K\n");
  REQUIRE(parsed.errors == 0);
  const auto &items = parsed.program.items;
  REQUIRE(items.size() == 6);
  CHECK(std::get<ArrayDecl>(items[1]).elem == ElemType::BF16);
  CHECK(std::get<ArrayDecl>(items[2]).elem == ElemType::F16);
  const auto &o = std::get<Binding>(items[3]);
  REQUIRE(o.elem);
  CHECK(*o.elem == ElemType::BF16);
  CHECK(o.elemLoc.col == 9);
  CHECK(std::get<Binding>(items[4]).elem == ElemType::F64);
  CHECK_FALSE(std::get<Binding>(items[5]).elem);
}

TEST_CASE("Parser function forms", "[parser]") {
  SECTION("fn f(x) = expr") {
    auto parsed = parseText("fn f(x, y) = x + y * 2\n");
    REQUIRE(parsed.errors == 0);
    REQUIRE(parsed.program.items.size() == 1);
    const auto &fn = std::get<FnDecl>(parsed.program.items[0]);
    CHECK(fn.name == "f");
    CHECK(fn.params == std::vector<std::string>{"x", "y"});
    CHECK(fn.paramLocs[1].col == 9);
    CHECK(fn.locals.empty());
    REQUIRE(fn.result);
    CHECK(sexpr(*fn.result) == "(+ x (* y 2))");
  }
  SECTION("fn f(x) { locals; result }") {
    auto parsed = parseText("fn softmax(x) {\n"
                            "  m = max/ x\n"
                            "\n"
                            "  e = exp(x - m); e / (+/ e)\n"
                            "}\n"
                            "out o = softmax(s)\n");
    INFO(parsed.diags);
    REQUIRE(parsed.errors == 0);
    REQUIRE(parsed.program.items.size() == 2);
    const auto &fn = std::get<FnDecl>(parsed.program.items[0]);
    CHECK(fn.params == std::vector<std::string>{"x"});
    REQUIRE(fn.locals.size() == 2);
    CHECK(fn.locals[0].name == "m");
    CHECK(sexpr(*fn.locals[0].value) == "(max/ x)");
    CHECK(fn.locals[1].name == "e");
    CHECK(sexpr(*fn.locals[1].value) == "(exp (- x m))");
    REQUIRE(fn.result);
    CHECK(sexpr(*fn.result) == "(/ e (+/ e))");
    CHECK(std::get<Binding>(parsed.program.items[1]).isOutput);
  }
  SECTION("a one-line body and no parameters") {
    auto parsed = parseText("fn one() { 1 }\n");
    REQUIRE(parsed.errors == 0);
    const auto &fn = std::get<FnDecl>(parsed.program.items[0]);
    CHECK(fn.params.empty());
    CHECK(sexpr(*fn.result) == "1");
  }
}

TEST_CASE("Parser dumpAst", "[parser]") {
  auto parsed = parseText("dim n\nin A : f32[n]\nfn f(x) = -x\nout o = <0> psi f(A)\n");
  REQUIRE(parsed.errors == 0);
  CHECK(dumpAst(parsed.program) == "Dim n @1:5\n"
                                   "In A : f32 @2:4\n"
                                   "  Name n @2:12\n"
                                   "Fn f(x) @3:4\n"
                                   "  Result\n"
                                   "    Unary neg @3:11\n"
                                   "      Name x @3:12\n"
                                   "Out o @4:5\n"
                                   "  Psi @4:13\n"
                                   "    Vector @4:9\n"
                                   "      Number 0 @4:10\n"
                                   "    Call f @4:17\n"
                                   "      Name A @4:19\n");
}

// Every error carries file:line:col; the parser resynchronises and reports a later line's error too.
TEST_CASE("Parser errors", "[parser]") {
  struct Case {
    const char *text;
    const char *first; // the first diagnostic line
  };
  const Case cases[] = {
      {"x = \n", "t.moa:1:4: error: expected an expression but found end of line"},
      {"x = a +\n", "t.moa:1:8: error: expected an expression but found end of line"},
      {"x = (a + b\n", "t.moa:1:11: error: expected ')' to close this '('"},
      {"x = <i j\n", "t.moa:1:9: error: expected '>' to close this '<'"},
      {"x = f(a, b\n", "t.moa:1:11: error: expected ')' to close this '('"},
      {"in q : f8[n]\n", "t.moa:1:8: error: unknown element type 'f8' (expected f32, f64, bf16, f16, i32 or i64)"},
      {"out o : half = a\n", "t.moa:1:9: error: unknown element type 'half' (expected f32, f64, bf16, f16, i32 or i64)"},
      {"s : bf16 = a\n", "t.moa:1:1: error: 's' is a named binding: it has its value's type"},
      {"in q f32\n", "t.moa:1:6: error: expected ':' and an element type but found 'f32'"},
      {"x = <i j, k> psi A\n", "t.moa:1:5: error: separate index expressions with commas"},
      {"x = <i+1 j> psi A\n", "t.moa:1:7: error: separate index expressions with commas"},
      {"fn f(x) { }\n", "t.moa:1:11: error: function 'f' has no result expression"},
      {"a + b\n", "t.moa:1:1: error: expression result is not used"},
      {"dim psi\n", "t.moa:1:5: error: 'psi' is a reserved word"},
      {"fn f(x) = x y\n", "t.moa:1:13: error: expected end of line but found 'y'"},
      {"x = [i n] i\n", "t.moa:1:8: error: expected '<' and the extent of the index but found 'n'"},
      {"out = 1\n", "t.moa:1:5: error: expected an output name but found '='"},
      {"fn f x\n", "t.moa:1:6: error: expected '(' and the parameter list but found 'x'"},
      {"x = 1 )\n", "t.moa:1:7: error: expected end of line but found ')'"},
      {"} \n", "t.moa:1:1: error: expected a declaration or 'NAME = expr' but found '}'"},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    auto parsed = parseText(c.text);
    CHECK(parsed.errors == 1);
    CHECK(parsed.diags.rfind(c.first, 0) == 0);
    INFO(parsed.diags);
    // recovery: errors on later lines are reported as well, with their own locations
    auto more = parseText(std::string(c.text) + "out y = 1 +\nz = 1 +\nout w = 1\n");
    CHECK(more.diags.find("t.moa:2:12: error: expected an expression but found end of line") != std::string::npos);
    CHECK(more.diags.find("t.moa:3:8: error: expected an expression but found end of line") != std::string::npos);
    CHECK(more.errors == 3);
    REQUIRE(!more.program.items.empty());
    const auto *last = std::get_if<Binding>(&more.program.items.back());
    REQUIRE(last);
    CHECK(last->name == "w");
  }
}

TEST_CASE("Parser errors in function bodies", "[parser]") {
  SECTION("a missing '}' is one error, and the next item still parses") {
    auto parsed = parseText("fn f(x) {\n  x\nout o = f(q)\n");
    CHECK(parsed.errors == 1);
    CHECK(parsed.diags.rfind("t.moa:2:4: error: expected '}' to close this '{'", 0) == 0);
    CHECK(parsed.diags.find("t.moa:1:9: note: '{' opened here") != std::string::npos);
    REQUIRE(parsed.program.items.size() == 2);
    CHECK(std::get<Binding>(parsed.program.items[1]).name == "o");
  }
  SECTION("an expression followed by another statement is unused") {
    auto parsed = parseText("fn f(x) {\n  x\n  x + 1\n}\nout o = f(q)\n");
    CHECK(parsed.errors == 1);
    CHECK(parsed.diags.rfind("t.moa:2:3: error: expression result is not used", 0) == 0);
    REQUIRE(parsed.program.items.size() == 2);
  }
  SECTION("an error inside the body resynchronises within the body") {
    auto parsed = parseText("fn f(x) {\n  y = x +\n  z = )\n  x\n}\nout o = f(q)\n");
    CHECK(parsed.errors == 2);
    CHECK(parsed.diags.rfind("t.moa:2:10: error: expected an expression but found end of line", 0) == 0);
    CHECK(parsed.diags.find("t.moa:3:7: error: expected an expression but found ')'") != std::string::npos);
    REQUIRE(parsed.program.items.size() == 2);
    CHECK(std::get<Binding>(parsed.program.items[1]).name == "o");
  }
}

TEST_CASE("Parser error rendering", "[parser]") {
  auto parsed = parseText("dim n\nx = (a +\n  b\nout o = x\n");
  CHECK(parsed.errors == 1);
  CHECK(parsed.diags == "t.moa:3:4: error: expected ')' to close this '('\n"
                        "    b\n"
                        "     ^\n"
                        "t.moa:2:5: note: '(' opened here\n"
                        "  x = (a +\n"
                        "      ^\n");
}

TEST_CASE("Parser nesting limit", "[parser]") {
  std::string deep = "x = " + std::string(300, '(') + "a" + std::string(300, ')') + "\nout y = 1\n";
  auto parsed = parseText(deep);
  CHECK(parsed.errors == 1);
  CHECK(parsed.diags.find("error: expression nested more than 200 levels deep") != std::string::npos);
  REQUIRE(!parsed.program.items.empty());
  CHECK(std::get<Binding>(parsed.program.items.back()).name == "y");
  SECTION("long operator chains count too") {
    std::string chain = "x = a";
    for (int i = 0; i < 300; ++i)
      chain += " + a";
    auto longChain = parseText(chain + "\n");
    CHECK(longChain.errors == 1);
    CHECK(longChain.diags.find("nested more than 200 levels deep") != std::string::npos);
  }
  SECTION("within the limit is fine") {
    std::string ok = "x = " + std::string(150, '(') + "a" + std::string(150, ')') + "\n";
    CHECK(parseText(ok).errors == 0);
  }
}

TEST_CASE("Parser stops after lexical errors in a statement", "[parser]") {
  // The lexer reports the bad byte; the parser drops that statement without a second error.
  auto parsed = parseText("x = a $ b\nout y = 1\n");
  CHECK(parsed.errors == 1);
  CHECK(parsed.diags.rfind("t.moa:1:7: error: unexpected character '$'", 0) == 0);
  REQUIRE(parsed.program.items.size() == 1);
  CHECK(std::get<Binding>(parsed.program.items[0]).name == "y");
}
