#include "ExplainHtml.h"

#include "ExplainPageAssets.h"
#include "Traffic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

namespace moac {

std::string escapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

namespace {

std::string baseName(const std::string &path) { return path.substr(path.find_last_of('/') + 1); }

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// ` data-loc="13:8 13:15"`: the valid locations, each once, in the order given; "" when there is none.
std::string locAttr(const std::vector<SourceLoc> &locs) {
  std::vector<std::string> parts;
  for (SourceLoc loc : locs) {
    std::string part = fmt::format("{}:{}", loc.line, loc.col);
    if (loc.valid() && std::find(parts.begin(), parts.end(), part) == parts.end())
      parts.push_back(part);
  }
  return parts.empty() ? "" : fmt::format(" data-loc=\"{}\"", fmt::join(parts, " "));
}
std::string locAttr(SourceLoc loc) { return locAttr(std::vector<SourceLoc>{loc}); }

std::string pane(const char *id, const std::string &title, const std::string &body) {
  return fmt::format("<section class=\"pane\" id=\"{}\"><h2>{}</h2><div class=\"pane-body\">\n{}</div></section>\n",
                     id, escapeHtml(title), body);
}

// The source, one element per line, each token a span at its location; then the shapes.
std::string sourcePane(const SourceFile &source, const std::vector<Token> &tokens, const TypedProgram &typed) {
  std::map<uint32_t, const Token *> at; // byte offset → the token starting there
  for (const Token &t : tokens)
    if (t.kind != Tok::Newline && t.kind != Tok::End && t.length > 0)
      at[t.loc.offset] = &t;
  std::string out;
  const std::string &text = source.text;
  for (size_t line = 0; line < source.lineStarts.size(); ++line) {
    size_t begin = source.lineStarts[line];
    size_t end = line + 1 < source.lineStarts.size() ? source.lineStarts[line + 1] - 1 : text.size();
    if (begin >= text.size())
      break;
    out += fmt::format("<div class=\"src-line\" data-line=\"{}\">", line + 1);
    for (size_t pos = begin; pos < end;) {
      auto next = at.lower_bound(uint32_t(pos));
      size_t tokenStart = next == at.end() ? end : std::min<size_t>(next->first, end);
      out += escapeHtml(std::string_view(text).substr(pos, tokenStart - pos));
      if (tokenStart == end)
        break;
      const Token &t = *next->second;
      size_t tokenEnd = std::min<size_t>(tokenStart + t.length, end);
      out += fmt::format("<span class=\"tok\"{}>{}</span>", locAttr(t.loc),
                         escapeHtml(std::string_view(text).substr(tokenStart, tokenEnd - tokenStart)));
      pos = tokenEnd;
    }
    out += "</div>\n";
  }
  out += "<details><summary>shapes</summary><pre class=\"mono\">" + escapeHtml(dumpShapes(typed)) +
         "</pre></details>\n";
  return out;
}

// Why a rule holds, for the steps whose record carries no note of its own (a rule this table does not
// know, such as one added later, shows its note only).
const char *ruleJustification(const std::string &rule) {
  static const std::pair<const char *, const char *> table[] = {
      {"definition", "the array is defined by its value at a symbolic index"},
      {"inline", "not stored: its definition is substituted at this index"},
      {"elementwise", "ψ distributes over an elementwise operator: each operand at the same index"},
      {"scalar extension", "the scalar is the same at every index: only the array operand is selected"},
      {"reduce", "a reduction over the leading axis is a sum (max, …) over a new bound index"},
      {"outer product", "the index splits: its first part selects the left operand, the rest the right"},
      {"comprehension", "the comprehension's indices are bound to the leading parts of the index"},
      {"rho", "the shape is known at compile time"},
      {"iota", "element i of ι n is i"},
      {"transpose", "the transpose reverses the index"},
      {"permute", "the permutation reorders the index"},
  };
  for (auto [name, why] : table)
    if (rule == name)
      return why;
  return "";
}

std::string derivationPane(const DnfProgram &dnf) {
  std::string out = "<p class=\"why\">Each output is indexed by a symbolic index that is pushed through the "
                    "expression, one rule per operator, until only ψ-selections of inputs (or of stored values) "
                    "remain.</p>\n";
  for (const TraceBlock &block : dnf.trace) {
    SourceLoc loc = block.steps.empty() ? SourceLoc{} : block.steps.front().loc;
    out += fmt::format("<details class=\"block\" open><summary{}>{}</summary>\n", locAttr(loc), escapeHtml(block.title));
    for (const TraceStep &s : block.steps) {
      std::string why = s.note.empty() ? ruleJustification(s.rule) : s.note;
      out += fmt::format("<details class=\"step\" open style=\"margin-left:{:.1f}em\"{}><summary><span class=\"rule\">{}"
                         "</span><span class=\"step-text\">{}</span></summary><div class=\"step-text\">  = {}</div>{}"
                         "</details>\n",
                         1.2 * s.depth, locAttr(s.loc), escapeHtml(s.rule), escapeHtml(s.before), escapeHtml(s.after),
                         why.empty() ? "" : "<div class=\"why\">" + escapeHtml(why) + "</div>");
    }
    out += "<div class=\"result step-text\">⇒ " + escapeHtml(block.result) + "</div></details>\n";
  }
  return out;
}

// The ψ-selections and reductions of a DNF body, each once, outermost first.
void collectTerms(const DExprPtr &e, std::vector<const DExprPtr *> &terms) {
  if ((e->kind == DKind::Read || e->kind == DKind::Reduce) && e->loc.valid())
    terms.push_back(&e);
  for (const DExprPtr &a : e->args)
    collectTerms(a, terms);
}

std::string dnfPane(const DnfProgram &dnf) {
  DnfPrinter printer{dnf, false, {}};
  std::string out = "<h3>inputs</h3>\n";
  for (const DnfArray &a : dnf.arrays)
    if (a.storage == Storage::Input)
      out += fmt::format("<div class=\"def\"{}>{} {} : {}{}</div>\n", locAttr(a.loc), a.inout ? "inout" : "in",
                         escapeHtml(a.name), spell(a.elem), escapeHtml(strShape(a.shape)));
  out += "<h3>definitions: only ψ-selections of inputs and stored values remain</h3>\n";
  for (size_t id : dnf.order) {
    const DnfArray &a = dnf.arrays[id];
    const char *kind = a.storage == Storage::Output ? "out" : a.storage == Storage::Update ? "update" : "stored";
    out += fmt::format("<div class=\"storage\">{} {} : {}{}{}</div>\n", kind, escapeHtml(a.name), spell(a.elem),
                       escapeHtml(strShape(a.shape)), a.why.empty() ? "" : " — " + escapeHtml(a.why));
    out += fmt::format("<div class=\"def\"{}>{}</div>\n<ul class=\"terms\">\n", locAttr(a.loc),
                       escapeHtml(printer.definition(id)));
    std::vector<const DExprPtr *> terms;
    collectTerms(a.body, terms);
    std::set<std::string> shown;
    for (const DExprPtr *t : terms) {
      std::string text = printer.expr(*t);
      std::string attr = locAttr((*t)->loc);
      if (shown.insert(attr + text).second)
        out += fmt::format("<li class=\"term\"{}>{}</li>\n", attr, escapeHtml(text));
    }
    out += "</ul>\n";
  }
  out += "<p class=\"why\">everything else is inlined: computed where it is used, never stored</p>\n";
  return out;
}

// The .moa location of what a buffer holds (a split reduction's partials: that of its result).
SourceLoc bufferLoc(const Kernel &k, const DnfProgram &dnf, size_t b) {
  const Buffer *buf = &k.buffers[b];
  if (buf->aliasOf)
    buf = &k.buffers[*buf->aliasOf];
  return buf->origin == Buffer::Array && buf->array < dnf.arrays.size() ? dnf.arrays[buf->array].loc : SourceLoc{};
}

// The loop IR's own dump, each line linked: a buffer to its array, a stage to its region, a statement to
// the location the dump prints after it ("   @13:8"). The coalescing and schedule lines are left to the
// tables built from the records.
std::string loopLines(const Kernel &k, const DnfProgram &dnf) {
  std::string out;
  size_t buffer = 0, stage = 0;
  const std::string dump = dumpLoopIR(k, dnf);
  for (std::string_view line : splitLines(dump)) {
    if (line.starts_with("coalescing (") || line.starts_with("schedule: "))
      break;
    std::string attr;
    if (line.starts_with("buffer ") && buffer < k.buffers.size()) {
      attr = locAttr(bufferLoc(k, dnf, buffer++));
    } else if (line.starts_with("stage ") && stage < k.stages.size()) {
      attr = locAttr(k.stages[stage++].loc);
    } else if (size_t at = line.rfind("   @"); at != std::string_view::npos) {
      unsigned lineNo = 0, col = 0;
      if (std::sscanf(std::string(line.substr(at + 4)).c_str(), "%u:%u", &lineNo, &col) == 2) {
        attr = fmt::format(" data-loc=\"{}:{}\"", lineNo, col);
        line = line.substr(0, at);
      }
    }
    out += fmt::format("<div class=\"onf-line\"{}>{}</div>\n", attr, escapeHtml(line));
  }
  return out;
}

const char *laneClass(const Coalescing &c) {
  if (c.difference && *c.difference == SymExpr(1))
    return "coalesced";
  if (c.difference && *c.difference == SymExpr(0))
    return "broadcast";
  return "strided";
}

std::string onfPane(const Kernel &k, const DnfProgram &dnf) {
  std::string out = loopLines(k, dnf);
  if (!k.coalescing.empty()) {
    out += "<h3>γ of every access, and its difference between adjacent vector lanes</h3>\n<table><tr><th>stage</th>"
           "<th>access at γ</th><th>lane</th><th>γ-difference</th><th></th></tr>\n";
    for (const Coalescing &c : k.coalescing) {
      const Region &r = k.stages[c.region];
      out += fmt::format("<tr class=\"{}\"{}><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                         "<td class=\"num\">{}</td><td class=\"kind\">{}</td></tr>\n",
                         laneClass(c), locAttr(r.loc), escapeHtml(regionName(k, r)), escapeHtml(describeAccess(k, c)),
                         escapeHtml(c.lane.name()), escapeHtml(describeDifference(c)), laneClass(c));
    }
    out += "</table>\n";
  }
  if (!k.decisions.empty()) {
    out += "<h3>schedule decisions</h3>\n";
    for (const Decision &d : k.decisions) {
      SourceLoc loc = d.kind == Decision::TermsAlongRows   ? k.stages[d.region].loc
                      : d.kind == Decision::InterleavedSum ? d.loc
                                                           : bufferLoc(k, dnf, d.buffer);
      out += fmt::format("<p{}>{}</p>\n", locAttr(loc), escapeHtml(describeDecision(k, d)));
    }
  }
  return out;
}

std::string trafficRows(const char *what, const std::vector<TrafficTerm> &terms, const char *times = "") {
  std::string out;
  for (const TrafficTerm &t : terms)
    out += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}{} B</td></tr>\n",
                       what, escapeHtml(t.what), escapeHtml(t.elements.str()), times, escapeHtml(t.bytes().str()));
  return out;
}

