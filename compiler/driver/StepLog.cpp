#include "StepLog.h"

#include <cstdio>

namespace moac {

namespace {
// Back to the line's start and erase it (ECMA-48 CR, EL).
constexpr const char *eraseLine = "\r\033[K";
} // namespace

StepLog::~StepLog() {
  if (lineShown) {
    std::fputs(eraseLine, stderr);
    std::fflush(stderr);
  }
}

void StepLog::begin(const std::string &kind, const std::string &detail) {
  current = kind;
  if (progress) {
    // The kind and the start of what it does, cut so that the line does not wrap on a narrow terminal.
    std::string line = "moac check: " + kind + ": " + detail;
    if (line.size() > 76)
      line = line.substr(0, 73) + "...";
    std::fflush(stdout);
    std::fprintf(stderr, "%s%s", eraseLine, line.c_str());
    std::fflush(stderr);
    lineShown = true;
  }
  if (verbose) {
    std::fflush(stdout); // the report so far first, where both streams go to one file
    std::fprintf(stderr, "moac check: %s: %s\n", kind.c_str(), detail.c_str());
    std::fflush(stderr);
  }
  started = std::chrono::steady_clock::now();
}

void StepLog::end() {
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (verbose)
    std::fprintf(stderr, "moac check: %s: done in %.3f s\n", current.c_str(), seconds);
  if (lineShown) { // what the check prints next starts on a clean line
    std::fputs(eraseLine, stderr);
    std::fflush(stderr);
    lineShown = false;
  }
  for (auto &[kind, total] : totals)
    if (kind == current) {
      total += seconds;
      return;
    }
  totals.push_back({current, seconds});
}

void StepLog::printSummary() const {
  if (!summary)
    return;
  double all = 0;
  for (const auto &[kind, seconds] : totals) {
    std::fprintf(stderr, "moac check: time: %-9s %8.3f s\n", kind.c_str(), seconds);
    all += seconds;
  }
  std::fprintf(stderr, "moac check: time: %-9s %8.3f s\n", "total", all);
}

} // namespace moac
