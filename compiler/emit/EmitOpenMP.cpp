// OpenMP (CPU): every parallel nest is `omp parallel for collapse(d)` with a static schedule, so the
// iterations and the arithmetic are exactly those of the sequential kernel; vector loops run in order.
#include "Emit.h"

#include <fmt/format.h>

namespace moac {

namespace {
class OpenMPPolicy final : public PragmaPolicy {
public:
  const char *extraIncludes() const override { return ""; }
  std::string parallelNest(int depth, const std::string &, bool) const override {
    return depth > 1 ? fmt::format("#pragma omp parallel for collapse({}) schedule(static)", depth)
                     : std::string("#pragma omp parallel for schedule(static)");
  }
  std::string serialRegion(const std::string &) const override { return ""; }
  std::string indexCheckLoop(const std::string &, const std::string &flag) const override {
    return fmt::format("#pragma omp parallel for schedule(static) reduction(|:{})", flag);
  }
};
} // namespace

const PragmaPolicy &openmpPolicy() {
  static constexpr OpenMPPolicy policy;
  return policy;
}

} // namespace moac