std::string trafficPane(const DnfProgram &dnf, const TypedProgram &typed) {
  TrafficModel m = trafficModel(dnf, typed);
  std::string out = "<table><tr><th></th><th>array</th><th>elements</th><th>bytes</th></tr>\n";
  out += trafficRows("read", m.inputs) + trafficRows("write", m.outputs) + trafficRows("update", m.updates);
  out += trafficRows("stored", m.temps);
  out += "</table>\n<table>\n";
  out += fmt::format("<tr><th>minimum</th><td class=\"num\">{} B</td><td>inputs read once, outputs written once"
                     "</td></tr>\n",
                     escapeHtml(m.minimumBytes().str()));
  out += fmt::format("<tr><th>stored intermediates</th><td class=\"num\">{} B</td><td>written once, read back"
                     "</td></tr>\n",
                     escapeHtml(m.tempBytes().str()));
  out += fmt::format("<tr><th>standard</th><td class=\"num\">{} B</td><td>the program as written: every "
                     "intermediate stored and read back</td></tr>\n</table>\n",
                     escapeHtml(m.standardBytes().str()));
  out += "<h3>the standard formula's intermediates (each written and read)</h3>\n<table>\n" +
         trafficRows("", m.standard, "2 × ") + "</table>\n";
  return out;
}

