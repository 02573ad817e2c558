#include "Shapes.h"

#include "Gamma.h"
#include "ShapeRules.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <set>

namespace moac {

namespace {

struct Entity {
  enum Kind { Dim, Input, Bind, Index, Function, Failed } kind; // Failed: reported where declared
  Entity(Kind kind = Dim, SourceLoc loc = {}) : kind(kind), loc(loc) {}
  SourceLoc loc;
  size_t slot = 0;                   // Dim, Input
  const TBinding *binding = nullptr; // Bind
  Symbol sym;                        // Index
  const FnDecl *fn = nullptr;        // Function
  bool update = false;               // Bind: the updated value of an inout, visible in functions too
};

using Scope = std::map<std::string, Entity>;

class ShapeChecker {
public:
  ShapeChecker(SymbolTable &symbols, DiagnosticEngine &diags) : symbols(symbols), diags(diags) {}
  std::optional<TypedProgram> run(const Program &program);

private:
  // ---- items ----
  void declareFunctions(const Program &program);
  void declareDim(const DimDecl *dim);
  void declareAssumption(const AssumeDecl *a);
  void declareArray(const ArrayDecl *arr);
  void defineBinding(const Binding *bind);
  void failed(const std::string &name, SourceLoc loc);

  // ---- names ----
  const Entity *lookup(const std::string &name) const;
  bool declare(Scope &scope, const std::string &name, Entity entity, const char *what);

  // ---- expressions ----
  TExprPtr elab(const Expr &e);
  TExprPtr elabName(const Expr &e);
  TExprPtr elabOperator(const Expr &e);
  TExprPtr elabCall(const Expr &e);
  const FnDecl *callee(const Expr &e);
  TExprPtr inlineCall(const Expr &e, const FnDecl &fn, std::vector<TExprPtr> argValues);
  TExprPtr elabComprehension(const Expr &e);
  TExprPtr apply(const Expr &e, TKind kind, std::vector<TExprPtr> args, const RuleResult &rule);
  void checkIndexBounds(const Expr &e, const TExpr &index, const TExpr &array, const SymVec &gatherIndex);
  static SymVec boundLoads(const SymVec &index, const SymVec &shape);
  std::optional<SymExpr> integerRead(const TExpr &index, const TExpr &array) const;
  std::optional<SymExpr> dimsOnlyValue(const Expr &e, const TExpr &t, const char *what);
  std::optional<SymExpr> indexedValue(const Expr &e, const TExpr &t, const char *what);
  bool dependsOnIndex(const SymExpr &v) const;
  bool checkIndexedExtent(const Expr &e, const SymExpr &extent);
  void addGuard(Guard g, SourceLoc loc, std::string reason);
  std::optional<std::pair<SymExpr, SymExpr>> bounds(const SymExpr &e) const;
  bool boundsAreExact(const SymExpr &e) const;
  bool checkUpdate(const Binding &bind, size_t slot, const TExpr &value);

  TExprPtr intConst(const Expr &e, SymExpr value) {
    auto t = std::make_unique<TExpr>(TKind::IntConst, e.loc, e.length);
    t->intValue = value;
    t->type = Type{ElemType::Int, {}, SymVec{value}};
    return t;
  }

