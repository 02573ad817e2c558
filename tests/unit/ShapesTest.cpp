// Unit tests of shape inference on whole programs (lex -> parse -> inferShapes): the paper's kernels,
// function inlining and shape polymorphism, name resolution and its errors, fixed dims, and the bounds
// of ψ indices inside comprehensions (an error when always out of range, a guard when the dims decide).
//
// Comprehension indices are fresh symbols whose printed names get numeric suffixes as more programs are
// checked in one process, so diagnostics that print an index are matched without the index's name.
#include "FrontEnd.h"

using namespace moac;
using moac::test::checkText;

namespace {

const char *decodeSource = R"(# single-query decode attention
dim n, dk, dv
in  q : f32[dk]
in  K : f32[n, dk]
in  V : f32[n, dv]

fn softmax(x) {
  m = max/ x
  e = exp(x - m)
  e / (+/ e)
}

s = (q +.* tran K) / sqrt(dk)
out o = softmax(s) +.* V
)";

const char *gqaSource = R"(# grouped-query decode attention
dim B, hq, hkv, n, dk, dv
in  Q : f32[B, hq, dk]
in  K : f32[B, hkv, n, dk]
in  V : f32[B, hkv, n, dv]

fn softmax(x) {
  m = max/ x
  e = exp(x - m)
  e / (+/ e)
}

fn attend(q, K, V) = softmax((q +.* tran K) / sqrt(dk)) +.* V

out O = [b < B, g < hq] attend(<b g> psi Q, <b, g * hkv div hq> psi K, <b, g * hkv div hq> psi V)
)";

const TBinding &binding(const TypedProgram &p, const std::string &name) {
  for (const auto &b : p.bindings)
    if (b->name == name)
      return *b;
  FAIL("no binding named " << name);
  throw;
}

std::string typeOf(const TypedProgram &p, const std::string &name) {
  return strType(binding(p, name).value->type);
}

std::vector<std::string> guards(const TypedProgram &p) {
  std::vector<std::string> out;
  for (const Guard &g : p.guards)
    out.push_back(g.str() + " (" + g.reason + ")");
  return out;
}

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

size_t count(const std::string &haystack, const std::string &needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1))
    ++n;
  return n;
}

// A program that must check; fails the test with its diagnostics otherwise.
// The program's context is kept to the end of the test run: the program alone is handed back, and its
// symbols point into it.
TypedProgram good(const std::string &text) {
  static std::vector<std::shared_ptr<CompilationContext>> kept;
  auto checked = checkText(text);
  kept.push_back(checked.ctx);
  INFO(checked.diags);
  REQUIRE(checked.program);
  CHECK(checked.diags.empty());
  return std::move(*checked.program);
}

// A program that must be rejected; returns its diagnostics.
std::string bad(const std::string &text) {
  auto checked = checkText(text);
  INFO(checked.diags);
  CHECK_FALSE(checked.program);
  CHECK(contains(checked.diags, "error:"));
  return checked.diags;
}

} // namespace

TEST_CASE("Shapes of decode attention", "[shapes]") {
  TypedProgram p = good(decodeSource);
  CHECK(typeOf(p, "s") == "f32⟨n⟩");
  CHECK(typeOf(p, "o") == "f32⟨dv⟩");
  CHECK(binding(p, "o").isOutput);
  CHECK_FALSE(binding(p, "s").isOutput);
  CHECK(p.guards.empty());
  REQUIRE(p.dims.size() == 3);
  CHECK(p.dims[1].name == "dk");
  CHECK_FALSE(p.dims[1].value);
  REQUIRE(p.inputs.size() == 3);
  CHECK(p.inputs[0].name == "q");
  CHECK(p.inputs[2].name == "V");
  CHECK(strShape(p.inputs[1].shape) == "⟨n dk⟩");
  CHECK(dumpShapes(p) == "dim n\n"
                         "dim dk\n"
                         "dim dv\n"
                         "in q : f32⟨dk⟩\n"
                         "in K : f32⟨n dk⟩\n"
                         "in V : f32⟨n dv⟩\n"
                         "s : f32⟨n⟩\n"
                         "out o : f32⟨dv⟩\n"
                         "  softmax.x : f32⟨n⟩\n"
                         "  softmax.m : f32⟨⟩\n"
                         "  softmax.e : f32⟨n⟩\n");
}

