#include "CFormat.h"

#include <clang/Basic/Version.h>
#include <clang/Format/Format.h>
#include <clang/Tooling/Core/Replacement.h>
#include <llvm/Support/Error.h>

namespace moac {

std::string formatC(const std::string &code, const std::string &fileName) {
  clang::format::FormatStyle style = clang::format::getLLVMStyle(clang::format::FormatStyle::LK_Cpp);
  style.ColumnLimit = 100;
  // Comments are left as written: reflowing a long line of the recorded .moa source joined it with the
  // next source line (and could move text across the seals of CommentText.h).
  style.ReflowComments = false;
  clang::tooling::Replacements replacements =
      clang::format::reformat(style, code, {clang::tooling::Range(0, unsigned(code.size()))}, fileName);
  llvm::Expected<std::string> formatted = clang::tooling::applyAllReplacements(code, replacements);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    return code;
  }
  return *formatted;
}

std::string clangVersion() { return clang::getClangFullVersion(); }

} // namespace moac
