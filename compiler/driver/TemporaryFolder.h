// The scratch folder of `moac check` (kernel, harness, inputs, outputs: 1 GB at n = 1M), removed when the
// check ends however it ends: by the destructor on every return, and by a signal handler when SIGINT,
// SIGTERM, SIGHUP or SIGQUIT stops moac. The commands the check runs go through runShell, which (unlike
// std::system) leaves SIGINT to that handler while it waits.
#pragma once

#include <memory>
#include <string>

namespace moac {

class TemporaryFolder {
public:
  // Makes TMPDIR/PREFIX-XXXXXX (/tmp without TMPDIR); nothing when it cannot.
  static std::unique_ptr<TemporaryFolder> make(const std::string &prefix);
  TemporaryFolder(const TemporaryFolder &) = delete;
  TemporaryFolder &operator=(const TemporaryFolder &) = delete;
  ~TemporaryFolder();
  const std::string &path() const { return path_; }

private:
  explicit TemporaryFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Runs `/bin/sh -c COMMAND` and waits for it: its exit status, or 128 + the signal that killed it.
int runShell(const std::string &command);
// `s` as one word of a /bin/sh command: in single quotes, each ' spelt '\''.
std::string shellQuote(const std::string &s);

} // namespace moac