  SymbolTable &symbols;
  DiagnosticEngine &diags;
  TypedProgram out;
  Scope globals;
  std::vector<Scope> locals;                // innermost last
  bool inFunction = false;                  // function bodies see only dims, inputs and functions
  std::vector<const FnDecl *> callStack;
  std::vector<SourceLoc> callSites;
  std::map<Symbol, SymExpr> indexExtent;    // comprehension indices in scope
  std::set<Symbol> dimSymbols;
  // Inlining multiplies: a chain of functions each calling the previous one twice doubles the program
  // per link, and nests bodies inside bodies. Both are bounded, so that no later stage recurses or
  // allocates without limit; real programs stay far below.
  static constexpr unsigned maxDepth = 1000;       // nested operations, inlined bodies included
  static constexpr size_t maxNodes = 200000;       // operations inside inlined bodies, each copy counted
  unsigned depth = 0;
  size_t nodes = 0;
  bool tooLarge = false; // reported once; elaboration stops
  std::optional<size_t> updating;           // the inout whose update is being elaborated
  std::map<size_t, std::pair<SourceLoc, uint32_t>> firstRead; // inout -> its first read outside its update
};

const Entity *ShapeChecker::lookup(const std::string &name) const {
  for (auto it = locals.rbegin(); it != locals.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return &found->second;
  }
  auto found = globals.find(name);
  if (found == globals.end())
    return nullptr;
  if (inFunction && found->second.kind == Entity::Bind && !found->second.update)
    return nullptr;
  return &found->second;
}

bool ShapeChecker::declare(Scope &scope, const std::string &name, Entity entity, const char *what) {
  symbols.reserve(name);
  auto [it, inserted] = scope.try_emplace(name, entity);
  if (!inserted) {
    diags.report(Diag::Redefinition, entity.loc, name);
    diags.report(Diag::PreviousDefinition, it->second.loc, name);
    return false;
  }
  (void)what;
  return true;
}

void ShapeChecker::addGuard(Guard g, SourceLoc loc, std::string reason) {
  g.loc = loc;
  g.reason = std::move(reason);
  for (const Guard &existing : out.guards)
    if (existing.cmp == g.cmp && existing.lhs == g.lhs && existing.rhs == g.rhs)
      return;
  out.guards.push_back(std::move(g));
}

// Interval of an index expression over the comprehension indices in scope, as dims-only bounds.
std::optional<std::pair<SymExpr, SymExpr>> ShapeChecker::bounds(const SymExpr &e) const {
  return indexBounds(e, indexExtent);
}

// hi < extent, also through one floor division: a div b < c  ⟺  a < b·c  when b > 0.
static bool provablyBelow(const SymExpr &hi, const SymExpr &extent) {
  if (nonNegative(signOf(extent - 1 - hi)))
    return true;
  const auto &terms = hi.terms();
  if (terms.size() == 1 && terms[0].coef == 1 && terms[0].factors.size() == 1 &&
      terms[0].factors[0]->kind == SymExpr::Atom::Div) {
    const auto &atom = *terms[0].factors[0];
    return signOf(atom.rhs) == Sign::Positive && nonNegative(signOf(atom.rhs * extent - 1 - atom.lhs));
  }
  return false;
}

// Whether bounds(e) is attained rather than only an enclosure: it is when each comprehension index occurs
// once in e and no mod atom (enclosed by [0, divisor)) appears. `(i-1)*(i-1)` is enclosed by
// [-2(n-1)+1, (n-1)²+1] but never negative.
bool ShapeChecker::boundsAreExact(const SymExpr &e) const {
  std::set<Symbol> seen;
  std::function<bool(const SymExpr &)> walk = [&](const SymExpr &x) {
    for (const auto &t : x.terms())
      for (const auto &f : t.factors) {
        if (f->kind == SymExpr::Atom::Mod)
          return false;
        if (f->kind == SymExpr::Atom::Div && !(walk(f->lhs) && walk(f->rhs)))
          return false;
        if (f->kind == SymExpr::Atom::Sym && indexExtent.count(f->sym) && !seen.insert(f->sym).second)
          return false;
      }
    return true;
  };
  return walk(e);
}

// A gather index's loads bounded by the extents of the axes they index: the run-time check that every
// element of the index array lies in [0, extent) is what makes the access in range.
SymVec ShapeChecker::boundLoads(const SymVec &index, const SymVec &shape) {
  SymVec out;
  for (size_t k = 0; k < index.size(); ++k)
    out.push_back(index[k].withLoadBounds([&](const SymExpr::Atom &a) {
      return a.rhs == SymExpr(0) && k < shape.size() ? shape[k] : a.rhs;
    }));
  return out;
}

// `<i, j> psi ids` with ids an integer `in` array and a full index known symbolically: its value is the
// element at γ(i, j), a load a gather may use as an index.
std::optional<SymExpr> ShapeChecker::integerRead(const TExpr &index, const TExpr &array) const {
  if (array.kind != TKind::Input || array.type.elem != ElemType::Int || !index.type.value ||
      index.type.value->size() != array.type.rank() || out.inputs[array.input].role != ArrayRole::In)
    return std::nullopt;
  return SymExpr::load(uint32_t(array.input), array.name, gamma(*index.type.value, array.type.shape), SymExpr(0));
}

// ψ with a known index (or a gather's, whose loads are in range by their run-time check): each entry must
// lie in [0, extent). Decided at compile time where the interval arithmetic can, recorded as a guard over
// the dims where it cannot.
void ShapeChecker::checkIndexBounds(const Expr &e, const TExpr &index, const TExpr &array, const SymVec &gatherIndex) {
  if (!index.type.value && gatherIndex.empty())
    return;
  const SymVec &idx = index.type.value ? *index.type.value : gatherIndex;
  for (size_t k = 0; k < idx.size() && k < array.type.rank(); ++k) {
    auto range = bounds(idx[k]);
    if (!range)
      continue;
    const SymExpr &extent = array.type.shape[k];
    Sign low = signOf(range->first);
    Sign high = signOf(extent - 1 - range->second);
    const Expr &at = e.args[0]->kind == ExprKind::Vector && k < e.args[0]->args.size() ? *e.args[0]->args[k]
                                                                                    : *e.args[0];
    // Out of range for certain only when the bound is attained; an enclosure that leaves the axis is a guard.
    if ((low == Sign::Negative || high == Sign::Negative) && boundsAreExact(idx[k])) {
      diags.reportSpan(Diag::IndexOutOfRange, at.loc, at.length, idx[k].str(), extent.str());
      continue;
    }
    if (!nonNegative(low))
      addGuard(Guard{Guard::Le, SymExpr(0), range->first, {}, {}}, at.loc, "psi index not negative");
    if (!nonNegative(high) && !provablyBelow(range->second, extent))
      addGuard(Guard{Guard::Lt, range->second, extent, {}, {}}, at.loc, "psi index within its axis");
  }
}

std::optional<SymExpr> ShapeChecker::dimsOnlyValue(const Expr &e, const TExpr &t, const char *what) {
  if (t.type.elem != ElemType::Int || t.type.rank() != 0 || !t.type.value) {
    diags.reportArgs(Diag::NotInteger, e.loc, e.length,
                     {what, "it is not an integer known at compile time"});
    return std::nullopt;
  }
  SymExpr v = (*t.type.value)[0];
  for (Symbol s : v.symbols())
    if (!dimSymbols.count(s)) {
      diags.reportArgs(Diag::NotInteger, e.loc, e.length,
                       {what, "it depends on the index '" + s.name() + "'"});
      return std::nullopt;
    }
  return v;
}

bool ShapeChecker::dependsOnIndex(const SymExpr &v) const {
  for (Symbol s : v.symbols())
    if (indexExtent.count(s))
      return true;
  return false;
}

// An integer known at compile time over the dims and the comprehension indices in scope.
std::optional<SymExpr> ShapeChecker::indexedValue(const Expr &e, const TExpr &t, const char *what) {
  if (t.type.elem != ElemType::Int || t.type.rank() != 0 || !t.type.value) {
    diags.reportArgs(Diag::NotInteger, e.loc, e.length, {what, "it is not an integer known at compile time"});
    return std::nullopt;
  }
  return (*t.type.value)[0];
}

// An extent over enclosing indices (`[j < i + 1]`) may be 0 at some index (that row is empty) but never
// negative: an error where its least value is negative for every dims and attained, a guard over the
// dims where they decide.
bool ShapeChecker::checkIndexedExtent(const Expr &e, const SymExpr &extent) {
  auto range = bounds(extent);
  if (!range) {
    diags.reportArgs(Diag::NotInteger, e.loc, e.length,
                     {"this extent", "its range over the enclosing comprehension's indices is not known"});
    return false;
  }
  Sign least = signOf(range->first);
  if (nonNegative(least))
    return true;
  if (signOf(range->second) == Sign::Negative || (least == Sign::Negative && boundsAreExact(extent))) {
    diags.reportSpan(Diag::NegativeExtentAt, e.loc, e.length, extent.str(), range->first.str());
    return false;
  }
  addGuard(Guard{Guard::Le, SymExpr(0), range->first, {}, {}}, e.loc, "comprehension extent not negative");
  return true;
}

static std::string describeOperand(const Expr &e) {
  if (e.kind == ExprKind::Name)
    return "'" + e.name + "'";
  if (e.kind == ExprKind::Call)
    return "the result of '" + e.name + "'";
  return "this operand";
}

TExprPtr ShapeChecker::apply(const Expr &e, TKind kind, std::vector<TExprPtr> args, const RuleResult &rule) {
  if (!rule.ok()) {
    const RuleError &error = rule.error();
    diags.reportArgs(error.kind, e.loc, e.length, error.args);
    // Say where each operand's shape came from when two shapes disagree.
    if (error.kind == Diag::ShapeMismatch || error.kind == Diag::InnerMismatch ||
        error.kind == Diag::CatTailMismatch)
      for (size_t i = 0; i < e.args.size() && i < args.size(); ++i)
        diags.reportArgs(Diag::ShapeFrom, e.args[i]->loc, e.args[i]->length,
                         {describeOperand(*e.args[i]), strShape(args[i]->type.shape)});
    return nullptr;
  }
  for (const Guard &g : rule.guards) {
    const char *reason = "extent positive";
    if (g.cmp == Guard::Eq)
      reason = "reshape keeps the element count";
    else if (e.kind == ExprKind::Take || e.kind == ExprKind::Drop)
      reason = e.kind == ExprKind::Take ? "take count within the leading extent"
                                        : "drop count within the leading extent";
    addGuard(g, e.loc, g.reason.empty() ? reason : g.reason);
  }
  auto t = std::make_unique<TExpr>(kind, e.loc, e.length);
  t->type = rule.type();
  t->args = std::move(args);
  t->op = e.op;
  t->op2 = e.op2;
  t->unop = e.unop;
  return t;
}

TExprPtr ShapeChecker::elabName(const Expr &e) {
  const Entity *entity = lookup(e.name);
  if (!entity) {
    diags.reportSpan(Diag::UnknownName, e.loc, e.length, e.name);
    return nullptr;
  }
  switch (entity->kind) {
  case Entity::Dim: {
    const TDim &dim = out.dims[entity->slot];
    return intConst(e, dim.value ? SymExpr(*dim.value) : SymExpr::symbol(dim.sym));
  }
  case Entity::Input: {
    const TInput &in = out.inputs[entity->slot];
    if (in.role == ArrayRole::InOut && updating != entity->slot)
      firstRead.try_emplace(entity->slot, e.loc, e.length);
    auto t = std::make_unique<TExpr>(TKind::Input, e.loc, e.length);
    t->input = entity->slot;
    t->name = in.name;
    t->type = Type{computeType(in.elem), in.shape, std::nullopt}; // a half-precision read widens to f32
    return t;
  }
  case Entity::Bind: {
    auto t = std::make_unique<TExpr>(TKind::Ref, e.loc, e.length);
    t->ref = entity->binding;
    t->type = entity->binding->value->type;
    return t;
  }
  case Entity::Index:
    return intConst(e, SymExpr::symbol(entity->sym));
  case Entity::Function:
    diags.reportSpan(Diag::FunctionAsValue, e.loc, e.length, e.name);
    return nullptr;
  case Entity::Failed:
    return nullptr;
  }
  return nullptr;
}

// The function a call names, or null (reported) when it names none, has the wrong number of arguments,
// recurses or has no result.
const FnDecl *ShapeChecker::callee(const Expr &e) {
  const Entity *entity = lookup(e.name);
  if (!entity) {
    diags.reportSpan(Diag::UnknownFunction, e.loc, e.length, e.name);
    return nullptr;
  }
  if (entity->kind == Entity::Failed)
    return nullptr;
  if (entity->kind != Entity::Function) {
    diags.reportSpan(Diag::NotAFunction, e.loc, e.length, e.name);
    return nullptr;
  }
  const FnDecl &fn = *entity->fn;
  if (fn.params.size() != e.args.size()) {
    diags.reportSpan(Diag::ArityMismatch, e.loc, e.length, fn.name, fn.params.size(),
                     fn.params.size() == 1 ? "" : "s", e.args.size(), e.args.size() == 1 ? "was" : "were");
    return nullptr;
  }
  if (std::find(callStack.begin(), callStack.end(), &fn) != callStack.end()) {
    diags.reportSpan(Diag::Recursion, e.loc, e.length, fn.name);
    for (size_t i = 0; i < callStack.size(); ++i)
      diags.report(Diag::CallChainNote, callSites[i], callStack[i]->name);
    return nullptr;
  }
  if (!fn.result)
    return nullptr; // reported by the parser
  return &fn;
}

// A call inlines the function: its parameters and locals become a chain of Lets around the result.
TExprPtr ShapeChecker::elabCall(const Expr &e) {
  const FnDecl *called = callee(e);
  if (!called)
    return nullptr;
  const FnDecl &fn = *called;
  std::vector<TExprPtr> argValues;
  bool failed = false;
  for (const auto &arg : e.args) {
    argValues.push_back(elab(*arg));
    failed |= !argValues.back();
  }
  if (failed)
    return nullptr;
  return inlineCall(e, fn, std::move(argValues));
}

// The function's body with its parameters bound to the arguments' values.
TExprPtr ShapeChecker::inlineCall(const Expr &e, const FnDecl &fn, std::vector<TExprPtr> argValues) {
  bool failed = false;
  // The body sees only its parameters, its locals and the program's dims, inputs and functions.
  std::vector<Scope> savedLocals = std::move(locals);
  bool savedInFunction = inFunction;
  locals.assign(1, Scope{});
  inFunction = true;
  callStack.push_back(&fn);
  callSites.push_back(e.loc);

  std::vector<std::unique_ptr<TBinding>> chain;
  auto bind = [&](const std::string &name, SourceLoc loc, TExprPtr value) {
    auto b = std::make_unique<TBinding>();
    b->name = name;
    b->origin = fn.name;
    b->loc = loc;
    b->value = std::move(value);
    Entity entity{Entity::Bind, loc};
    entity.binding = b.get();
    locals.back()[name] = entity;
    chain.push_back(std::move(b));
  };
  std::set<std::string> seen;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    if (!seen.insert(fn.params[i]).second) {
      diags.report(Diag::DuplicateParam, fn.paramLocs[i], fn.params[i]);
      failed = true;
    }
    bind(fn.params[i], fn.paramLocs[i], std::move(argValues[i]));
  }
  for (const Binding &local : fn.locals) {
    if (failed)
      break;
    if (locals.back().count(local.name) && !seen.insert(local.name).second) {
      diags.report(Diag::Redefinition, local.loc, local.name);
      diags.report(Diag::PreviousDefinition, locals.back()[local.name].loc, local.name);
      failed = true;
      break;
    }
    seen.insert(local.name);
    TExprPtr value = elab(*local.value);
    if (!value) {
      failed = true;
      break;
    }
    bind(local.name, local.loc, std::move(value));
  }
  TExprPtr body = failed ? nullptr : elab(*fn.result);

