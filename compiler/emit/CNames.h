// The one naming authority for the C that moac emits: every identifier of a kernel, its header and its
// `moac check` harness (parameters, buffers, chunk counts, partials, loop indices, scalars, harness
// locals) is minted here, so no emitter glues a name together or prints a .moa name as it is.
//
// The rule (docs/abi.md, "Parameter names"): a .moa name keeps its spelling unless C cannot have it —
// a keyword of C99/C11/C23, C++17 or CUDA, a name of the C library or a common macro, a name that starts
// with `_`, contains `__` or starts with `moa_`/`moart_` (any case), or a name the generated code uses
// itself. Such a name becomes `v_` + the name (runs of `_` shortened to one), and a counter `_2`, `_3`, …
// is added when that is taken too. Names are minted in a fixed order (first every usable .moa name, dims
// then arrays in declaration order; then the renamed ones; then derived names), so the mapping is one to
// one and the same for the kernel and the harness.
#pragma once

#include "LoopIR.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace moac {

// Why `name` cannot name a kernel (`moac compile --name=NAME`), or "" when it can: it must be a C
// identifier that C and C++ leave to the user (no keyword or C library name, no leading `_`, no `__`) and
// outside the runtime's `moart_` namespace, and not v or v_… (a renamed parameter's); the kernel's own
// names are NAME and NAME_… (NAME_workspace_bytes, the header's NAME_H, NAME_<input>_LIFTED_BLOCK, CUDA's
// NAME_stage0), which no parameter takes.
std::string kernelNameProblem(const std::string &name);

class CNames {
public:
  explicit CNames(const Kernel &kernel);

  // The C name of buffers[b]: a program array, the partials of a split reduction (`m_part`), or a
  // member's partials of a fused group (`online_o_part`).
  const std::string &buffer(size_t b) const { return buffers.at(b); }
  // A dim or chunk count (minted up front), or a loop index or scalar, minted on first use: its hint
  // (Symbol::hint: the paper's i, j, l, the user's own index names, acc, P_m), as written when C may have
  // it, plus a counter when this kernel already has that name (l2; x1_2 after a hint that ends in a
  // digit). So a user's index x1 stays x1, and the text depends only on the kernel, in the order it is
  // printed.
  const std::string &symbol(Symbol s);
  const std::string &dim(Symbol s) const { return symbols.at(s); }

  // The harness's locals of an input (its file and its argument array) and of an output (its shape
  // and its array).
  enum Local { File, Arg, Shape, Out };
  const std::string &local(size_t b, Local which) const { return locals.at({b, which}); }

private:
  // Whether C may have `name` as written (not reserved, not a name the generated code uses).
  bool fits(const std::string &name) const;
  // Whether `name` is the kernel's own: its name, or NAME_… (its functions, header guard and macros).
  bool ownName(const std::string &name) const;
  std::string fresh(const std::string &base, bool counterWithUnderscore);
  std::string derived(const std::string &base, const char *suffix);

  std::string kernelName;
  std::set<std::string> reserved, taken;
  std::map<Symbol, std::string> symbols;
  std::vector<std::string> buffers;
  std::map<std::pair<size_t, Local>, std::string> locals;
};

} // namespace moac
