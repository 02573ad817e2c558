// A line-level reducer for failing programs (delta debugging at the granularity of declarations,
// bindings, functions and outputs): the starting point for minimising a bug found by the property
// test or the differential tester.
#pragma once

#include <functional>
#include <string>

namespace moac::testgen {

// Drops comment and blank lines, then every line whose removal keeps `stillFails` true, until no
// single line can go. `stillFails` decides on a whole program text.
std::string reduceLines(const std::string &text, const std::function<bool(const std::string &)> &stillFails);

} // namespace moac::testgen
