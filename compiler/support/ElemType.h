// The element types of the language's arrays and scalars: shared vocabulary of every stage (the front
// end spells them, shapes and ψ-reduction carry them, lowering, the emitters and the interpreter act on them).
#pragma once

namespace moac {

enum class ElemType { Int, F32, F64 };

// The spelling in a .moa program: `int`, `f32`, `f64`.
const char *spell(ElemType t);

} // namespace moac
