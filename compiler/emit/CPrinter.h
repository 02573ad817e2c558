// The C printer over the loop IR (EmitC.cpp), shared by every target: sequential C99 with a target's
// pragmas (PragmaPolicy), and the base of the CUDA printer (EmitCuda.cpp), which prints each region as a
// kernel and its launch instead. Internal to the emit library.
#pragma once

#include "CNames.h"
#include "CommentText.h"
#include "Emit.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace moac {

class CPrinter {
public:
  CPrinter(const Kernel &k, const PragmaPolicy &policy, Target target) : k(k), policy(policy), target(target), cn(k) {
    fileStem = commentText(k.fileName.substr(k.fileName.find_last_of('/') + 1)); // npos + 1 is 0
  }
  virtual ~CPrinter() = default;
  EmittedKernel print(const EmitInputs &inputs);

protected:
  const std::string &name(Symbol s) {
    auto r = renamed.find(s);
    return r != renamed.end() ? r->second : cn.symbol(s);
  }
  std::string integer(const SymExpr &e);
  std::string floatLiteral(double v, ElemType t) const;
  std::string expr(const LExprPtr &e, ElemType t);
  std::string asType(const LExprPtr &e, ElemType t);
  ElemType comparedIn(const LExprPtr &comparison) const;
  void stmt(const LStmt &s, ElemType t);
  // Declares a local for each floor division and modulus of the statements whose operands are all
  // `known` (before the statements, into `hoisted`); returns the ones it added.
  std::vector<std::tuple<bool, SymExpr, SymExpr>> hoist(const std::vector<LStmt> &body, const std::set<Symbol> &known);
  std::string loopHeader(const LStmt &loop); // `for (int64_t i = start; i < end; ++i) {`
  std::string ifHeader(const LStmt &branch);  // `if (i < n) {`, `if (c) {`
  // Prints one region into `body`: its loop nest (C, OpenMP, OpenACC) or its launch (CUDA, which also
  // adds the kernel to `kernels`).
  virtual void region(const Region &r);
  std::string present(const Region &r);
  std::string signature(const char *restrictWord) const;
  std::string chunkCount(const ChunkCount &c, const std::string &items, const std::string &terms,
                         const std::string &widerItems);
  std::string widerName(const ChunkCount &c);
  std::string widerTests(const std::string &voidDims);
  std::string widerDecls();
  std::string workspaceLayout(const std::string &voidDims);
  std::string pointerChecks(size_t totalSlot);
  std::string indexChecks();
  std::set<size_t> usedBuffers() const;
  std::string workspacePointers(const std::set<size_t> &used);
  std::string headerText(const std::string &command) const;
  std::string sourcePreamble(const EmitInputs &in, const std::string &command) const;
  std::string parameterComment() const;
  std::string dimParams() const;
  std::string dimArgs() const;
  std::string where(SourceLoc loc) const {
    return loc.valid() && locate ? fmt::format(" /* {}:{} */", fileStem, loc.line) : "";
  }
  void line(const std::string &text) { body += text + "\n"; }
  // The element type a region computes in: its last declared scalar's (f32 when it declares none).
  static ElemType regionType(const Region &r);

  const Kernel &k;
  const PragmaPolicy &policy;
  const Target target;
  std::string fileStem; // the .moa file's name, sealed for comments (CommentText.h)
  CNames cn; // every C name of the kernel and its header
  // The float type of the statement being printed: a comparison of floats that reads no array compares
  // in it (the comparison's own result is an int, printed in int context).
  ElemType floatType = ElemType::F32;
  // The text of each load printed (a gather's index, SymExpr::Atom::Load): cInteger holds pointers to it.
  std::deque<std::string> printedLoads;
  std::string body;
  std::string kernels; // CUDA: the __global__ functions, printed before the host code
  // Floor divisions and moduli computed once before the statements that use them (CUDA, and OpenACC's
  // parallel iterations: a 64-bit division is a long software routine on a GPU, which GCC recomputed in
  // every guarded term of a split's sum): {div?, lhs, rhs} → the local that holds it.
  std::map<std::tuple<bool, SymExpr, SymExpr>, std::string> hoisted;
  // While a parallel nest prints: the dims, chunk counts and the nest's indices so far (policy's
  // hoistsDivisions: the innermost parallel loop's body starts with the divisions over them).
  std::set<Symbol> parallelKnown;
  // CUDA: the accesses the statement being printed makes to a register instead of memory (one component of
  // a 16-byte vector loaded or stored once for four iterations): {buffer, offset} → the register's text.
  std::map<std::pair<size_t, SymExpr>, std::string> registers;
  // Whether statements carry their `/* FILE:LINE */` comment: CUDA prints a loop's body more than once (four
  // vector iterations and the scalar path) and locates only the copy explain --html matches to the loop IR.
  bool locate = true;
  // CUDA's tensor-core tiles: scalars printed as one copy for each element a lane holds (CudaMma.cpp)
  std::map<Symbol, std::string> renamed;
};

} // namespace moac
