// The reference interpreter (Interpreter.h): a tree walk over the typed program that applies each
// operator's definition to whole arrays (ArrayOps.h).
//   1. Bind every dim: fixed ones from the program, the others from the caller, each positive; then
//      check every guard (both by EvalCore.h, as the DNF evaluator does).
//   2. Check every input's shape.
//   3. Evaluate the top-level bindings in order, each once, caching the value by binding.
//   4. Evaluate a node from its operands' full values, in the node's element type (Arith.h); a Let's
//      binding once per evaluation of the Let, a comprehension's body once per index (bound in
//      `values`), the results stacked row-major.
//   5. Inside a comprehension, a node that does not depend on the innermost index is evaluated once
//      per value of the indices it does depend on and then reused (the cache below), so a spelling
//      with the subexpression inline does the same work as one that binds it to a name first.
//   6. Check each result against its node's type — the shape rule's extents and, where the type knows
//      it, the integer value — so the interpreter and ShapeRules.cpp check each other. A disagreement is
//      a compiler bug (std::logic_error), not a user error.
//   7. Round each output to its declared type (a float literal, or an f32 value computed from literals,
//      dims and indices only, keeps its f64 value until an operation or an output gives it a type).
#include "Interpreter.h"

#include "Arith.h"
#include "ArrayOps.h"
#include "EvalCore.h"
#include "ShapeRules.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace moac {

namespace {

// A symbol with no value where one is needed: only a compiler bug can cause it.
struct Unbound {
  Symbol sym;
};

At at(const TExpr &e) { return At{e.loc, e.length}; }

std::string where(const TExpr &e) {
  return fmt::format("{} at line {}, column {}", tkindName(e.kind), e.loc.line, e.loc.col);
}

// `f32[n, dk]`, as the declaration spells it.
std::string declared(const TInput &in) {
  std::vector<std::string> extents;
  for (const SymExpr &s : in.shape)
    extents.push_back(s.str());
  return fmt::format("{}[{}]", spell(in.elem), fmt::join(extents, ", "));
}

using Shared = std::shared_ptr<const NDArray>;

class Evaluator {
public:
  Evaluator(const TypedProgram &program, const std::vector<NDArray> &inputs, const InterpretOptions &options)
      : program(program), given(inputs), counts(options.counts), exact(options.exactFloats) {}

  // Binds the dims and checks the guards (EvalCore.h).
  void bind(const DimValues &dims) {
    values = bindDims(program.dims, dims);
    checkGuards(program.guards, values);
  }
  void checkInputs();
  void checkGathers(const TExpr &e);
  void checkGathers();
  void analyse();
  std::vector<NDArray> run();

private:
  NDArray eval(const TExpr &e);
  NDArray evalNode(const TExpr &e);
  NDArray evalComprehension(const TExpr &e);
  NDArray evalWhere(const TExpr &e, ElemType type);
  ElemType operandType(const TExpr &e) const;
  // A node's value, shared: inputs and bindings as they are, a reusable node from the cache.
  Shared evalShared(const TExpr &e);
  // An operand's value, kept alive by `hold` for as long as the caller needs it.
  const NDArray &operand(const TExpr &e, Shared &hold) {
    hold = evalShared(e);
    return *hold;
  }
  const Shared &boundValue(const TBinding *binding, const TExpr &use) const;
  int64_t integer(const TExpr &e, const char *what);

  // Which comprehension indices each node's value depends on (`deps`), for the cache.
  void collectIndices(const TExpr &e);
  const std::vector<Symbol> &analyse(const TExpr &e);
  bool reusable(const TExpr &e) const;
  void markConstant(const TExpr &e);
  std::vector<int64_t> depValues(const TExpr &e) const;

  int64_t valueOf(Symbol s) const;
  int64_t evalSym(const SymExpr &x, At where) const;
  std::optional<int64_t> trySym(const SymExpr &x) const;
  void checkAgainstType(const TExpr &e, const NDArray &v) const;

