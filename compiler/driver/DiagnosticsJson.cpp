#include "DiagnosticsJson.h"

#include "Usage.h"

#include <CLI/CLI.hpp>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdio>

namespace moac {

namespace {

const char *severityName(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

llvm::json::Object toJson(const DiagRecord &d) {
  bool located = !d.file.empty();
  return llvm::json::Object{
      {"file", located ? llvm::json::Value(d.file) : llvm::json::Value(nullptr)},
      {"line", located ? llvm::json::Value(int64_t(d.line)) : llvm::json::Value(nullptr)},
      {"column", located ? llvm::json::Value(int64_t(d.column)) : llvm::json::Value(nullptr)},
      {"severity", severityName(d.severity)},
      {"message", d.message},
  };
}

} // namespace

std::function<void(const DiagRecord &)> JsonDiagnostics::enable() {
  enabled = true;
  return [this](const DiagRecord &d) {
    if (d.severity == Severity::Note && !entries.empty())
      entries.back().second.push_back(d);
    else
      entries.push_back({d, {}});
  };
}

std::string JsonDiagnostics::render() const {
  llvm::json::Array all;
  for (const auto &[diag, notes] : entries) {
    llvm::json::Object object = toJson(diag);
    llvm::json::Array noteArray;
    for (const DiagRecord &note : notes)
      noteArray.push_back(toJson(note));
    object["notes"] = std::move(noteArray);
    all.push_back(std::move(object));
  }
  std::string text;
  llvm::raw_string_ostream out(text);
  out << llvm::formatv("{0:2}", llvm::json::Value(std::move(all)));
  out.flush();
  return text + "\n";
}

JsonDiagnostics::~JsonDiagnostics() {
  if (enabled)
    std::fputs(render().c_str(), stderr);
}

void addDiagnosticsFormatOption(CLI::App &app, std::string &format) {
  const char *help = "how diagnostics are written: text (the default), or json "
                     "(one array on standard error)";
  app.add_option("--diagnostics-format", format, help)->check(oneOf({"text", "json"}));
  for (CLI::App *cmd : app.get_subcommands({}))
    cmd->add_option("--diagnostics-format", format, help)->check(oneOf({"text", "json"}));
}

} // namespace moac