TEST_CASE("Shapes of grouped-query attention", "[shapes]") {
  TypedProgram p = good(gqaSource);
  CHECK(typeOf(p, "O") == "f32⟨B hq dv⟩");
  // g*hkv div hq < hkv for every g < hq, proved through the floor division: no run-time guard
  CHECK(p.guards.empty());
  const TExpr &o = *binding(p, "O").value;
  REQUIRE(o.kind == TKind::Comprehension);
  REQUIRE(o.indices.size() == 2);
  CHECK(o.indices[0].extent.str() == "B");
  CHECK(o.indices[1].extent.str() == "hq");
  SECTION("indexing the KV heads with g itself needs hq <= hkv") {
    std::string text = gqaSource;
    std::string from = "<b, g * hkv div hq> psi K", to = "<b, g> psi K";
    text.replace(text.find(from), from.size(), to);
    TypedProgram q = good(text);
    CHECK(guards(q) == std::vector<std::string>{"hq - 1 < hkv (psi index within its axis)"});
    CHECK(q.guards[0].loc.line == 15);
  }
}

TEST_CASE("Shapes of polymorphic functions", "[shapes]") {
  TypedProgram p = good("dim n, dk\n"
                        "in q : f32[dk]\n"
                        "in K : f32[n, dk]\n"
                        "fn twice(x) = x * 2\n"
                        "a = twice(q)\n"
                        "out o = twice(K) + twice(twice(K))\n");
  CHECK(typeOf(p, "a") == "f32⟨dk⟩");
  CHECK(typeOf(p, "o") == "f32⟨n dk⟩");
  // each call is inlined as a Let of the parameter around the body
  const TExpr &a = *binding(p, "a").value;
  REQUIRE(a.kind == TKind::Let);
  CHECK(a.let->name == "x");
  CHECK(a.let->origin == "twice");
  CHECK(strType(a.let->value->type) == "f32⟨dk⟩");
  REQUIRE(a.args.size() == 1);
  CHECK(a.args[0]->kind == TKind::Binary);
  CHECK(a.args[0]->args[0]->kind == TKind::Ref);
  CHECK(a.args[0]->args[0]->ref == a.let.get());
}

TEST_CASE("Shapes of functions see dims and inputs but not top-level bindings", "[shapes]") {
  TypedProgram p = good("dim n\nin q : f32[n]\nfn f(x) = x * n + q\nout o = f(q)\n");
  CHECK(typeOf(p, "o") == "f32⟨n⟩");
  std::string diags = bad("dim n\nin q : f32[n]\nfn f(x) = x + s\ns = q\nout o = f(q)\n");
  CHECK(contains(diags, "t.moa:3:15: error: unknown name 's'"));
  // a caller's comprehension index is not visible inside the function either
  std::string index = bad("dim n\nin q : f32[n]\nfn f(x) = x + i\nout o = [i < n] f(<i> psi q)\n");
  CHECK(contains(index, "t.moa:3:15: error: unknown name 'i'"));
  // functions may be called before their definition
  CHECK(typeOf(good("dim n\nin q : f32[n]\nout o = f(q)\nfn f(x) = +/ x\n"), "o") == "f32⟨⟩");
}

