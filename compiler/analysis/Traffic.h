// The storage and DRAM-traffic model (MOA-PRIMER "Materialisation and the Storage Theorem").
// Minimum: every input element read once and every output element written once — for decode,
// (dk + n·dk + n·dv + dv) × 4 B. Materialised intermediates of the DNF are counted separately, and the
// "standard" figure evaluates the program as written, storing every intermediate (Kᵀ, the scores, every
// softmax temporary) and reading it back, so the saving of ψ-reduction is visible. An update of an inout
// counts the elements it writes (an append: one row), and the inout is read over the updated extent.
#pragma once

#include "Dnf.h"
#include "Typed.h"

#include <string>
#include <vector>

namespace moac {

struct TrafficTerm {
  std::string what;
  SymExpr elements;
  int64_t elementBytes;
  SymExpr bytes() const { return elements * SymExpr(elementBytes); }
};

struct TrafficModel {
  std::vector<TrafficTerm> inputs;   // read once
  std::vector<TrafficTerm> outputs;  // written once
  std::vector<TrafficTerm> updates;  // inouts updated in place: only the elements written
  std::vector<TrafficTerm> temps;    // DNF intermediates, written once (each read back at least once)
  std::vector<TrafficTerm> standard; // every intermediate of the program as written, written and read
  SymExpr minimumBytes() const;
  SymExpr tempBytes() const;
  SymExpr standardBytes() const; // inputs + outputs + 2 × every intermediate
};

int64_t elementBytes(ElemType t);
TrafficModel trafficModel(const DnfProgram &dnf, const TypedProgram &typed);
// The report printed by explain and check: symbolic formulas, and numbers when dims are given.
std::string printTraffic(const TrafficModel &model, const std::map<Symbol, int64_t> *dims = nullptr);

} // namespace moac
