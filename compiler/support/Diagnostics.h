// The one diagnostics engine. Kinds live in Diagnostics.def; messages render as
//   file:line:col: error: message
//   <the source line>
//          ^~~~
// with colour only when asked for (or on a TTY without NO_COLOR).
#pragma once

#include "Source.h"

#include <fmt/args.h>
#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace moac {

enum class Severity { Note, Warning, Error };

enum class Diag {
#define DIAG(Name, Sev, Text) Name,
#include "Diagnostics.def"
#undef DIAG
};

struct DiagInfo {
  Severity severity;
  const char *format;
};
const DiagInfo &diagInfo(Diag kind);

enum class ColorMode { Auto, Always, Never };

// One diagnostic as data, for a renderer other than the text one (the driver's
// --diagnostics-format=json). An unlocated diagnostic has an empty file and line 0.
struct DiagRecord {
  Severity severity;
  std::string file;
  uint32_t line = 0, column = 0;
  std::string message;
};

// How a command's diagnostics are shown: coloured text, or handed to a consumer instead.
struct DiagnosticOptions {
  ColorMode color = ColorMode::Auto;
  std::function<void(const DiagRecord &)> consumer;
};

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &sources, std::FILE *out = stderr);

  void setColor(ColorMode mode);
  void configure(const DiagnosticOptions &options) {
    setColor(options.color);
    consumer = options.consumer;
  }
  // Renders into `sink` instead of a FILE (used by tests).
  void captureInto(std::string *sink) { capture = sink; }

  // A diagnostic whose caret underlines `length` bytes from loc.
  template <typename... Args>
  void reportSpan(Diag kind, SourceLoc loc, uint32_t length, const Args &...args) {
    emit(kind, loc, length, fmt::vformat(diagInfo(kind).format, fmt::make_format_args(args...)));
  }
  // Arguments known only at run time (a shape rule's RuleError).
  void reportArgs(Diag kind, SourceLoc loc, uint32_t length, const std::vector<std::string> &args) {
    fmt::dynamic_format_arg_store<fmt::format_context> store;
    for (const auto &a : args)
      store.push_back(a);
    emit(kind, loc, length, fmt::vformat(diagInfo(kind).format, store));
  }
  template <typename... Args> void report(Diag kind, SourceLoc loc, const Args &...args) {
    reportSpan(kind, loc, 1, args...);
  }

  unsigned errorCount() const { return errors; }
  bool hasErrors() const { return errors != 0; }
  bool tooMany() const { return errors >= errorLimit; }

  static constexpr unsigned errorLimit = 20;

private:
  void emit(Diag kind, SourceLoc loc, uint32_t length, const std::string &message);
  void write(const std::string &text);

  const SourceManager &sources;
  std::FILE *out;
  std::string *capture = nullptr;
  std::function<void(const DiagRecord &)> consumer;
  bool color = false;
  unsigned errors = 0;
  bool suppressed = false;
};

} // namespace moac
