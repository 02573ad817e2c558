// The generator's internals, shared by ProgramGenerator.cpp (the program: dims, inputs, functions,
// bindings) and Productions.cpp (expressions of a given shape). Not part of the library's interface.
#pragma once

#include "Extent.h"
#include "ProgramGenerator.h"
#include "Random.h"

#include <memory>
#include <optional>
#include <set>

namespace moac::testgen::detail {

// A generated expression: its text, and what its parent needs to know to use it.
struct Expr {
  std::string text;
  bool atomic = false; // a name, literal, call or bracketed form: usable as any operand as it is
  double bound = 1;    // |every element| ≤ bound
  bool isInt = false;
};

// An operand as written: parenthesised unless atomic.
inline std::string operand(const Expr &e) { return e.atomic ? e.text : "(" + e.text + ")"; }

// A named array the expression may use: an input, a binding, a parameter or local of a function.
struct Value {
  std::string name;
  Shape shape;
  double bound = 1;
  bool isInt = false;
};

struct Index {
  std::string name;
  Extent extent;
};

// What an expression sees: inside a function only its parameters and locals (and the program's dims,
// inputs and functions); at top level the bindings above it; in a comprehension body also its indices.
struct Scope {
  bool inFunction = false;
  const struct Function *function = nullptr; // the one being generated: not callable from itself
  std::vector<Value> values;
  std::vector<Index> indices;
};

struct Function {
  std::string name;
  bool generic = false;      // shape-polymorphic: every parameter and the result share one shape
  std::vector<Shape> params; // specific functions: the parameter shapes
  Shape result;              // specific functions
  size_t arity = 1;
  double resultBound = 1;    // given arguments bounded by argBound
  bool complete = false;     // callable: its body is finished (so no call chain can return to it)
  std::string text;
  int calls = 0;
  std::set<Shape> shapes; // generic functions: the argument shapes of their calls
};

// Shape helpers, and the float literals the generator writes with their values.
inline bool isGeneric(const Shape &s) { return s.size() == 1 && s[0] == Extent::constant(-1); } // fn parameters
inline Shape concat(Shape a, const Shape &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
inline Shape slice(const Shape &s, size_t from, size_t to) {
  return Shape(s.begin() + long(from), s.begin() + long(to));
}
struct Literal {
  const char *text;
  double value;
};
const std::vector<Literal> &literals();

constexpr double argBound = 2.0;    // arguments of calls are clamped to this
constexpr double clampAbove = 1000; // larger bounds are clamped back to clampTo
constexpr double clampTo = 8.0;

class Generator {
public:
  Generator(uint64_t seed, const GeneratorOptions &options) : rng(seed), opt(options) {}
  GeneratedProgram run(uint64_t seed);

  // ---- Productions.cpp: expressions ----
  Expr gen(const Shape &s, Scope &scope, int depth);
  Expr leaf(const Shape &s, Scope &scope);
  Expr scalarLeaf(Scope &scope);
  Expr clamp(const Expr &e, double limit);
  Expr genGeneric(Scope &scope, int depth, bool scalar);

private:
  enum class Prod {
    Leaf, Elementwise, Unary, Reduce, Inner, Outer, Psi, Tran, Perm, Take, Drop, Cat, Reshape, Rav, Iota, Rho,
    Comprehension, Call, Vector, Where, Compare, Zero, Count
  };
  std::optional<Expr> produce(Prod p, const Shape &s, Scope &scope, int depth);
  std::optional<Expr> elementwise(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> unary(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> reduce(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> inner(const Shape &s, Scope &scope, int depth);
  Expr rightFoldInner(Expr a, Expr b, double n);
  std::optional<Expr> outer(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> psi(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> tran(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> perm(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> takeDrop(bool take, const Shape &s, Scope &scope, int depth);
  std::optional<Expr> cat(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> reshape(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> rav(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> iota(const Shape &s);
  std::optional<Expr> rho(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> comprehension(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> call(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> vector(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> where(const Shape &s, Scope &scope, int depth);
  std::optional<Expr> zero(const Shape &s, Scope &scope, int depth);
  std::string condition(const Shape &s, Scope &scope, int depth, bool exact);
  std::string comparison(const Shape &s, Scope &scope, bool exact);
  std::string indexFor(const Extent &e, Scope &scope, bool &simple);
  std::optional<std::string> gather(const Extent &e, Scope &scope);
  std::string indexVector(const Shape &prefix, Scope &scope);
  std::optional<Shape> regroup(const Shape &s); // a shape with the same symbolic element count

  // ---- ProgramGenerator.cpp: the program ----
public:
  Extent pickExtent();
  Shape randomShape(size_t rank);
  int64_t maxOf(const Extent &e) const;
  int64_t minOf(const Extent &e) const;
  bool fits(const Shape &s) const; // within maxElements at the largest dims
  bool atLeast(const Extent &e, int64_t value); // e ≥ value for the chosen dims, raising a dim's least value
  std::string ext(const Extent &e);       // an extent as an expression (a fixed dim by name at times)
  std::string extOperand(const Extent &e); // parenthesised unless atomic
  std::optional<Value> newInput(const Shape &s);
  std::string freshIndex();
  std::string freshLocal();
  Function *makeFunction(bool generic, const Shape &result);
  void note(const std::string &feature) { features.insert(feature); }
  bool unicode() { return rng.chance(6); }

  Rng rng;
  GeneratorOptions opt;
  std::vector<std::string> dimNames; // run-time dims by id
  std::vector<std::pair<std::string, int64_t>> fixedDims;
  std::vector<int64_t> mins;         // least value of each run-time dim
  std::vector<Value> inputs;
  std::vector<Value> indexInputs; // the integer inputs that gathers read (g1, g2, …): only ever indices
  std::vector<std::string> inputDecls;
  std::vector<std::unique_ptr<Function>> functions;
  std::set<std::string> features;
  int indexCounter = 0, localCounter = 0;
  // `dim z >= 0` (docs/language.md §4): a dim no extent of the generator's own uses, only the zero
  // production, whose reductions over ⟨z …⟩ give the identity at z = 0; and the dims `assume z <= d` bounds
  bool zeroDim = false;
  std::vector<std::string> zeroBounds;
  int zeroInputs = 0;
};

} // namespace moac::testgen::detail
