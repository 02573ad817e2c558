#include "ReduceLines.h"

#include <sstream>
#include <vector>

namespace moac::testgen {

static std::string join(const std::vector<std::string> &lines) {
  std::string out;
  for (const auto &l : lines)
    out += l + "\n";
  return out;
}

std::string reduceLines(const std::string &text, const std::function<bool(const std::string &)> &stillFails) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#')
      lines.push_back(line);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = lines.size(); k-- > 0;) {
      std::vector<std::string> fewer = lines;
      fewer.erase(fewer.begin() + long(k));
      if (stillFails(join(fewer))) {
        lines = std::move(fewer);
        changed = true;
      }
    }
  }
  return join(lines);
}

} // namespace moac::testgen
