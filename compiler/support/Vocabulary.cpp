#include "ElemType.h"
#include "Target.h"

namespace moac {

const char *spell(ElemType t) {
  switch (t) {
  case ElemType::Int: return "int";
  case ElemType::F32: return "f32";
  case ElemType::F64: return "f64";
  }
  return "?";
}

const char *targetName(Target t) {
  switch (t) {
  case Target::C: return "c";
  case Target::OpenMP: return "openmp";
  case Target::OpenACC: return "openacc";
  case Target::Cuda: return "cuda";
  }
  return "?";
}

} // namespace moac
