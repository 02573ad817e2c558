#include "ElemType.h"
#include "Target.h"

#include <string_view>

namespace moac {

const char *spell(ElemType t) {
  switch (t) {
  case ElemType::Int: return "int";
  case ElemType::F32: return "f32";
  case ElemType::F64: return "f64";
  case ElemType::BF16: return "bf16";
  case ElemType::F16: return "f16";
  case ElemType::I32: return "i32";
  }
  return "?";
}

std::optional<ElemType> parseElemType(std::string_view text) {
  for (ElemType t : {ElemType::F32, ElemType::F64, ElemType::BF16, ElemType::F16, ElemType::I32})
    if (text == spell(t))
      return t;
  if (text == "i64" || text == "int") // int is int64: i64 is its storage spelling
    return ElemType::Int;
  return std::nullopt;
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

// The enumerators are consecutive from 0 and targetName names each, so the list follows the enum and
// its names without a third copy to keep in step.
std::vector<Target> allTargets() {
  std::vector<Target> targets;
  for (int i = 0; std::string_view(targetName(Target(i))) != "?"; ++i)
    targets.push_back(Target(i));
  return targets;
}

} // namespace moac
