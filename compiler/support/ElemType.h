// The element types of the language's arrays and scalars: shared vocabulary of every stage (the front
// end spells them, shapes and ψ-reduction carry them, lowering, the emitters and the interpreter act on them).
//
// BF16, F16 and I32 are storage formats only (docs/language.md §1): an array declared with one holds 16- or
// 32-bit values, every load widens (bf16, f16 to f32, i32 to int, which is int64) and every store narrows
// (to nearest-even; an i32 store of a value outside int32 is an error in `moac run`), so no value of those
// types ever takes part in arithmetic. Expressions are Int, F32 or F64 (computeType); only the arrays that
// a kernel reads or writes (in, inout, out) have a narrow storage type. `i64` is Int's storage spelling.
#pragma once

#include <optional>
#include <string_view>

namespace moac {

enum class ElemType { Int, F32, F64, BF16, F16, I32 };

// The spelling in a .moa program: `int`, `f32`, `f64`, `bf16`, `f16`, `i32`.
const char *spell(ElemType t);
// The element type spelt `text` in an array declaration (f32, f64, bf16, f16, i32, and i64 or int for Int);
// none for anything else.
std::optional<ElemType> parseElemType(std::string_view text);

// bf16 and f16: 16-bit storage, f32 arithmetic.
inline bool isHalf(ElemType t) { return t == ElemType::BF16 || t == ElemType::F16; }
// Integer storage or arithmetic: int (int64) and i32.
inline bool isInteger(ElemType t) { return t == ElemType::Int || t == ElemType::I32; }
// A storage format narrower than the type it computes in: bf16, f16, i32.
inline bool isNarrow(ElemType t) { return isHalf(t) || t == ElemType::I32; }
// The type a value read from storage of type t computes in: f32 for the half types, int for i32, else t.
inline ElemType computeType(ElemType t) {
  return isHalf(t) ? ElemType::F32 : t == ElemType::I32 ? ElemType::Int : t;
}
// Bytes per element in memory (the kernels' and the runtime's storage).
inline int elemBytes(ElemType t) { return isHalf(t) ? 2 : t == ElemType::F32 || t == ElemType::I32 ? 4 : 8; }

} // namespace moac