std::string codePane(const Kernel &k, const std::string &code, Target target) {
  std::vector<std::vector<SourceLoc>> locs = codeLineLocations(k, code, target);
  std::vector<std::string_view> lines = splitLines(code);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i)
    out += fmt::format("<div class=\"cl\" data-cline=\"{}\"{}>{}</div>\n", i + 1, locAttr(locs[i]),
                       escapeHtml(lines[i]));
  return out;
}


// The located statements and the loops of the kernel, in the order the emitter prints them. `nest`: the
// number of perfectly nested parallel loops at the top that the printer does not print as loops (CUDA maps
// them onto the grid).
void emittedOrder(const std::vector<LStmt> &body, std::vector<SourceLoc> &statements, std::vector<SourceLoc> &loops,
                  int nest = 0) {
  for (const LStmt &s : body) {
    switch (s.kind) {
    case LStmt::Loop:
      if (nest > 0 && body.size() == 1 && s.loopKind == LoopKind::Parallel) {
        emittedOrder(s.body, statements, loops, nest - 1);
        break;
      }
      loops.push_back(s.loc);
      emittedOrder(s.body, statements, loops);
      break;
    case LStmt::If:
      emittedOrder(s.body, statements, loops);
      emittedOrder(s.orElse, statements, loops);
      break;
    default:
      if (s.loc.valid())
        statements.push_back(s.loc);
    }
  }
}

