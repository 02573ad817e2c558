// The emitters: printers over the loop IR. EmitC.cpp prints the kernel (sequential C99); a target adds
// only its pragmas through a PragmaPolicy (EmitOpenMP.cpp, EmitOpenACC.cpp). The generated file opens
// with the source, the DNF and the traffic model; every statement names the .moa line it came from; a
// companion header declares the kernel and its workspace-size function. The ABI is in docs/abi.md.
#pragma once

#include "LoopIR.h"
#include "Schedule.h"

#include <functional>
#include <string>
#include <vector>

namespace moac {

struct LStmt;
struct Region;

// One clause of the data region around the check harness's kernel call: what the device needs of an
// array, given as a C array section ("q[0:n]").
struct DataClause {
  enum Kind { CopyIn, Copy, CopyOut, Create } kind;
  std::string section;
};

// What a target adds to the sequential C text.
class PragmaPolicy {
public:
  virtual const char *extraIncludes() const { return ""; }
  // Before the perfect nest of `depth` parallel loops; `present` lists the buffers the region uses as
  // C array sections ("q[0:dk]"); `vectorInside`: the work of an iteration has vector loops
  // (LoopKind::Vector), which take the vector lanes.
  virtual std::string parallelNest(int depth, const std::string &present, bool vectorInside) const = 0;
  // A region run by one thread; returns the pragma line or "" (then the block is plain C).
  virtual std::string serialRegion(const std::string &present) const = 0;
  // Before a serial loop inside a region.
  virtual std::string serialLoop() const { return ""; }
  // Before the loop that checks a gather's index array (`present`: its section) and ORs a flag
  // (`flag`) for an element out of range, or "" (the loop runs in order on the host).
  virtual std::string indexCheckLoop(const std::string &, const std::string &) const { return ""; }
  // Whether each iteration of a parallel nest computes the floor divisions and moduli that depend only on
  // dims, chunk counts and the nest's indices once, at its start (a GPU: see CPrinter::hoisted).
  virtual bool hoistsDivisions() const { return false; }
  // Before a vector loop; `reductions` are its reductions into scalars from outside it, each as
  // OPERATOR:NAME ("max:m", "+:acc"). "": the loop runs in order, as a serial one.
  virtual std::string vectorLoop(const std::vector<std::string> &) const { return ""; }
  // Before the block that calls the kernel in the check harness: the pragma mapping the arrays onto the
  // device, or "" (the arrays stay where they are).
  virtual std::string dataRegion(const std::vector<DataClause> &) const { return ""; }

protected:
  // Not virtual: the policies are constants (sequentialPolicy() …) in read-only data, never deleted.
  ~PragmaPolicy() = default;
};

const PragmaPolicy &sequentialPolicy();
const PragmaPolicy &openmpPolicy();
const PragmaPolicy &openaccPolicy();
const PragmaPolicy &policyFor(Target target);

struct EmitInputs {
  std::string sourceText; // the .moa program
  std::string dnf;        // dumpDnf
  std::string traffic;    // printTraffic
  std::string command;    // how it was generated, for the header comment
  std::string headerName; // the companion header's file name, included by the kernel ("" = none)
};

struct EmittedKernel {
  std::string source; // the .c file
  std::string header; // the .h file
};

// The C type of an element: float, double, int64_t.
const char *cType(ElemType t);

// A symbolic integer as C, the one printer of them (the kernel's, the harness's and the PyTorch operator's):
// `(n * dk + 1)` (parenthesised when a sum), each symbol spelled by nameOf (CNames), a floor division or
// modulus as moart_floordiv / moart_floormod, or as the local that `local` names for it (CUDA's hoisted
// divisions; none where it gives null or is empty), -2^63 as INT64_MIN.
std::string cInteger(const SymExpr &e, const std::function<std::string(Symbol)> &nameOf,
                     const std::function<const std::string *(const SymExpr::Atom &)> &local = {});

EmittedKernel emitKernel(const Kernel &kernel, Target target, const EmitInputs &inputs);
// The CUDA target (EmitCuda.cpp): a .cu file of kernels and their host launcher, and a C header.
EmittedKernel emitCuda(const Kernel &kernel, const EmitInputs &inputs);

} // namespace moac
