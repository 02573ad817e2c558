// The element types of the language's arrays and scalars: shared vocabulary of every stage (the front
// end spells them, shapes and ψ-reduction carry them, lowering, the emitters and the interpreter act on them).
//
// BF16 and F16 are storage formats only (docs/language.md §1): an array declared with one holds 16-bit
// values, every load widens to f32 and every store rounds to nearest-even, so no value of those types
// ever takes part in arithmetic. Expressions are Int, F32 or F64 (computeType); only the arrays that a
// kernel reads or writes (in, inout, out) have a half-precision storage type.
#pragma once

#include <optional>
#include <string_view>

namespace moac {

enum class ElemType { Int, F32, F64, BF16, F16 };

// The spelling in a .moa program: `int`, `f32`, `f64`, `bf16`, `f16`.
const char *spell(ElemType t);
// The element type spelt `text` in an array declaration (f32, f64, bf16, f16); none for anything else.
std::optional<ElemType> parseElemType(std::string_view text);

// bf16 and f16: 16-bit storage, f32 arithmetic.
inline bool isHalf(ElemType t) { return t == ElemType::BF16 || t == ElemType::F16; }
// The type a value read from storage of type t computes in: f32 for the half types, else t itself.
inline ElemType computeType(ElemType t) { return isHalf(t) ? ElemType::F32 : t; }
// Bytes per element in memory (the kernels' and the runtime's storage).
inline int elemBytes(ElemType t) { return isHalf(t) ? 2 : t == ElemType::F32 ? 4 : 8; }

} // namespace moac
