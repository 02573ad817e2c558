// `moac check -v` and `--time`: the steps of a check (compile, build, run,
// reference, compare), each printed to standard error as it starts and with its
// wall time when it ends (-v), and the time of each kind of step summed at the
// end (--time). Without -v, when standard error is a terminal, the step running
// now is one progress line that the next step overwrites and the end erases.
// Times are measured, never asserted: tests check the lines only.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace moac {

class StepLog {
public:
  StepLog(bool verbose, bool summary, bool progress)
      : verbose(verbose), summary(summary), progress(progress && !verbose) {}
  StepLog(const StepLog &) = delete;
  StepLog &operator=(const StepLog &) = delete;
  ~StepLog(); // erases the progress line

  // Starts step `kind` ("compile", "build", …); `detail` says what it does (the
  // build command).
  void begin(const std::string &kind, const std::string &detail);
  // Ends the step begun last.
  void end();
  // --time: one line per kind of step, in the order they first ran, and the
  // total.
  void printSummary() const;

private:
  bool verbose, summary, progress;
  bool lineShown = false; // a progress line is on the terminal
  std::string current;
  std::chrono::steady_clock::time_point started;
  std::vector<std::pair<std::string, double>> totals; // seconds per kind
};

} // namespace moac