TEST_CASE("Shapes rejects recursion", "[shapes]") {
  SECTION("direct") {
    std::string diags = bad("dim n\nin q : f32[n]\nfn f(x) = f(x)\nout o = f(q)\n");
    CHECK(count(diags, "error:") == 1);
    CHECK(contains(diags, "t.moa:3:11: error: function 'f' calls itself"));
    CHECK(contains(diags, "t.moa:4:9: note: 'f' is called here"));
  }
  SECTION("mutual") {
    std::string diags = bad("dim n\nin q : f32[n]\nfn f(x) = g(x)\nfn g(y) = f(y)\nout o = f(q)\n");
    CHECK(count(diags, "error:") == 1);
    CHECK(contains(diags, "t.moa:4:11: error: function 'f' calls itself"));
    CHECK(contains(diags, "t.moa:5:9: note: 'f' is called here"));
    CHECK(contains(diags, "t.moa:3:11: note: 'g' is called here"));
  }
  SECTION("calling one function twice, nested, is not recursion") {
    TypedProgram p = good("dim n\nin q : f32[n]\nfn f(x) = x + 1\nfn g(y) = f(f(y))\nout o = g(q)\n");
    CHECK(typeOf(p, "o") == "f32⟨n⟩");
  }
}

TEST_CASE("Shapes reports arity mismatches", "[shapes]") {
  std::string diags = bad("dim n\nin q : f32[n]\nfn f(x) = x\nout o = f(q, q)\n");
  CHECK(contains(diags, "t.moa:4:9: error: function 'f' takes 1 argument but 2 were given"));
  std::string two = bad("dim n\nin q : f32[n]\nfn f(x, y) = x + y\nout o = f(q)\n");
  CHECK(contains(two, "t.moa:4:9: error: function 'f' takes 2 arguments but 1 was given"));
}

TEST_CASE("Shapes reports unknown names", "[shapes]") {
  CHECK(contains(bad("dim n\nin q : f32[n]\nout o = q + z\n"), "t.moa:3:13: error: unknown name 'z'"));
  CHECK(contains(bad("dim n\nin q : f32[n]\nout o = g(q)\n"), "t.moa:3:9: error: unknown function 'g'"));
  CHECK(contains(bad("dim n\nin q : f32[m]\nout o = q\n"), "t.moa:2:12: error: unknown name 'm'"));
  CHECK(contains(bad("dim n\nin q : f32[n]\nx = q\nout o = x(1)\n"), "t.moa:4:9: error: 'x' is not a function"));
  CHECK(contains(bad("dim n\nin q : f32[n]\nfn f(x) = x\nout o = f\n"),
                 "t.moa:4:9: error: function 'f' used as a value"));
  // a name used before its binding is unknown there
  CHECK(contains(bad("dim n\nin q : f32[n]\nout o = y\ny = q\n"), "t.moa:3:9: error: unknown name 'y'"));
  // a failed binding is reported once, not again at each use
  std::string once = bad("dim n\nin q : f32[n]\ny = q + z\nout o = y + y\n");
  CHECK(count(once, "error:") == 1);
}

TEST_CASE("Shapes reports redefinitions with the previous definition", "[shapes]") {
  SECTION("two top-level bindings") {
    std::string diags = bad("dim n\nin q : f32[n]\nx = q\nx = q\nout o = x\n");
    CHECK(contains(diags, "t.moa:4:1: error: redefinition of 'x'\n"));
    CHECK(contains(diags, "t.moa:3:1: note: previous definition of 'x' is here\n"));
  }
  SECTION("a dim and an input") {
    std::string diags = bad("dim n\nin n : f32[n]\nout o = n\n");
    CHECK(contains(diags, "t.moa:2:4: error: redefinition of 'n'"));
    CHECK(contains(diags, "t.moa:1:5: note: previous definition of 'n' is here"));
  }
  SECTION("a binding named like a function") {
    std::string diags = bad("dim n\nin q : f32[n]\nfn f(x) = x\nf = q\nout o = f(q)\n");
    CHECK(contains(diags, "t.moa:4:1: error: redefinition of 'f'"));
    CHECK(contains(diags, "t.moa:3:4: note: previous definition of 'f' is here"));
  }
  SECTION("two functions") {
    std::string diags = bad("dim n\nin q : f32[n]\nfn f(x) = x\nfn f(y) = y\nout o = f(q)\n");
    CHECK(contains(diags, "t.moa:4:4: error: redefinition of 'f'"));
    CHECK(contains(diags, "t.moa:3:4: note: previous definition of 'f' is here"));
  }
  SECTION("a local that redefines a parameter") {
    std::string diags = bad("dim n\nin q : f32[n]\nfn f(x) {\n  x = x + 1\n  x\n}\nout o = f(q)\n");
    CHECK(contains(diags, "t.moa:4:3: error: redefinition of 'x'"));
    CHECK(contains(diags, "t.moa:3:6: note: previous definition of 'x' is here"));
  }
  SECTION("a repeated parameter") {
    CHECK(contains(bad("dim n\nin q : f32[n]\nfn f(x, x) = x\nout o = f(q, q)\n"),
                   "t.moa:3:9: error: parameter 'x' appears twice"));
  }
  SECTION("two comprehension indices") {
    std::string diags = bad("dim n\nin A : f32[n, n]\nout o = [i < n, i < n] <i i> psi A\n");
    CHECK(contains(diags, "t.moa:3:17: error: redefinition of 'i'"));
    CHECK(contains(diags, "t.moa:3:10: note: previous definition of 'i' is here"));
  }
}