  const TypedProgram &program;
  const std::vector<NDArray> &given;
  EvalCounts *counts;
  bool exact;
  // The type a value of type t computes in: t, or f64 for f32 in an exact evaluation.
  // A bf16 or f16 array's values compute in f32 (docs/language.md §1).
  ElemType computed(ElemType t) const {
    t = computeType(t);
    return exact && t == ElemType::F32 ? ElemType::F64 : t;
  }
  // A node's: a constant (below) computes in f64 and is rounded by the operation that uses it.
  ElemType computed(const TExpr &e) const {
    return constants.count(&e) ? ElemType::F64 : computed(e.type.elem);
  }
  std::vector<Shared> inputs;                 // the given inputs in their declared types
  std::map<Symbol, int64_t> values;           // dims, and the comprehension indices in scope
  std::map<const TBinding *, Shared> bound;   // top-level bindings, and the Lets in scope

  std::set<Symbol> indexSymbols; // every comprehension's indices
  std::unordered_map<const TExpr *, std::vector<Symbol>> deps;
  std::map<const TBinding *, std::vector<Symbol>> letDeps;
  // f32 nodes computed from literals, dims and indices only (`sqrt(dk)`, `n / 2`, `<0.5, 1.0>`): like a
  // literal, and like the kernels, they take the type of the operation that uses them.
  std::set<const TExpr *> constants;
  std::set<const TBinding *> constantBindings;
  // Open comprehensions (whose indices vary) and reusable nodes being computed, innermost last.
  std::vector<const TExpr *> frames;
  struct Cached {
    std::vector<int64_t> key; // the values of the node's deps when it was computed
    Shared value;
  };
  std::unordered_map<const TExpr *, Cached> cache;
};

int64_t Evaluator::valueOf(Symbol s) const {
  auto it = values.find(s);
  if (it == values.end())
    throw Unbound{s};
  return it->second;
}

int64_t Evaluator::evalSym(const SymExpr &x, At where) const {
  try {
    return x.evaluate([this](Symbol s) { return valueOf(s); });
  } catch (const SymArithmeticError &error) {
    throw EvalError(fmt::format("integer expression {} cannot be evaluated: {}", x.str(), error.what()),
                    where.loc, where.length);
  } catch (const Unbound &u) {
    throw std::logic_error(fmt::format("interpreter: symbol '{}' has no value in {}", u.sym.name(), x.str()));
  }
}

std::optional<int64_t> Evaluator::trySym(const SymExpr &x) const {
  try {
    return x.evaluate([this](Symbol s) { return valueOf(s); });
  } catch (const SymArithmeticError &) {
    return std::nullopt;
  } catch (const Unbound &) {
    return std::nullopt;
  }
}

// Also converts each input to its declared type: an f32 input holds f32 values.
void Evaluator::checkInputs() {
  if (given.size() != program.inputs.size())
    throw EvalError(fmt::format("the program has {} input{} but {} {} given", program.inputs.size(),
                                program.inputs.size() == 1 ? "" : "s", given.size(), given.size() == 1 ? "was" : "were"),
                    SourceLoc{});
  for (size_t i = 0; i < given.size(); ++i) {
    const TInput &in = program.inputs[i];
    At where{in.loc, uint32_t(in.name.size())};
    Extents expected;
    for (const SymExpr &s : in.shape)
      expected.push_back(evalSym(s, where));
    if (given[i].shape != expected)
      throw EvalError(fmt::format("input '{}' has shape {} but the program declares {} = {}", in.name,
                                  strExtents(given[i].shape), declared(in), strExtents(expected)),
                      where.loc, where.length);
    int64_t count = elementCount(expected, where);
    if (int64_t(given[i].count()) != count)
      throw EvalError(fmt::format("input '{}' holds {} values but its shape {} has {} elements", in.name,
                                  given[i].count(), strExtents(expected), count),
                      where.loc, where.length);
    NDArray stored = isHalf(in.elem) ? convert(given[i], in.elem, where) : given[i]; // representable
    inputs.push_back(std::make_shared<const NDArray>(convert(stored, computed(in.elem), where)));
  }
}

// A gather reads its index from an integer array: every element of the array must lie in [0, extent) of
// the axis it indexes, checked before anything is computed (as the kernels do), used or not.
void Evaluator::checkGathers(const TExpr &e) {
  for (const SymExpr &entry : e.gatherIndex)
    entry.forEachLoad([&](const SymExpr::Atom &load) {
      int64_t bound = evalSym(load.rhs, at(e));
      const NDArray &ids = *inputs.at(load.array);
      for (size_t k = 0; k < ids.ints.size(); ++k)
        if (ids.ints[k] < 0 || ids.ints[k] >= bound)
          throw EvalError(fmt::format("gather index out of range: '{}' holds {} at element {}, outside [0, {}) = "
                                      "[0, {}), the axis it indexes",
                                      load.name, ids.ints[k], k, load.rhs.str(), bound),
                          e.loc, e.length);
    });
  if (e.let)
    checkGathers(*e.let->value);
  for (const auto &a : e.args)
    checkGathers(*a);
}

void Evaluator::checkGathers() {
  for (const auto &b : program.bindings)
    checkGathers(*b->value);
}

void Evaluator::collectIndices(const TExpr &e) {
  for (const TIndex &index : e.indices)
    indexSymbols.insert(index.sym);
  if (e.let)
    collectIndices(*e.let->value);
  for (const auto &a : e.args)
    collectIndices(*a);
}

void Evaluator::analyse() {
  for (const auto &b : program.bindings)
    collectIndices(*b->value);
  for (const auto &b : program.bindings) {
    analyse(*b->value);
    if (constants.count(b->value.get()))
      constantBindings.insert(b.get());
  }
}

const std::vector<Symbol> &Evaluator::analyse(const TExpr &e) {
  std::set<Symbol> d;
  auto add = [&](const std::vector<Symbol> &symbols) {
    for (Symbol s : symbols)
      if (indexSymbols.count(s))
        d.insert(s);
  };
  if (e.let) { // the binding first: the body's uses of it need its deps and whether it is a constant
    letDeps[e.let.get()] = analyse(*e.let->value);
    add(letDeps[e.let.get()]);
    if (constants.count(e.let->value.get()))
      constantBindings.insert(e.let.get());
  }
  for (const auto &a : e.args)
    add(analyse(*a));
  if (e.kind == TKind::IntConst)
    add(e.intValue.symbols());
  if (e.kind == TKind::Ref && letDeps.count(e.ref))
    add(letDeps.at(e.ref));
  for (const TIndex &index : e.indices)
    add(index.extent.symbols());
  for (const TIndex &index : e.indices)
    d.erase(index.sym);
  markConstant(e);
  return deps[&e] = std::vector<Symbol>(d.begin(), d.end());
}

// Worth reusing: inside an open comprehension, a node that does not depend on its indices — or,
// within a reusable node being computed, one that depends on fewer indices than that node.
bool Evaluator::reusable(const TExpr &e) const {
  if (frames.empty() || e.kind == TKind::Input || e.kind == TKind::Ref || e.kind == TKind::IntConst ||
      e.kind == TKind::FloatConst)
    return false;
  const std::vector<Symbol> &mine = deps.at(&e);
  const TExpr &top = *frames.back();
  if (top.kind == TKind::Comprehension && frames.back() != &e)
    return std::none_of(top.indices.begin(), top.indices.end(), [&](const TIndex &index) {
      return std::binary_search(mine.begin(), mine.end(), index.sym);
    });
  const std::vector<Symbol> &outer = deps.at(&top);
  return mine.size() < outer.size() && std::includes(outer.begin(), outer.end(), mine.begin(), mine.end());
}

void Evaluator::markConstant(const TExpr &e) {
  bool constant = e.type.elem == ElemType::F32 && e.kind != TKind::Input;
  for (const auto &a : e.args)
    constant = constant && (a->type.elem == ElemType::Int || constants.count(a.get()));
  if (e.kind == TKind::Ref)
    constant = constant && constantBindings.count(e.ref);
  if (constant)
    constants.insert(&e);
}

std::vector<int64_t> Evaluator::depValues(const TExpr &e) const {
  std::vector<int64_t> key;
  for (Symbol s : deps.at(&e))
    key.push_back(valueOf(s));
  return key;
}

Shared Evaluator::evalShared(const TExpr &e) {
  if (e.kind == TKind::Input)
    return inputs.at(e.input);
  if (e.kind == TKind::Ref)
    return boundValue(e.ref, e);
  if (!reusable(e))
    return std::make_shared<const NDArray>(eval(e));
  std::vector<int64_t> key = depValues(e);
  auto it = cache.find(&e);
  if (it != cache.end() && it->second.key == key)
    return it->second.value;
  frames.push_back(&e);
  Shared value = std::make_shared<const NDArray>(eval(e));
  frames.pop_back();
  cache[&e] = Cached{std::move(key), value};
  return value;
}

std::vector<NDArray> Evaluator::run() {
  for (const auto &b : program.bindings) {
    Shared value = evalShared(*b->value);
    // A bf16 or f16 output or update is rounded once, when it is stored: what later bindings read.
    ElemType stored = b->updates ? program.inputs[*b->updates].elem : b->stored();
    if (isHalf(stored)) {
      At at{b->loc, 1};
      value = std::make_shared<const NDArray>(convert(convert(*value, stored, at), computed(stored), at));
    } else if (stored == ElemType::I32) {
      // an i32 store narrows: a value outside int32 is an error, never wrapped (docs/language.md §1)
      for (int64_t v : value->ints)
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
          throw EvalError(fmt::format("integer overflow: {} does not fit in the i32 {} '{}'", v,
                                      b->updates ? "inout" : "output", b->name),
                          b->loc, uint32_t(b->name.size()));
    }
    bound[b.get()] = value;
  }
  std::vector<NDArray> outputs;
  for (const auto &b : program.bindings)
    if (b->isOutput)
      outputs.push_back(convert(*bound.at(b.get()), computed(b->value->type.elem), At{b->loc, 1}));
  // An update writes its value into the leading rows of the inout's storage; the rest stays as it was.
  for (const auto &b : program.bindings)
    if (b->updates) {
      const NDArray &storage = *inputs.at(*b->updates);
      outputs.push_back(writeBack(storage, convert(*bound.at(b.get()), storage.elem, At{b->loc, 1})));
    }
  return outputs;
}

NDArray Evaluator::eval(const TExpr &e) {
  NDArray v = evalNode(e);
  checkAgainstType(e, v);
  if (counts && e.kind != TKind::Input && e.kind != TKind::Ref) {
    counts->nodes += 1;
    counts->elements += int64_t(v.count());
  }
  return v;
}

const Shared &Evaluator::boundValue(const TBinding *binding, const TExpr &use) const {
  auto it = bound.find(binding);
  if (it == bound.end())
    throw std::logic_error(fmt::format("interpreter: {} uses '{}' outside its scope", where(use), binding->name));
  return it->second;
}

// A scalar integer operand: a take/drop count, an iota length.
int64_t Evaluator::integer(const TExpr &e, const char *what) {
  Shared hold;
  const NDArray &v = operand(e, hold);
  if (!v.shape.empty())
    throw EvalError(fmt::format("{} must be a scalar, but it has shape {}", what, strExtents(v.shape)), e.loc,
                    e.length);
  return toIntegers(v, at(e), what)[0];
}

NDArray Evaluator::evalNode(const TExpr &e) {
  Shared s0, s1;
  auto arg = [&](size_t i) -> const NDArray & { return operand(*e.args.at(i), i == 0 ? s0 : s1); };
  ElemType type = computed(e);
  switch (e.kind) {
  case TKind::IntConst: return intScalar(evalSym(e.intValue, at(e)));
  case TKind::FloatConst: return scalar(e.floatValue, type); // rounded where an operation uses it
  case TKind::Input: return *inputs.at(e.input);
  case TKind::Ref: return *boundValue(e.ref, e);
  case TKind::Let: {
    const TBinding *binding = e.let.get();
    bound[binding] = evalShared(*binding->value);
    NDArray result = *evalShared(*e.args.at(0));
    bound.erase(binding);
    return result;
  }
  case TKind::Vector: {
    NDArray r = makeArray({int64_t(e.args.size())}, at(e), type);
    for (size_t k = 0; k < e.args.size(); ++k) {
      const TExpr &element = *e.args[k];
      const NDArray &v = operand(element, s0);
      if (!v.shape.empty())
        throw EvalError(fmt::format("a vector element must be a scalar, but it has shape {}", strExtents(v.shape)),
                        element.loc, element.length);
      store(r, int64_t(k), type, load(v, 0, type, at(element)));
    }
    return r;
  }
  case TKind::Unary: return unary(e.unop, type, arg(0), at(e));
  case TKind::Binary: {
    const NDArray &a = arg(0);
    return elementwise(e.op, givesTruth(e.op) ? operandType(e) : type, a, arg(1), at(e));
  }
  case TKind::Where: return evalWhere(e, type);
  case TKind::Reduce: return reduce(e.op, type, arg(0), at(e), e.axis);
  case TKind::Inner: {
    const NDArray &a = arg(0);
    return inner(e.op, e.op2, type, a, arg(1), at(e));
  }
  case TKind::Outer: {
    const NDArray &a = arg(0);
    return outer(e.op2, type, a, arg(1), at(e));
  }
  case TKind::Psi: {
    std::vector<int64_t> index = toIntegers(arg(0), at(e), "the index of psi");
    return psi(index, arg(1), at(e));
  }
  case TKind::Rho: return rho(arg(0));
  case TKind::Iota: return iota(integer(*e.args.at(0), "the operand of iota"), at(e));
  case TKind::Tran: {
    if (e.args.size() == 1) {
      const NDArray &a = arg(0);
      std::vector<int64_t> reverse;
      for (size_t k = a.shape.size(); k-- > 0;)
        reverse.push_back(int64_t(k));
      return transpose(reverse, a, at(e));
    }
    std::vector<int64_t> perm = toIntegers(arg(0), at(e), "the permutation of tran");
    return transpose(perm, arg(1), at(e));
  }
  case TKind::Take: {
    int64_t count = integer(*e.args.at(0), "the count of take");
    return take(count, arg(1), at(e));
  }
  case TKind::Drop: {
    int64_t count = integer(*e.args.at(0), "the count of drop");
    return drop(count, arg(1), at(e));
  }
  case TKind::Cat: {
    const NDArray &a = arg(0), &b = arg(1);
    if (a.elem != type || b.elem != type) // an int or a constant operand joins the other's type
      return cat(convert(a, type, at(e)), convert(b, type, at(e)), at(e));
    return cat(a, b, at(e));
  }
  case TKind::Reshape: {
    std::vector<int64_t> shape = toIntegers(arg(0), at(e), "the new shape of reshape");
    return reshape(shape, arg(1), at(e));
  }
  case TKind::Rav: return rav(arg(0));
  case TKind::Comprehension: return evalComprehension(e);
  }
  throw std::logic_error("interpreter: unknown node kind");
}

// The type a comparison compares in: the wider of its operands' types, a constant taking the other
// operand's type as in any operation on array data (an f64 comparison when both are constants).
ElemType Evaluator::operandType(const TExpr &e) const {
  if (e.op == BinOp::And || e.op == BinOp::Or)
    return ElemType::Int;
  ElemType t = ElemType::Int;
  bool constant = false;
  for (const auto &a : e.args) {
    if (constants.count(a.get()))
      constant = true;
    else
      t = promote(t, computed(a->type.elem));
  }
  return t == ElemType::Int && constant ? ElemType::F64 : t;
}

// where(c, a, b): a's element where c's is not 0, else b's. A branch that no element chooses is not
// evaluated (so `where(n > 0, x div n, 0)` is defined for every n); when both are chosen somewhere
// both are evaluated whole, and an error in either (integer overflow, division by zero) is reported.
NDArray Evaluator::evalWhere(const TExpr &e, ElemType type) {
  Shared hc, ha, hb;
  const NDArray &c = operand(*e.args[0], hc);
  Extents shape;
  for (const SymExpr &s : e.type.shape)
    shape.push_back(evalSym(s, at(e)));
  NDArray r = makeArray(shape, at(e), type);
  auto chosen = [&](int64_t i) { return load(c, c.shape.empty() ? 0 : i, ElemType::Int, at(e)).i != 0; };
  bool anyTrue = false, anyFalse = false;
  for (int64_t i = 0; i < int64_t(r.count()); ++i)
    (chosen(i) ? anyTrue : anyFalse) = true;
  const NDArray *a = anyTrue ? &operand(*e.args[1], ha) : nullptr;
  const NDArray *b = anyFalse ? &operand(*e.args[2], hb) : nullptr;
  for (int64_t i = 0; i < int64_t(r.count()); ++i) {
    const NDArray &from = chosen(i) ? *a : *b;
    store(r, i, type, load(from, from.shape.empty() ? 0 : i, type, at(e)));
  }
  return r;
}

// [i < n, j < m] body: the body's value at every ⟨i j⟩ in row-major order, stacked into ⟨n m⟩ ++ ρbody.
NDArray Evaluator::evalComprehension(const TExpr &e) {
  Extents extents;
  for (const TIndex &index : e.indices) {
    int64_t n = evalSym(index.extent, At{index.loc, 1});
    if (n < 0)
      throw EvalError(fmt::format("index '{}' has extent {}, which is negative", index.sym.name(), n), index.loc);
    extents.push_back(n);
  }
  // An empty index space (a dim declared `>= 0` at 0): no body to evaluate, the type gives the shape.
  if (std::find(extents.begin(), extents.end(), 0) != extents.end()) {
    Extents shape;
    for (const SymExpr &s : e.type.shape)
      shape.push_back(evalSym(s, at(e)));
    return makeArray(shape, at(e), computed(e));
  }
  NDArray r{extents, {}, computed(e), {}};
  Extents first, index(extents.size(), 0);
  bool isFirst = true;
  frames.push_back(&e);
  do {
    for (size_t k = 0; k < index.size(); ++k)
      values[e.indices[k].sym] = index[k];
    Shared hold;
    const NDArray &body = operand(*e.args.at(0), hold);
    if (isFirst) {
      first = body.shape;
      r.shape.insert(r.shape.end(), first.begin(), first.end());
      r.data.reserve(size_t(elementCount(r.shape, at(e))));
      isFirst = false;
    } else if (body.shape != first) {
      throw EvalError(fmt::format("the body of this comprehension has shape {} at index <{}> but {} at index <{}>",
                                  strExtents(body.shape), fmt::join(index, " "), strExtents(first),
                                  fmt::join(Extents(index.size(), 0), " ")),
                      e.loc, e.length);
    }
    if (body.elem != r.elem)
      throw std::logic_error(fmt::format("interpreter: the body of {} has type {}, not {}", where(e),
                                         spell(body.elem), spell(r.elem)));
    r.data.insert(r.data.end(), body.data.begin(), body.data.end());
    r.ints.insert(r.ints.end(), body.ints.begin(), body.ints.end());
  } while (nextIndex(index, extents));
  frames.pop_back();
  if (frames.empty())
    cache.clear(); // nothing inside a finished comprehension is reachable any more
  for (const TIndex &i : e.indices)
    values.erase(i.sym);
  return r;
}

void Evaluator::checkAgainstType(const TExpr &e, const NDArray &v) const {
  if (v.elem != computed(e))
    throw std::logic_error(fmt::format("interpreter: {} has element type {} but its type is {}", where(e),
                                       spell(v.elem), spell(e.type.elem)));
  Extents expected;
  for (const SymExpr &s : e.type.shape) {
    auto x = trySym(s);
    if (!x)
      return; // an extent that depends on a symbol not bound here: nothing to compare
    expected.push_back(*x);
  }
  if (expected != v.shape)
    throw std::logic_error(fmt::format("interpreter: {} has shape {} but its type {} gives {}", where(e),
                                       strExtents(v.shape), strType(e.type, true), strExtents(expected)));
  if (!e.type.value || e.type.elem != ElemType::Int)
    return;
  if (e.type.value->size() != v.count())
    throw std::logic_error(fmt::format("interpreter: {} has {} values but its type knows {}", where(e), v.count(),
                                       e.type.value->size()));
  for (size_t i = 0; i < v.count(); ++i) {
    auto x = trySym((*e.type.value)[i]);
    if (x && (v.elem != ElemType::Int || *x != v.ints[i]))
      throw std::logic_error(fmt::format("interpreter: {} has value {} at {} but its type says {} = {}", where(e),
                                         v.data[i], i, (*e.type.value)[i].str(), *x));
  }
}

} // namespace

std::vector<NDArray> interpret(const TypedProgram &program, const DimValues &dims,
                               const std::vector<NDArray> &inputs, const InterpretOptions &options) {
  Evaluator evaluator(program, inputs, options);
  evaluator.bind(dims);
  evaluator.checkInputs();
  evaluator.checkGathers();
  evaluator.analyse();
  return evaluator.run();
}

std::vector<int64_t> concreteShape(const SymVec &shape, const DimValues &dims) {
  std::vector<int64_t> out;
  for (const SymExpr &s : shape) {
    try {
      out.push_back(s.evaluate([&](Symbol sym) {
        auto it = dims.find(sym);
        if (it == dims.end())
          throw EvalError(fmt::format("no value for dim '{}'", sym.name()), SourceLoc{});
        return it->second;
      }));
    } catch (const SymArithmeticError &error) {
      throw EvalError(fmt::format("extent {} cannot be evaluated: {}", s.str(), error.what()), SourceLoc{});
    }
  }
  return out;
}

} // namespace moac