  callStack.pop_back();
  callSites.pop_back();
  locals = std::move(savedLocals);
  inFunction = savedInFunction;
  if (!body)
    return nullptr;
  while (!chain.empty()) {
    auto let = std::make_unique<TExpr>(TKind::Let, e.loc, e.length);
    let->type = body->type;
    let->let = std::move(chain.back());
    chain.pop_back();
    let->args.push_back(std::move(body));
    body = std::move(let);
  }
  return body;
}

TExprPtr ShapeChecker::elabComprehension(const Expr &e) {
  std::vector<TIndex> indices;
  Scope scope;
  for (const Binder &b : e.binders) {
    TExprPtr ext = elab(*b.extent);
    if (!ext)
      return nullptr;
    auto value = indexedValue(*b.extent, *ext, ("the extent of index '" + b.name + "'").c_str());
    if (!value)
      return nullptr;
    if (dependsOnIndex(*value)) {
      if (!checkIndexedExtent(*b.extent, *value))
        return nullptr;
      TIndex index{symbols.fresh(b.name), *value, b.loc};
      Entity entity{Entity::Index, b.loc};
      entity.sym = index.sym;
      if (!declare(scope, b.name, entity, "an index"))
        return nullptr;
      indices.push_back(index);
      continue;
    }
    ExtentCheck check = checkExtent(*value);
    if (check == ExtentCheck::Never) {
      diags.reportSpan(Diag::NonPositiveExtent, b.extent->loc, b.extent->length, value->str());
      return nullptr;
    }
    if (check == ExtentCheck::Guarded)
      addGuard(Guard{Guard::Le, SymExpr(1), *value, {}, {}}, b.extent->loc, "comprehension extent positive");
    TIndex index{symbols.fresh(b.name), *value, b.loc};
    Entity entity{Entity::Index, b.loc};
    entity.sym = index.sym;
    if (!declare(scope, b.name, entity, "an index"))
      return nullptr;
    indices.push_back(index);
  }
  locals.push_back(std::move(scope));
  for (const TIndex &i : indices)
    indexExtent[i.sym] = i.extent;
  TExprPtr body = elab(*e.args[0]);
  for (const TIndex &i : indices)
    indexExtent.erase(i.sym);
  locals.pop_back();
  if (!body)
    return nullptr;
  // An array is rectangular: the body's shape may depend on enclosing indices, not on this comprehension's.
  for (const SymExpr &x : body->type.shape)
    for (const TIndex &i : indices)
      if (x.dependsOn(i.sym)) {
        diags.reportSpan(Diag::RaggedComprehension, e.loc, e.length, strShape(body->type.shape), i.sym.name());
        return nullptr;
      }
  SymVec extents;
  for (const TIndex &i : indices)
    extents.push_back(i.extent);
  RuleResult rule = shapeOfComprehension(extents, body->type);
  std::vector<TExprPtr> args;
  args.push_back(std::move(body));
  TExprPtr t = apply(e, TKind::Comprehension, std::move(args), rule);
  if (t)
    t->indices = std::move(indices);
  return t;
}

TExprPtr ShapeChecker::elab(const Expr &e) {
  if (diags.tooMany() || tooLarge)
    return nullptr;
  // What is written outside functions is bounded by the source size; what inlining copies is counted.
  if (depth >= maxDepth || (!callStack.empty() && ++nodes > maxNodes)) {
    tooLarge = true;
    if (depth >= maxDepth)
      diags.reportSpan(Diag::InlinedTooDeep, e.loc, e.length, maxDepth);
    else
      diags.reportSpan(Diag::InlinedTooLarge, e.loc, e.length, maxNodes);
    for (size_t i = callStack.size(); i-- > 0 && callStack.size() - i <= 3;)
      diags.report(Diag::CallChainNote, callSites[i], callStack[i]->name);
    return nullptr;
  }
  struct Deeper {
    unsigned &depth;
    explicit Deeper(unsigned &d) : depth(++d) {}
    ~Deeper() { --depth; }
  } deeper(depth);
  switch (e.kind) {
  case ExprKind::Number:
    if (e.isInt)
      return intConst(e, SymExpr(e.intValue));
    else {
      auto t = std::make_unique<TExpr>(TKind::FloatConst, e.loc, e.length);
      t->floatValue = e.floatValue;
      t->type = Type{ElemType::F32, {}, std::nullopt};
      return t;
    }
  case ExprKind::Name: return elabName(e);
  case ExprKind::Call: return elabCall(e);
  case ExprKind::Comprehension: return elabComprehension(e);
  default: break;
  }
  return elabOperator(e);
}

// An operator applied to its elaborated arguments, typed by its shape rule.
TExprPtr ShapeChecker::elabOperator(const Expr &e) {
  std::vector<TExprPtr> args;
  for (const auto &arg : e.args) {
    args.push_back(elab(*arg));
    if (!args.back())
      return nullptr;
  }
  auto type = [&](size_t i) -> const Type & { return args[i]->type; };
  // Counts and shapes fix the result's shape, so they may use dims but no comprehension index.
  auto dimsOnly = [&](size_t i, const char *what) {
    if (!args[i]->type.value)
      return true; // the shape rule reports it
    for (const auto &v : *args[i]->type.value)
      for (Symbol s : v.symbols())
        if (!dimSymbols.count(s)) {
          diags.reportSpan(Diag::IndexDependent, e.args[i]->loc, e.args[i]->length, what, s.name());
          return false;
        }
    return true;
  };
  // The counts of take and drop may use the indices in scope too (`(i + 1) take K`): the result's extent is
  // then symbolic in them, and the rule checks the count over their ranges.
  if ((e.kind == ExprKind::Iota && !dimsOnly(0, "the count of iota")) ||
      (e.kind == ExprKind::Reshape && !dimsOnly(0, "the new shape of reshape")))
    return nullptr;
  // The rule is computed before `args` is moved into apply(): argument evaluation order is unspecified,
  // and Clang moves first (so type(0) would read a moved-from vector).
  auto applyRule = [&](TKind kind, RuleResult rule) { return apply(e, kind, std::move(args), rule); };
  switch (e.kind) {
  case ExprKind::Vector: {
    std::vector<Type> types;
    for (const auto &a : args)
      types.push_back(a->type);
    return applyRule(TKind::Vector, shapeOfVector(types));
  }
  case ExprKind::Unary: return applyRule(TKind::Unary, shapeOfUnary(e.unop, type(0)));
  case ExprKind::Binary: {
    // an integer divided by a value over dims that a dim declared `>= 0` may make 0: a run-time guard
    const auto &divisor = args[1]->type.value;
    auto overDims = [&](const SymExpr &d) {
      std::vector<Symbol> used = d.symbols();
      return std::all_of(used.begin(), used.end(), [&](Symbol s) { return dimSymbols.count(s) > 0; });
    };
    if ((e.op == BinOp::IntDiv || e.op == BinOp::Mod) && divisor && divisor->size() == 1 &&
        overDims((*divisor)[0]) && divisorNeedsGuard((*divisor)[0]))
      addGuard(Guard{Guard::Le, SymExpr(1), (*divisor)[0], {}, {}}, e.loc, "divisor not zero");
    return applyRule(TKind::Binary, shapeOfElementwise(e.op, type(0), type(1)));
  }
  case ExprKind::Reduce: {
    TExprPtr t = applyRule(TKind::Reduce, shapeOfReduce(e.op, type(0), e.axis));
    if (t)
      t->axis = size_t(e.axis); // in range: the rule checked it
    return t;
  }
  case ExprKind::Inner: return applyRule(TKind::Inner, shapeOfInner(e.op, e.op2, type(0), type(1)));
  case ExprKind::Outer: return applyRule(TKind::Outer, shapeOfOuter(e.op2, type(0), type(1)));
  case ExprKind::Psi: {
    RuleResult rule = shapeOfPsi(type(0), type(1));
    SymVec gatherIndex;
    if (rule.ok() && !type(0).value) // a gather: each load is in range of the axis it indexes, checked at run time
      gatherIndex = boundLoads(*type(0).gather, type(1).shape);
    if (rule.ok())
      checkIndexBounds(e, *args[0], *args[1], gatherIndex);
    std::optional<SymExpr> read = rule.ok() ? integerRead(*args[0], *args[1]) : std::nullopt;
    TExprPtr t = applyRule(TKind::Psi, std::move(rule));
    if (t) {
      t->gatherIndex = std::move(gatherIndex);
      if (read)
        t->type.gather = SymVec{*read};
    }
    return t;
  }
  case ExprKind::Rho: return applyRule(TKind::Rho, shapeOfRho(type(0)));
  case ExprKind::Iota: return applyRule(TKind::Iota, shapeOfIota(type(0)));
  case ExprKind::Tran:
    return applyRule(TKind::Tran, args.size() == 1 ? shapeOfTran(type(0)) : shapeOfTranPerm(type(0), type(1)));
  case ExprKind::Take: return applyRule(TKind::Take, shapeOfTake(type(0), type(1), indexExtent));
  case ExprKind::Drop: return applyRule(TKind::Drop, shapeOfDrop(type(0), type(1), indexExtent));
  case ExprKind::Cat: return applyRule(TKind::Cat, shapeOfCat(type(0), type(1)));
  case ExprKind::Reshape: return applyRule(TKind::Reshape, shapeOfReshape(type(0), type(1)));
  case ExprKind::Rav: return applyRule(TKind::Rav, shapeOfRav(type(0)));
  case ExprKind::Where: return applyRule(TKind::Where, shapeOfWhere(type(0), type(1), type(2)));
  default: break;
  }
  return nullptr;
}

// Functions may be called before their definition; everything else is declared before use.
void ShapeChecker::declareFunctions(const Program &program) {
  for (const Item &item : program.items)
    if (auto *fn = std::get_if<FnDecl>(&item)) {
      Entity entity{Entity::Function, fn->loc};
      entity.fn = fn;
      declare(globals, fn->name, entity, "a function");
    }
}

// An item that fails still declares its name, so that its uses are not reported once more each.
void ShapeChecker::failed(const std::string &name, SourceLoc loc) { globals.try_emplace(name, Entity::Failed, loc); }

// `dim n` or `dim n = e`: e must be a positive constant over the dims declared above.
void ShapeChecker::declareDim(const DimDecl *dim) {
  TDim d{dim->name, symbols.intern(dim->name), std::nullopt, dim->loc};
  if (dim->value) {
    TExprPtr v = elab(*dim->value);
    auto value = v ? dimsOnlyValue(*dim->value, *v, ("the value of dim '" + dim->name + "'").c_str())
                   : std::nullopt;
    if (!value) {
      failed(dim->name, dim->loc);
      return;
    }
    if (!value->isConstant() || *value->constant() <= 0) {
      diags.reportSpan(value->isConstant() ? Diag::DimNotPositive : Diag::DimNotConstant, dim->value->loc,
                       dim->value->length, dim->name, value->str());
      failed(dim->name, dim->loc);
      return;
    }
    d.value = *value->constant();
  }
  Entity entity{Entity::Dim, dim->loc};
  entity.slot = out.dims.size();
  if (declare(globals, dim->name, entity, "a dim")) {
    dimSymbols.insert(d.sym);
    if (dim->least) {
      // `dim t >= k`: every sign the shape checker and the later stages decide takes t ≥ k (0: t may be 0);
      // above 1 it is a guard that every run checks, as the language's own least, 1, is checked
      d.least = *dim->least;
      symbols.setLeast(d.sym, d.least);
      if (d.least > 1)
        addGuard(Guard{Guard::Le, SymExpr(d.least), SymExpr::symbol(d.sym), {}, {}}, dim->leastLoc,
                 "the dim's declared least value");
    }
    out.dims.push_back(d);
  }
}

// `assume a <= b` (< == >= > too) over dims: a fact for every later sign (b − a ≥ 0; a < b is b − a − 1 ≥ 0),
// and a guard that every run checks, so no kernel or `moac run` computes where it does not hold. One that
// holds for all dims needs neither; one that holds for none is an error.
void ShapeChecker::declareAssumption(const AssumeDecl *a) {
  const Expr &r = *a->relation;
  const bool relation = r.kind == ExprKind::Binary && isComparison(r.op) && r.op != BinOp::Ne;
  if (!relation) {
    diags.reportSpan(Diag::NotARelation, r.loc, r.length);
    return;
  }
  TExprPtr lhs = elab(*r.args[0]), rhs = elab(*r.args[1]);
  auto left = lhs ? dimsOnlyValue(*r.args[0], *lhs, "a side of an assumption") : std::nullopt;
  auto right = rhs ? dimsOnlyValue(*r.args[1], *rhs, "a side of an assumption") : std::nullopt;
  if (!left || !right)
    return;
  const bool swap = r.op == BinOp::Gt || r.op == BinOp::Ge, strict = r.op == BinOp::Lt || r.op == BinOp::Gt;
  const SymExpr &lo = swap ? *right : *left, &hi = swap ? *left : *right;
  SymExpr fact = hi - lo - SymExpr(strict ? 1 : 0);
  std::vector<SymExpr> facts{fact};
  if (r.op == BinOp::Eq)
    facts.push_back(lo - hi);
  Sign s = signOf(fact);
  const bool never = r.op == BinOp::Eq ? s == Sign::Positive || s == Sign::Negative : s == Sign::Negative;
  const bool always = r.op == BinOp::Eq ? s == Sign::Zero : nonNegative(s);
  std::string text = lo.str() + (r.op == BinOp::Eq ? " == " : strict ? " < " : " <= ") + hi.str();
  if (never) {
    diags.reportSpan(Diag::AssumptionNeverHolds, r.loc, r.length, text);
    return;
  }
  if (always)
    return;
  for (const SymExpr &f : facts)
    symbols.assume(f);
  Guard::Cmp cmp = r.op == BinOp::Eq ? Guard::Eq : strict ? Guard::Lt : Guard::Le;
  addGuard(Guard{cmp, lo, hi, {}, {}}, r.loc, "assumption");
}

// `in x : f32[e, …]` (and inout): each extent is positive, provably or by a run-time guard.
void ShapeChecker::declareArray(const ArrayDecl *arr) {
  TInput in{arr->name, arr->role, arr->elem, {}, arr->loc};
  bool good = true;
  for (const auto &ext : arr->extents) {
    TExprPtr v = elab(*ext);
    auto value = v ? dimsOnlyValue(*ext, *v, "an array extent") : std::nullopt;
    if (!value) {
      good = false;
      continue;
    }
    ExtentCheck check = checkExtent(*value);
    if (check == ExtentCheck::Never) {
      diags.reportSpan(Diag::NonPositiveExtent, ext->loc, ext->length, value->str());
      good = false;
    } else if (check == ExtentCheck::Guarded) {
      addGuard(Guard{Guard::Le, SymExpr(1), *value, {}, {}}, ext->loc, "array extent positive");
    }
    in.shape.push_back(*value);
  }
  if (!good) {
    failed(arr->name, arr->loc);
    return;
  }
  Entity entity{Entity::Input, arr->loc};
  entity.slot = out.inputs.size();
  if (declare(globals, arr->name, entity, "an input"))
    out.inputs.push_back(std::move(in));
}

// `X = e`, `out X = e`, or the update of an inout X declared above.
void ShapeChecker::defineBinding(const Binding *bind) {
  // `X = e` with X an inout declared above is an update of X, not a redefinition.
  auto previous = globals.find(bind->name);
  std::optional<size_t> slot;
  if (previous != globals.end() && previous->second.kind == Entity::Input &&
      out.inputs[previous->second.slot].role == ArrayRole::InOut)
    slot = previous->second.slot;
  updating = slot;
  TExprPtr value = elab(*bind->value);
  updating.reset();
  if (!value || (slot && !checkUpdate(*bind, *slot, *value))) {
    if (!slot)
      failed(bind->name, bind->loc);
    return;
  }
  auto b = std::make_unique<TBinding>();
  b->name = bind->name;
  b->loc = bind->loc;
  b->isOutput = bind->isOutput;
  b->updates = slot;
  if (bind->elem) {
    // a declared type stores the value as it is, an f32 value rounded to bf16 or f16, an int one in i32
    ElemType have = value->type.elem;
    if (computeType(*bind->elem) != have) {
      diags.reportSpan(Diag::OutputType, bind->elemLoc, uint32_t(std::strlen(spell(*bind->elem))), bind->name,
                       spell(*bind->elem), spell(have));
      return;
    }
    b->storage = *bind->elem;
  }
  b->value = std::move(value);
  Entity entity{Entity::Bind, bind->loc};
  entity.binding = b.get();
  entity.update = slot.has_value();
  if (slot) {
    globals[bind->name] = entity;
    out.bindings.push_back(std::move(b));
  } else if (previous != globals.end() && previous->second.kind == Entity::Input) {
    diags.report(Diag::UpdateOfIn, bind->loc, bind->name);
    diags.report(Diag::PreviousDefinition, previous->second.loc, bind->name);
  } else if (previous != globals.end() && previous->second.update) {
    diags.report(Diag::UpdatedTwice, bind->loc, bind->name);
    diags.report(Diag::PreviousUpdate, previous->second.loc, bind->name);
  } else if (declare(globals, bind->name, entity, "a binding")) {
    out.bindings.push_back(std::move(b));
  }
}

std::optional<TypedProgram> ShapeChecker::run(const Program &program) {
  out.fileName = program.fileName;
  // Every top-level name is a program name before any comprehension index is made (a later `i = …`
  // must not share its spelling with an earlier `[i < n: …]`'s index).
  for (const Item &item : program.items)
    symbols.reserve(std::visit([](const auto &it) { return it.name; }, item));
  declareFunctions(program);
  for (const Item &item : program.items) {
    if (diags.tooMany())
      break;
    try {
      if (auto *dim = std::get_if<DimDecl>(&item))
        declareDim(dim);
      else if (auto *assume = std::get_if<AssumeDecl>(&item))
        declareAssumption(assume);
      else if (auto *arr = std::get_if<ArrayDecl>(&item))
        declareArray(arr);
      else if (auto *bind = std::get_if<Binding>(&item))
        defineBinding(bind);
    } catch (const SymArithmeticError &error) {
      // Overflowing or dividing extents: point at the item; the message names the arithmetic fault.
      SourceLoc loc = std::visit([](const auto &it) { return it.loc; }, item);
      diags.report(Diag::Arithmetic, loc, error.what());
      // The throw may have left a function call or a comprehension half entered.
      locals.clear();
      inFunction = false;
      callStack.clear();
      callSites.clear();
      indexExtent.clear();
      if (!std::holds_alternative<FnDecl>(item))
        failed(std::visit([](const auto &it) { return it.name; }, item), loc);
    }
  }
  if (diags.tooMany()) // stopped early: say so (printed once)
    diags.report(Diag::TooManyErrors, SourceLoc{});
  if (diags.hasErrors())
    return std::nullopt;
  if (std::none_of(out.bindings.begin(), out.bindings.end(),
                   [](const auto &b) { return b->isOutput || b->updates; })) {
    diags.report(Diag::NoOutputs, program.end);
    return std::nullopt;
  }
  return std::move(out);
}

// An update `X = e` of the inout X: e keeps X's element type, rank and trailing axes, and its leading
// extent fits X's storage (an error when provably larger, a run-time guard when it depends on the dims);
// X is not read above the update, and the update is not an `out`.
bool ShapeChecker::checkUpdate(const Binding &bind, size_t slot, const TExpr &value) {
  const TInput &in = out.inputs[slot];
  bool good = true;
  if (bind.isOutput) {
    diags.report(Diag::UpdateIsOutput, bind.loc, bind.name);
    good = false;
  }
  if (auto read = firstRead.find(slot); read != firstRead.end()) {
    diags.reportSpan(Diag::ReadBeforeUpdate, read->second.first, read->second.second, bind.name);
    diags.report(Diag::UpdatedHere, bind.loc, bind.name);
    good = false;
  }
  const SymVec &have = value.type.shape;
  bool sameTail = have.size() == in.shape.size() &&
                  std::equal(have.begin() + (have.empty() ? 0 : 1), have.end(), in.shape.begin() + (have.empty() ? 0 : 1));
  if (value.type.elem != computeType(in.elem) || !sameTail) {
    diags.reportSpan(Diag::UpdateType, bind.value->loc, bind.value->length, bind.name,
                     strType(value.type), strType(Type{in.elem, in.shape, std::nullopt}));
    return false;
  }
  if (!have.empty()) {
    Sign room = signOf(in.shape[0] - have[0]);
    if (room == Sign::Negative) {
      diags.reportSpan(Diag::UpdateTooLong, bind.value->loc, bind.value->length, bind.name, have[0].str(),
                       in.shape[0].str());
      good = false;
    } else if (!nonNegative(room)) {
      addGuard(Guard{Guard::Le, have[0], in.shape[0], {}, {}}, bind.value->loc, "update within the inout's storage");
    }
  }
  return good;
}

} // namespace

std::optional<TypedProgram> inferShapes(CompilationContext &ctx, const Program &program, DiagnosticEngine &diags) {
  return ShapeChecker(ctx.symbols, diags).run(program);
}

} // namespace moac