TEST_CASE("Shapes substitutes fixed dims", "[shapes]") {
  TypedProgram p = good("dim B = 4, n\ndim C = B * 2\nin A : f32[B, n]\nout o = A + 1\nout p = rav (<C, n div 2> reshape A)\n");
  REQUIRE(p.dims.size() == 3);
  CHECK(p.dims[0].value == 4);
  CHECK_FALSE(p.dims[1].value);
  CHECK(p.dims[2].name == "C");
  CHECK(p.dims[2].value == 8);
  CHECK(strShape(p.inputs[0].shape) == "⟨4 n⟩");
  CHECK(typeOf(p, "o") == "f32⟨4 n⟩");
  CHECK(typeOf(p, "p") == "f32⟨8*(n div 2)⟩");
  CHECK(guards(p) == std::vector<std::string>{"1 <= n div 2 (extent positive)",
                                              "8*(n div 2) == 4*n (reshape keeps the element count)"});
  SECTION("constant bounds are decided at compile time") {
    std::string diags = bad("dim B = 4\nin A : f32[B]\nout o = <4> psi A\n");
    CHECK(contains(diags, "t.moa:3:10: error: index 4 is out of range for an axis of extent 4"));
    CHECK(typeOf(good("dim B = 4\nin A : f32[B]\nout o = <3> psi A\n"), "o") == "f32⟨⟩");
    CHECK(contains(bad("dim B = 4\nin A : f32[B]\nout o = 5 take A\n"), "error: take of 5 exceeds the leading extent 4"));
  }
  SECTION("a fixed dim must be a positive constant") {
    CHECK(contains(bad("dim Z = 0\nin A : f32[4]\nout o = A\n"), "t.moa:1:9: error: dim 'Z' must be a positive integer, not 0"));
    CHECK(contains(bad("dim n, Z = n * 2\nin A : f32[4]\nout o = A\n"),
                   "t.moa:1:14: error: dim 'Z' must be fixed to a constant"));
  }
}

