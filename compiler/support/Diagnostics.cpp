#include "Diagnostics.h"
#include "Utf8.h"

#include <cstdlib>
#include <unistd.h>

namespace moac {

static const DiagInfo diagTable[] = {
#define DIAG(Name, Sev, Text) {Severity::Sev, Text},
#include "Diagnostics.def"
#undef DIAG
};

const DiagInfo &diagInfo(Diag kind) { return diagTable[size_t(kind)]; }

DiagnosticEngine::DiagnosticEngine(const SourceManager &sources, std::FILE *out)
    : sources(sources), out(out) {
  setColor(ColorMode::Auto);
}

void DiagnosticEngine::setColor(ColorMode mode) {
  switch (mode) {
  case ColorMode::Always:
    color = true;
    break;
  case ColorMode::Never:
    color = false;
    break;
  case ColorMode::Auto: {
    const char *noColor = std::getenv("NO_COLOR");
    color = isatty(fileno(out)) && !(noColor && *noColor);
    break;
  }
  }
}

void DiagnosticEngine::write(const std::string &text) {
  if (capture)
    *capture += text;
  else
    std::fputs(text.c_str(), out);
}

// Very long lines (a 1 MB line is a test case) are shown as a window around the column.
static constexpr uint32_t maxShownLine = 160;

void DiagnosticEngine::emit(Diag kind, SourceLoc loc, uint32_t length, const std::string &message) {
  const DiagInfo &info = diagInfo(kind);
  if (info.severity == Severity::Error) {
    if (errors >= errorLimit) {
      if (!suppressed) {
        suppressed = true;
        if (consumer)
          consumer(DiagRecord{Severity::Error, "", 0, 0, diagInfo(Diag::TooManyErrors).format});
        else
          write(fmt::format("{}error: {}{}\n", color ? "\033[1;31m" : "",
                            diagInfo(Diag::TooManyErrors).format, color ? "\033[0m" : ""));
      }
      return;
    }
    ++errors;
  } else if (suppressed) {
    return;
  }
  if (consumer) {
    consumer(DiagRecord{info.severity, loc.valid() ? sources.file(loc.file).name : "", loc.valid() ? loc.line : 0,
                        loc.valid() ? loc.col : 0, message});
    return;
  }
  const char *label = info.severity == Severity::Error     ? "error"
                      : info.severity == Severity::Warning ? "warning"
                                                           : "note";
  const char *labelColor = info.severity == Severity::Error     ? "\033[1;31m"
                           : info.severity == Severity::Warning ? "\033[1;35m"
                                                                : "\033[1;36m";
  std::string text;
  if (loc.valid()) {
    const SourceFile &file = sources.file(loc.file);
    text += fmt::format("{}{}:{}:{}: {}", color ? "\033[1m" : "", file.name, loc.line, loc.col,
                        color ? "\033[0m" : "");
  }
  text += fmt::format("{}{}:{} {}{}{}\n", color ? labelColor : "", label, color ? "\033[0m" : "",
                      color ? "\033[1m" : "", message, color ? "\033[0m" : "");
  if (loc.valid()) {
    std::string_view line = sources.file(loc.file).lineText(loc.line);
    // the caret stays on the line shown: a location after trailing carriage returns (which the line
    // shown drops) is put at the line's end
    uint32_t col = std::min<uint32_t>(loc.col - 1, uint32_t(line.size()));
    uint32_t begin = 0;
    std::string prefix, suffix;
    if (line.size() > maxShownLine) {
      begin = col > maxShownLine / 2 ? col - maxShownLine / 2 : 0;
      if (begin > 0)
        prefix = "...";
      if (line.size() - begin > maxShownLine)
        suffix = "...";
      line = line.substr(begin, maxShownLine);
    }
    // A UTF-8 character takes one column on screen; a control character or a byte that starts no
    // valid character is shown as '?', so that the diagnostic itself is valid UTF-8.
    std::string shown = prefix;
    std::string caret(prefix.size(), ' ');
    for (uint32_t i = 0; i < line.size();) {
      unsigned char c = (unsigned char)line[i];
      uint32_t len = decodeUtf8(line, i).length;
      bool printable = c == '\t' || (c >= 0x20 && c != 0x7f);
      if (len == 0 || !printable) {
        shown += '?';
        len = 1;
      } else {
        shown += line.substr(i, len);
      }
      if (begin + i < col)
        caret += c == '\t' ? '\t' : ' ';
      i += len;
    }
    std::string marks = "^";
    if (length > 1)
      marks += std::string(std::min<uint32_t>(length, maxShownLine) - 1, '~');
    text += fmt::format("  {}{}\n  {}{}{}{}\n", shown, suffix, caret, color ? "\033[1;32m" : "",
                        marks, color ? "\033[0m" : "");
  }
  write(text);
}

} // namespace moac