std::string_view trimmed(std::string_view s) {
  size_t start = s.find_first_not_of(' ');
  return start == std::string_view::npos ? std::string_view{} : s.substr(start);
}

// The line ends a statement, a block opening or closing, or a comment: what precedes a statement.
bool endsUnit(std::string_view line) {
  std::string_view t = trimmed(line);
  return t.empty() || t.front() == '#' || t.ends_with(";") || t.ends_with("{") || t.ends_with("}") ||
         t.ends_with("*/");
}

// How many statement comments `/* FILE:LINE */` the line holds (clang-format may join a short block onto
// one line: `{ mean[0] = …; /* reduce-rows.moa:12 */ }`).
size_t lineComments(std::string_view line, const std::string &prefix) {
  size_t found = 0;
  for (size_t at = line.find(prefix); at != std::string_view::npos; at = line.find(prefix, at + 1)) {
    size_t digits = at + prefix.size(), end = digits;
    while (end < line.size() && line[end] >= '0' && line[end] <= '9')
      ++end;
    if (end > digits && line.substr(end).starts_with(" */"))
      ++found;
  }
  return found;
}

} // namespace

// A kernel header's line naming a split pass printed again at a wider pack: `NAME_stageN_packP(`.
static bool isWiderPack(std::string_view line) {
  for (size_t at = line.find("_pack"); at != std::string_view::npos; at = line.find("_pack", at + 1)) {
    size_t end = at + 5;
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end])))
      ++end;
    if (end > at + 5 && end < line.size() && line[end] == '(')
      return true;
  }
  return false;
}