TEST_CASE("Shapes checks psi indices in comprehensions", "[shapes]") {
  SECTION("an index always past the end is an error") {
    // i + 1 reaches n when i = n - 1, for every n
    std::string diags = bad("dim n\nin A : f32[n]\nout o = [i < n] <i+1> psi A\n");
    CHECK(contains(diags, "t.moa:3:19: error: index ")); // the caret is on the operator of i+1
    CHECK(contains(diags, " + 1 is out of range for an axis of extent n"));
    std::string below = bad("dim n\nin A : f32[n]\nout o = [i < n] <i - 1> psi A\n");
    CHECK(contains(below, " - 1 is out of range for an axis of extent n"));
  }
  SECTION("indices that provably fit need no guard") {
    // (the extent n - 1 itself must be positive)
    CHECK(guards(good("dim n\nin A : f32[n]\nout o = [i < n - 1] <i+1> psi A\n")) ==
          std::vector<std::string>{"1 <= n - 1 (comprehension extent positive)"});
    CHECK(good("dim n\nin A : f32[n]\nout o = [i < n] <n - 1 - i> psi A\n").guards.empty());
    CHECK(good("dim n, dk\nin A : f32[n, dk]\nout o = [i < n, j < dk] <i, j> psi A\n").guards.empty());
    CHECK(good("dim n\nin A : f32[n, 4]\nout o = [i < n, j < 2] <i, 2*j + 1> psi A\n").guards.empty());
  }
  SECTION("indices the dims decide are guards") {
    TypedProgram p = good("dim n, m\nin A : f32[n]\nout o = [i < m] <i> psi A\n");
    CHECK(typeOf(p, "o") == "f32⟨m⟩");
    CHECK(guards(p) == std::vector<std::string>{"m - 1 < n (psi index within its axis)"});
    CHECK(p.guards[0].loc.line == 3);
    CHECK(p.guards[0].loc.col == 18);
    TypedProgram c = good("dim n\nin A : f32[n]\nout o = <5> psi A\n");
    CHECK(guards(c) == std::vector<std::string>{"5 < n (psi index within its axis)"});
  }
  SECTION("an interval that only encloses the index is not proof of an error") {
    // (i-1)*(i-1) takes 1 0 1 4 for i < 4, though interval arithmetic encloses it by [-5, 10]
    auto square = checkText("dim n\nin A : f32[5]\nout o = [i < 4] <(i - 1) * (i - 1)> psi A\n");
    INFO(square.diags);
    CHECK(square.program);
    CHECK_FALSE(contains(square.diags, "error:"));
    // i mod 4 for i < 2 is i, though a mod is enclosed by [0, 4)
    CHECK(checkText("dim n\nin A : f32[2]\nout o = [i < 2] <i mod 4> psi A\n").program);
    CHECK(good("dim n\nin A : f32[4]\nout o = [i < 4] <(i + 1) mod 4> psi A\n").guards.empty());
  }
  SECTION("negative constant indices") {
    CHECK(contains(bad("dim n\nin A : f32[n]\nout o = <-1> psi A\n"),
                   "t.moa:3:10: error: index -1 is out of range for an axis of extent n"));
  }
  SECTION("a count over an index is a triangular extent; a comprehension's rows must not depend on its own index") {
    std::string diags = bad("dim n\nin q : f32[n]\nout o = [i < n] (i+1) take q\n");
    CHECK(contains(diags, "error: the body of this comprehension has shape ⟨i + 1⟩, which depends on its index 'i'"));
    TypedProgram p = good("dim n\nin q : f32[n]\nout o = [i < n] +/ ((i+1) take q)\n");
    CHECK(typeOf(p, "o") == "f32⟨n⟩");
    CHECK(p.guards.empty());
    CHECK(contains(bad("dim n\nin q : f32[n]\nout o = [i < n] iota (i + 1)\n"),
                   "error: the count of iota cannot depend on the comprehension index 'i'"));
  }
}

TEST_CASE("Shapes records guards for take, drop and reshape", "[shapes]") {
  TypedProgram p = good("dim n\nin q : f32[n]\nout a = 2 take q\nout b = -3 drop q\nout c = <2, n div 2> reshape q\n");
  CHECK(typeOf(p, "a") == "f32⟨2⟩");
  CHECK(typeOf(p, "b") == "f32⟨n - 3⟩");
  CHECK(typeOf(p, "c") == "f32⟨2, n div 2⟩");
  CHECK(guards(p) == std::vector<std::string>{"2 <= n (take count within the leading extent)",
                                              "3 <= n (drop count within the leading extent)",
                                              "1 <= n div 2 (extent positive)",
                                              "2*(n div 2) == n (reshape keeps the element count)"});
  CHECK(p.guards[0].loc.line == 3);
  CHECK(p.guards[0].loc.col == 11);
  // the same guard from two places is recorded once
  CHECK(good("dim n\nin q : f32[n]\nout a = 2 take q\nout b = 2 take q + 1\n").guards.size() == 1);
}

