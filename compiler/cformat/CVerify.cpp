#include "CVerify.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <fmt/format.h>

#include <regex>
#include <sstream>

namespace moac {

namespace {

// Where the in-memory files live; stripped again from the diagnostics' file names.
constexpr const char *verifyDir = "/moac-verify/";

// Records every warning and error with its presumed location; notes only elaborate on those.
class Collector : public clang::DiagnosticConsumer {
public:
  std::vector<CDiagnostic> diags;

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Warning)
      return;
    CDiagnostic d;
    d.severity = level == clang::DiagnosticsEngine::Warning ? "warning"
                 : level == clang::DiagnosticsEngine::Error ? "error"
                                                            : "fatal error";
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    d.message = std::string(text.str());
    if (info.getLocation().isValid() && info.hasSourceManager()) {
      clang::PresumedLoc loc = info.getSourceManager().getPresumedLoc(info.getLocation());
      if (loc.isValid()) {
        d.file = loc.getFilename();
        if (d.file.rfind(verifyDir, 0) == 0)
          d.file = d.file.substr(std::string(verifyDir).size());
        d.line = loc.getLine();
        d.col = loc.getColumn();
      }
    }
    diags.push_back(std::move(d));
  }
};

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

} // namespace

std::vector<CDiagnostic> verifyC(const VerifyInput &input) {
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  overlay->pushOverlay(memory);
  std::string main = verifyDir + input.fileName;
  memory->addFile(main, 0, llvm::MemoryBuffer::getMemBufferCopy(input.source, main));
  for (const auto &[name, text] : input.siblings)
    memory->addFile(verifyDir + name, 0, llvm::MemoryBuffer::getMemBufferCopy(text, verifyDir + name));
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);

  // -fno-caret-diagnostics: the collector keeps the diagnostics, and Clang then prints no "N warnings
  // generated" summary of its own.
  std::vector<std::string> args{"clang",          "-fsyntax-only", "-std=c99", "-Wall", "-Wextra",
                                "-fno-caret-diagnostics", "-resource-dir", MOAC_CLANG_RESOURCE_DIR};
  if (input.target == Target::OpenMP)
    args.push_back("-fopenmp"); // Clang checks the OpenMP pragmas themselves
  if (input.target == Target::OpenACC)
    args.push_back("-Wno-unknown-pragmas"); // Clang 14 does not know OpenACC
  for (const std::string &dir : input.includeDirs)
    args.push_back("-I" + dir);
  // -x c: the kernel is C whatever the user named the output (`-o kernel`, `-o /dev/null`).
  args.insert(args.end(), {"-x", "c", main});

  Collector collector;
  clang::tooling::ToolInvocation invocation(args, std::make_unique<clang::SyntaxOnlyAction>(), files.get());
  invocation.setDiagnosticConsumer(&collector);
  bool ok = invocation.run();
  if (!ok && collector.diags.empty())
    collector.diags.push_back({"", 0, 0, "error", "clang could not run on the generated file"});
  return collector.diags;
}

std::optional<MoaLine> moaLineOf(const std::string &generated, unsigned line) {
  // Built per call (only a failed verification gets here): a static regex is mutable state.
  const std::regex comment(R"(/\* ([^ */]+\.moa):([0-9]+) \*/)");
  std::vector<std::string> lines = splitLines(generated);
  auto at = [&](size_t i) -> std::optional<MoaLine> {
    std::smatch m;
    if (std::regex_search(lines[i], m, comment))
      return MoaLine{m[1].str(), unsigned(std::stoul(m[2].str()))};
    return std::nullopt;
  };
  if (line == 0 || line > lines.size())
    return std::nullopt;
  for (size_t i = line - 1; i < lines.size(); ++i) {
    if (auto found = at(i))
      return found;
    std::string_view text = lines[i];
    while (!text.empty() && (text.back() == ' ' || text.back() == '\\'))
      text.remove_suffix(1);
    while (!text.empty() && text.front() == ' ')
      text.remove_prefix(1);
    auto startsWith = [&](std::string_view word) { return text.substr(0, word.size()) == word; };
    bool controls = startsWith("for ") || startsWith("if ") || startsWith("while ") || startsWith("} else");
    if (!text.empty() && (text.back() == ';' || text.back() == '}' || (text.back() == '{' && !controls)))
      return std::nullopt; // a statement, or a function or block opening, without a location
  }
  return std::nullopt;
}

std::string verifyReport(const std::vector<CDiagnostic> &diags, const VerifyInput &input, const SourceFile *moa) {
  std::string out;
  for (const CDiagnostic &d : diags) {
    // The text of the file the diagnostic is in: the kernel or one of its in-memory siblings.
    const std::string *text = d.file == input.fileName ? &input.source : nullptr;
    for (const auto &[name, sibling] : input.siblings)
      if (d.file == name)
        text = &sibling;
    std::optional<MoaLine> origin = text && d.line ? moaLineOf(*text, d.line) : std::nullopt;
    if (origin) {
      std::string path = origin->file;
      std::string_view moaText;
      if (moa) {
        std::string base = moa->name.substr(moa->name.find_last_of('/') + 1);
        if (base == origin->file) {
          path = moa->name;
          moaText = moa->lineText(origin->line);
        }
      }
      out += fmt::format("{}:{}: the C generated from this line does not pass clang -fsyntax-only\n", path,
                         origin->line);
      if (!moaText.empty())
        out += fmt::format("  {}\n", moaText);
    }
    if (d.line == 0) {
      out += fmt::format("{}: {}\n", d.severity, d.message);
      continue;
    }
    out += fmt::format("{}:{}:{}: {}: {}\n", d.file, d.line, d.col, d.severity, d.message);
    std::vector<std::string> lines = text ? splitLines(*text) : std::vector<std::string>{};
    if (d.line <= lines.size())
      out += fmt::format("  {}\n  {}^\n", lines[d.line - 1], std::string(d.col > 0 ? d.col - 1 : 0, ' '));
  }
  return out;
}

} // namespace moac