std::vector<std::vector<SourceLoc>> codeLineLocations(const Kernel &kernel, const std::string &code, Target target) {
  const bool cuda = target == Target::Cuda;
  std::vector<SourceLoc> statements, loops;
  for (const Region &r : kernel.stages)
    emittedOrder(r.body, statements, loops, cuda ? r.parallelDepth : 0);
  std::vector<std::string_view> lines = splitLines(code);
  std::vector<std::vector<SourceLoc>> result(lines.size());
  const std::string prefix = "/* " + baseName(kernel.fileName) + ":";
  // C: the kernel is the file's last function; CUDA: its stages are the __global__ functions, in order,
  // before the host code, each around its grid-stride loop (`moa_t`, not a loop of the IR), and a lane loop that
  // loads 16 bytes at a time runs over groups of four iterations (`moa_g`, not a loop of the IR either); a
  // combine's second and third kernels (`NAME_stageN_wide`, a block a result, and `NAME_stageN_thin`, a
  // thread a result) and a split pass's kernel of a wider pack (`NAME_stageN_pack8`) repeat the first's loops
  // and are skipped, as is the launcher's loop that chooses the wider pack (over `moa_wider`)
  const std::string signature = cuda ? "__global__ " : "int " + kernel.name + "(";
  size_t first = 0;
  while (first < lines.size() && !lines[first].starts_with(signature))
    ++first;
  size_t statement = 0, loop = 0;
  bool repeated = false; // inside a `_wide` or `_thin` kernel
  for (size_t i = first + 1; i < lines.size(); ++i) {
    if (cuda && lines[i].starts_with("__global__ ")) {
      repeated = false;
      for (size_t j = i; j < lines.size() && !repeated; ++j) { // its header, up to the `{`
        repeated = lines[j].find("_wide(") != std::string_view::npos || lines[j].find("_thin(") != std::string_view::npos ||
                   isWiderPack(lines[j]);
        if (trimmed(lines[j]).ends_with("{"))
          break;
      }
    }
    if (repeated) {
      repeated = lines[i] != "}"; // the kernel's closing brace
      continue;
    }
    if (trimmed(lines[i]).starts_with("for (") && !trimmed(lines[i]).starts_with("for (int64_t moa_") &&
        lines[i].find("moa_wider") == std::string_view::npos) {
      if (loop == loops.size())
        throw std::logic_error("explain --html: the C has more loops than the kernel");
      for (size_t j = i; j < lines.size(); ++j) { // a header clang-format wrapped ends at its `{`
        result[j].push_back(loops[loop]);
        if (trimmed(lines[j]).ends_with("{"))
          break;
      }
      ++loop;
    }
    for (size_t n = lineComments(lines[i], prefix); n > 0; --n) {
      if (statement == statements.size())
        throw std::logic_error("explain --html: the C has more statement comments than the kernel statements");
      size_t start = trimmed(lines[i]).starts_with("/*") ? i - 1 : i; // a comment moved onto a line of its own
      while (start > first + 1 && !endsUnit(lines[start - 1]))
        --start;
      for (size_t j = start; j <= i; ++j)
        result[j].push_back(statements[statement]);
      ++statement;
    }
  }
  if (first == lines.size() || statement != statements.size() || loop != loops.size())
    throw std::logic_error(fmt::format("explain --html: the C of kernel {} does not match its loop IR ({} of {} "
                                       "statements, {} of {} loops found)",
                                       kernel.name, statement, statements.size(), loop, loops.size()));
  return result;
}

std::string explainHtml(const ExplainPageInputs &in) {
  std::string name = baseName(in.source.name);
  std::string out = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                "<title>moac explain {}</title>\n<style>\n{}</style>\n</head>\n<body>\n",
                                escapeHtml(name), explainPageCss);
  out += fmt::format("<header><h1>moac explain {} — target {}</h1><p>Hover over a part of the program, or click a "
                     "line, to see what came from it: derivation steps, DNF terms, loop-IR statements and lines of "
                     "C. Clicking any of those points back.</p></header>\n<main>\n",
                     escapeHtml(name), targetName(in.target));
  out += pane("source", name, sourcePane(in.source, in.tokens, in.typed));
  out += pane("derivation", "ψ-reduction: the derivation, rule by rule", derivationPane(in.dnf));
  out += pane("dnf", "DNF: the denotational normal form", dnfPane(in.dnf));
  out += pane("onf", fmt::format("ONF for {}: loops, layouts, γ", targetName(in.target)), onfPane(in.kernel, in.dnf));
  out += pane("code", fmt::format("generated C ({})", targetName(in.target)), codePane(in.kernel, in.code, in.target));
  out += pane("traffic", "traffic", trafficPane(in.dnf, in.typed));
  out += fmt::format("</main>\n<pre id=\"selftest\"></pre>\n<script>\n{}</script>\n</body>\n</html>\n",
                     explainPageJs);
  return out;
}

} // namespace moac
