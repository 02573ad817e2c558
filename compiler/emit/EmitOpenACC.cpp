// OpenACC: a parallel nest becomes one `acc parallel loop gang vector` over the collapsed nest (so
// adjacent iterations of the innermost index are adjacent vector lanes: that is where the γ-difference
// is measured), serial loops inside are `acc loop seq`, a one-thread region is `acc serial`. A nest whose
// work has vector loops (a fused split pass over stored scores) is `gang` alone, and each vector loop an
// `acc loop vector` with a reduction clause per scalar it reduces into. No atomics
// anywhere: reductions are split into partials and a combine step by the lowering. Arrays are expected
// on the device already (`present`), see docs/abi.md.
#include "Emit.h"

#include <fmt/format.h>

namespace moac {

namespace {
class OpenACCPolicy final : public PragmaPolicy {
public:
  std::string parallelNest(int depth, const std::string &present, bool vectorInside) const override {
    std::string collapse = depth > 1 ? fmt::format(" collapse({})", depth) : "";
    return fmt::format("#pragma acc parallel loop gang{}{} vector_length(128){}", vectorInside ? "" : " vector",
                       collapse, present.empty() ? "" : " present(" + present + ")");
  }
  std::string vectorLoop(const std::vector<std::string> &reductions) const override {
    std::string out = "#pragma acc loop vector";
    for (const std::string &r : reductions)
      out += " reduction(" + r + ")";
    return out;
  }
  std::string serialRegion(const std::string &present) const override {
    return fmt::format("#pragma acc serial{}", present.empty() ? "" : " present(" + present + ")");
  }
  std::string serialLoop() const override { return "#pragma acc loop seq"; }
  std::string indexCheckLoop(const std::string &present, const std::string &flag) const override {
    return fmt::format("#pragma acc parallel loop gang vector vector_length(128) present({}) reduction(|:{})", present,
                       flag);
  }
  bool hoistsDivisions() const override { return true; }
  std::string dataRegion(const std::vector<DataClause> &clauses) const override {
    static const char *const kinds[] = {"copyin", "copy", "copyout", "create"};
    std::string out = "#pragma acc data";
    for (const DataClause &c : clauses)
      out += fmt::format(" {}({})", kinds[c.kind], c.section);
    return out;
  }
};

} // namespace

const PragmaPolicy &openaccPolicy() {
  static constexpr OpenACCPolicy policy;
  return policy;
}

} // namespace moac
