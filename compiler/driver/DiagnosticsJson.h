// `--diagnostics-format=json`: the diagnostics of a command as one JSON array
// on standard error, written when the command ends. Each element is a
// diagnostic with its notes (docs/cli.md):
//   {"file": "k.moa", "line": 3, "column": 5, "severity": "error", "message":
//   "…", "notes": [{…}]}
// file, line and column are null for a diagnostic without a location (a file
// that cannot be read).
#pragma once

#include "Diagnostics.h"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace moac {

class JsonDiagnostics {
public:
  JsonDiagnostics() = default;
  JsonDiagnostics(const JsonDiagnostics &) = delete;
  JsonDiagnostics &operator=(const JsonDiagnostics &) = delete;
  // Writes the array when the command used this collector (enable()), also
  // after an exception.
  ~JsonDiagnostics();

  // The consumer to give a DiagnosticEngine: a note joins the diagnostic before
  // it.
  std::function<void(const DiagRecord &)> enable();
  // The array as text (what the destructor writes).
  std::string render() const;

private:
  bool enabled = false;
  std::vector<std::pair<DiagRecord, std::vector<DiagRecord>>> entries; // each diagnostic and its notes
};

// `--diagnostics-format text|json`, on app and on every subcommand (as
// --color), into `format`.
void addDiagnosticsFormatOption(CLI::App &app, std::string &format);

} // namespace moac