TEST_CASE("Shapes mismatches say where each shape came from", "[shapes]") {
  std::string diags = bad("dim n, dk\nin q : f32[dk]\nin K : f32[n, dk]\nout o = q +.* K\n");
  CHECK(contains(diags, "t.moa:4:11: error: inner product needs matching axes: dk vs n"));
  CHECK(contains(diags, "t.moa:4:9: note: 'q' has shape ⟨dk⟩"));
  CHECK(contains(diags, "t.moa:4:15: note: 'K' has shape ⟨n dk⟩"));
  std::string cat = bad("dim n, dk, dv\nin K : f32[n, dk]\nin v : f32[dv]\nout o = K cat v\n");
  CHECK(contains(cat, "t.moa:4:11: error: cat needs equal trailing axes: ⟨n dk⟩ vs ⟨dv⟩"));
  TypedProgram append = good("dim n, dk\nin K : f32[n, dk]\nin k : f32[dk]\nout o = K cat k\n");
  CHECK(typeOf(append, "o") == "f32⟨n + 1, dk⟩");
}

TEST_CASE("Shapes needs an output", "[shapes]") {
  std::string diags = bad("dim n\nin q : f32[n]\nx = q\n");
  CHECK(contains(diags, "error: program has no outputs"));
}

TEST_CASE("Shapes recovers state after an arithmetic fault inside a function", "[shapes]") {
  // rav overflows int64 inside f: one error, and the later top-level names still resolve
  std::string diags = bad("dim n\nin A : f32[4611686018427387904, 4]\nin q : f32[n]\nt = q\n"
                          "fn f(x) = rav x\na = f(A)\nout o = t\n");
  CHECK(contains(diags, "t.moa:6:1: error: integer overflow in extent arithmetic"));
  CHECK(count(diags, "error:") == 1);
  std::string zero = bad("dim n\nin q : f32[n]\ndim Z = n div (n - n)\nout o = q\n");
  CHECK(contains(zero, "error: division by zero in integer expression"));
  CHECK(count(zero, "error:") == 1);
}

// ---- updates of an inout ---------------------------------------------------------------------------

TEST_CASE("Shapes of an inout update: the name means the new value, and the fit is a guard", "[shapes][update]") {
  TypedProgram p = good("dim t, cap, dk\nin k : f32[dk]\ninout K : f32[cap, dk]\n"
                        "K = (t take K) cat k\nout n = +/ +/ K\n");
  const TBinding &update = binding(p, "K");
  REQUIRE(update.updates);
  CHECK(*update.updates == 1);
  CHECK_FALSE(update.isOutput);
  CHECK(typeOf(p, "K") == "f32⟨t + 1, dk⟩");
  // `n` reads the updated K: a Ref to the update, not the input
  const TExpr *e = binding(p, "n").value.get();
  while (!e->args.empty())
    e = e->args.back().get();
  CHECK(e->kind == TKind::Ref);
  CHECK(e->ref == &update);
  CHECK(guards(p) == std::vector<std::string>{"t <= cap (take count within the leading extent)",
                                              "t + 1 <= cap (update within the inout's storage)"});
}

TEST_CASE("Shapes of inout updates: provable fits need no guard, a program of updates needs no out",
          "[shapes][update]") {
  TypedProgram p = good("dim n\ninout A : f32[n, 2]\nA = A * 0.5\n");
  CHECK(p.guards.empty());
  CHECK(binding(p, "A").updates);
  CHECK(contains(dumpShapes(p), "update A : f32⟨n 2⟩"));
}

TEST_CASE("Shapes rejects bad updates", "[shapes][update]") {
  CHECK(contains(bad("dim n\nin A : f32[n]\nA = A * 2\nout y = A\n"), "only an 'inout' can be updated"));
  CHECK(contains(bad("dim n\ninout A : f32[n]\nA = A * 2\nA = A + 1\n"), "is updated twice"));
  CHECK(contains(bad("dim n\ninout A : f32[n]\nout y = A + 1\nA = A * 2\n"), "is read before its update"));
  CHECK(contains(bad("dim n\ninout A : f32[n]\nA = A cat 1\n"), "has n + 1 rows but its storage holds only n"));
  CHECK(contains(bad("dim n\ninout A : f32[n, 2]\nA = +/ A\n"), "must keep its element type, rank and trailing axes"));
  CHECK(contains(bad("dim n\ninout A : f32[n]\nout A = A * 2\n"), "cannot be an 'out'"));
}

