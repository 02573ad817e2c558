#include "Explain.h"

#include "Gamma.h"

#include "LoopIR.h"
#include "Traffic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace moac {

namespace {

void section(std::string &out, const char *title) { out += fmt::format("\n== {} ==\n", title); }

// The target as the section title names it (the paper's spelling).
const char *targetTitle(Target t) {
  return t == Target::OpenACC ? "OpenACC" : t == Target::OpenMP ? "OpenMP" : t == Target::Cuda ? "CUDA" : "C";
}

// A reduction whose range is over an enclosing index (Σ_{l<i+1} inside ⟨i⟩ψ O): its terms counted over the
// whole index space, Σ_{i<n} (i + 1) = n(n + 1)/2, not n² (Gamma.h, indexSpaceSize).
struct Range {
  SymVec shape;
  std::vector<Symbol> index;
};

void triangularReductions(const DExprPtr &e, Range around, const std::string &what, const DnfPrinter &print,
                          std::string &out) {
  if (e->kind == DKind::Reduce) {
    const bool overIndices = std::any_of(around.index.begin(), around.index.end(),
                                         [&](Symbol s) { return e->extent.dependsOn(s); });
    around.shape.push_back(e->extent);
    around.index.push_back(e->var);
    if (overIndices)
      out += fmt::format("triangular {}: {}_{{{}}} — {} terms over its index space\n", what,
                         e->op == BinOp::Add ? "Σ" : e->op == BinOp::Max ? "max" : e->op == BinOp::Min ? "min" : "Π",
                         print.range(print.names.count(e->var) ? print.names.at(e->var) : e->var.name(), e->extent),
                         indexSpaceSize(around.shape, around.index).str());
  }
  for (const auto &a : e->args)
    triangularReductions(a, around, what, print, out);
}

std::string triangularNotes(const DnfProgram &dnf) {
  std::string out;
  for (const FusedGroup &g : dnf.groups) {
    if (std::none_of(g.frame.begin(), g.frame.end(), [&](Symbol s) { return g.extent.dependsOn(s); }))
      continue;
    SymVec shape = g.frameShape;
    shape.push_back(g.extent);
    std::vector<Symbol> index = g.frame;
    index.push_back(g.var);
    DnfPrinter print{dnf, false, {}};
    std::string frame;
    for (size_t k = 0; k < g.frame.size(); ++k) {
      print.names[g.frame[k]] = indexHint(k);
      frame += (k ? " " : "") + std::string(indexHint(k));
    }
    out += fmt::format("triangular {} (fused): l < {} at frame element ⟨{}⟩ — {} scores, each computed once\n",
                       g.name, print.sym(g.extent), frame, indexSpaceSize(shape, index).str());
  }
  for (size_t id : dnf.order) {
    const DnfArray &a = dnf.arrays[id];
    if (a.body)
      triangularReductions(a.body, Range{a.shape, a.index}, a.name,
                           DnfPrinter{dnf, false, displayNames(dnf, a.index, {a.body})}, out);
  }
  return out;
}

std::string storageNotes(const DnfProgram &dnf) {
  std::string out;
  for (size_t id : dnf.order) {
    const DnfArray &a = dnf.arrays[id];
    if (a.storage == Storage::Temp)
      out += fmt::format("stored  {} : {}{} — {}\n", a.name, spell(a.elem), strShape(a.shape), a.why);
    if (a.storage == Storage::Update) {
      WrittenRows rows = writtenRows(a);
      const std::string &in = dnf.arrays[*a.updates].name;
      out += rows.body ? fmt::format("update  {} in place: rows [{}, {}) written, the others kept (no copy)\n", in,
                                     rows.start.str(), rows.end.str())
                       : fmt::format("update  {} in place: nothing changes, nothing is written\n", in);
    }
  }
  if (out.empty())
    out = "nothing is stored between the inputs and the outputs\n";
  out += triangularNotes(dnf);
  out += "everything else is inlined: computed where it is used, never stored\n";
  return out;
}

} // namespace

std::string explain(const SourceFile &source, const TypedProgram &typed, const DnfProgram &dnf, const Kernel &kernel,
                    Target target) {
  std::string out = fmt::format("moac explain {}\n", source.name);
  section(out, "program");
  out += source.text;
  if (!source.text.empty() && source.text.back() != '\n')
    out += "\n";
  section(out, "shapes");
  out += dumpShapes(typed);
  section(out, "ψ-reduction");
  out += "Each output is indexed by a symbolic index and the index is pushed through the expression,\n"
         "one rule per operator, until only ψ-selections of inputs (or of stored values) remain.\n";
  for (const TraceBlock &block : dnf.trace) {
    out += fmt::format("\n-- {}\n", block.title);
    for (const TraceStep &s : block.steps) {
      std::string indent(size_t(2 * s.depth + 2), ' ');
      out += fmt::format("{}[{}] {}\n{}    = {}\n", indent, s.rule, s.before, indent, s.after);
      if (!s.note.empty())
        out += fmt::format("{}    ({})\n", indent, s.note);
    }
    out += fmt::format("  ⇒ {}\n", block.result);
  }
  section(out, "DNF");
  out += dumpDnf(dnf);
  section(out, "storage");
  out += storageNotes(dnf);
  out += printTraffic(trafficModel(dnf, typed));
  // How the schedule maps it onto the target, and why (docs/schedule.md).
  section(out, fmt::format("ONF for {}: coalescing", targetTitle(target)).c_str());
  for (const Decision &d : kernel.decisions)
    out += describeDecision(kernel, d) + "\n";
  out += "γ-difference between adjacent vector lanes of every access (1: coalesced, 0: one address for all):\n";
  for (const Coalescing &c : kernel.coalescing) {
    std::string note = describeLanes(c);
    out += fmt::format("  {}: {} — lane {}: {}{}\n", regionName(kernel, kernel.stages[c.region]),
                       describeAccess(kernel, c), c.lane.name(), describeDifference(c),
                       note.empty() ? "" : " (" + note + ")");
  }
  return out;
}

std::string asciify(const std::string &text) {
  static const std::pair<const char *, const char *> table[] = {
      {"⟩ψ ", "> psi "}, {"⟨", "<"}, {"⟩", ">"}, {"ψ", "psi"}, {"⍉", "tran "}, {"Σ", "sum"},
      {"Π", "prod"},     {"×", "*"}, {"÷", "/"}, {"−", "-"},  {"√", "sqrt "}, {"⇒", "=>"},
      {"ι", "iota "},    {"ρ", "rho "}, {"↑", " take "}, {"↓", " drop "}, {"∘.", "o."}, {"—", "-"},
      {"γ⁻¹", "gamma^-1"}, {"γ", "gamma"}, {"τ", "tau"}, {"·", "*"},
  };
  std::string out = text;
  for (auto [from, to] : table) {
    std::string f = from;
    for (size_t at = out.find(f); at != std::string::npos; at = out.find(f, at + std::strlen(to)))
      out.replace(at, f.size(), to);
  }
  return out;
}

} // namespace moac
