// Concrete dims and inputs for running a type-checked program in tests: dims drawn until every guard
// holds, and inputs filled exactly as `moac run --seed S` fills them (input k is stream k of
// moart_fill_uniform), so a failure found by a test reproduces on the command line.
#pragma once

#include "NDArray.h"
#include "Typed.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace moac::testgen {

using DimChoice = std::map<std::string, int64_t>; // run-time dim name -> value

// The choice by symbol, as the evaluators take it; fixed dims are left to the program.
DimValues dimValues(const TypedProgram &program, const DimChoice &choice);

// The first guard that fails for these dims, or nullopt when all hold.
std::optional<std::string> failingGuard(const TypedProgram &program, const DimValues &dims);

// Dims in [least, maxDim] (1 and the primes more often) for which every guard holds, from the seed;
// nullopt when 64 draws found none.
std::optional<DimChoice> chooseDimsFor(const TypedProgram &program, uint64_t seed, int maxDim = 5,
                                       const DimChoice &least = {});

// Input k filled with moart_fill_value_f32/_f64/_bf16/_f16(seed, k, offset), in declaration order.
std::vector<NDArray> makeInputs(const TypedProgram &program, const DimValues &dims, uint64_t seed);

} // namespace moac::testgen