TEST_CASE("Shapes of dims declared >= 0: extents from them may be 0, everything else as before", "[shapes][zero]") {
  TypedProgram p = good("dim t >= 0, n\nin K : f32[t, n]\nout a = +/ K\nout b = [i < t] <i 0> psi K\n"
                        "out c = iota t\nout d = (t take K) cat (2 take (1 drop K))\n");
  CHECK(p.dims[0].least == 0);
  CHECK(p.dims[1].least == 1);
  CHECK(typeOf(p, "a") == "f32⟨n⟩");
  CHECK(typeOf(p, "d") == "f32⟨t + 2, n⟩");
  CHECK(guards(p) == std::vector<std::string>{"1 <= t (drop count within the leading extent)",
                                              "2 <= t - 1 (take count within the leading extent)"});
  SECTION("an extent that is 0 at t ≥ 1 too is guarded as before") {
    CHECK(guards(good("dim t >= 0\nout a = iota (t - 1)\n")) == std::vector<std::string>{"1 <= t - 1 (extent positive)"});
  }
  SECTION("a dim declared >= 2 is a guard, and its sign is known") {
    TypedProgram q = good("dim n >= 2\nin x : f32[n]\nin y : f32[n - 1]\nout a = ([i < n - 1] <i + 1> psi x) + y\n");
    CHECK(guards(q) == std::vector<std::string>{"2 <= n (the dim's declared least value)"});
  }
  SECTION("what divides by such a dim is guarded") {
    CHECK(guards(good("dim t >= 0, n\nout a = (iota n) div t\n")) ==
          std::vector<std::string>{"1 <= t (divisor not zero)"});
    CHECK(guards(good("dim t >= 0, n\nin A : f32[n, t]\nout a = rav A\n")) ==
          std::vector<std::string>{"1 <= t (divisor not zero)"});
    CHECK(good("dim t >= 0, n\nout a = (iota n) div (t + 1)\n").guards.empty());
  }
}

TEST_CASE("Shapes of assumptions: facts for every later sign, and guards every run checks", "[shapes][zero]") {
  TypedProgram p = good("dim n, w\nassume w <= n\nin K : f32[n, 4]\nout a = (n - w) drop K\nout b = (-w) take K\n");
  CHECK(typeOf(p, "a") == "f32⟨w 4⟩");
  CHECK(guards(p) == std::vector<std::string>{"w <= n (assumption)"});
  SECTION("without it the drop is refused") {
    CHECK(contains(bad("dim n, w\nin K : f32[n, 4]\nout a = (n - w) drop K\n"), "the sign of n - w is not known"));
  }
  SECTION("strict, reversed, equal, and chained assumptions") {
    CHECK(guards(good("dim n, w\nassume n > w\nin K : f32[n]\nout a = (n - w - 1) drop K\n")) ==
          std::vector<std::string>{"w < n (assumption)"});
    CHECK(guards(good("dim n, w\nassume w == n\nin K : f32[n]\nout a = (n - w) take K\n")) ==
          std::vector<std::string>{"w == n (assumption)"});
    CHECK(guards(good("dim a, b, c\nassume a <= b, b <= c\nin K : f32[c]\nout x = (c - a) take K\n")).size() == 2);
  }
  SECTION("an assumption that always holds adds nothing; one that never holds is an error") {
    CHECK(good("dim n\nassume 0 <= n\nout a = iota n\n").guards.empty());
    CHECK(contains(bad("dim n\nassume n < 0\nout a = iota n\n"),
                   "t.moa:2:10: error: assumption 'n < 0' holds for no values"));
    CHECK(contains(bad("dim n\nassume n\nout a = iota n\n"), "t.moa:2:8: error: an assumption compares"));
    CHECK(contains(bad("dim n\nin x : f32\nassume x <= n\nout a = iota n\n"),
                   "error: a side of an assumption must be an integer expression"));
  }
}
