#include "Outputs.h"

#include <fmt/format.h>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace moac {

namespace sfs = llvm::sys::fs;
namespace spath = llvm::sys::path;

namespace {

std::string folderOf(const std::string &path) {
  llvm::StringRef parent = spath::parent_path(path);
  return parent.empty() ? "." : parent.str();
}

// The absolute spelling with "." and ".." removed and the folder, where it exists, resolved through links.
std::string normalised(const std::string &path) {
  llvm::SmallString<256> full(path);
  sfs::make_absolute(full);
  spath::remove_dots(full, /*remove_dot_dot=*/true);
  llvm::SmallString<256> folder;
  if (sfs::real_path(spath::parent_path(full), folder))
    return full.str().str();
  spath::append(folder, spath::filename(full));
  return folder.str().str();
}

// Why a write failed; "file name too long" says which limit was passed, since the name is the user's.
std::string failure(const std::string &path, std::error_code ec) {
  if (ec != std::errc::filename_too_long)
    return ec.message();
  std::string name = spath::filename(path).str();
  long nameMax = pathconf(folderOf(path).c_str(), _PC_NAME_MAX);
  if (nameMax > 0 && name.size() > size_t(nameMax))
    return fmt::format("the file name has {} bytes, and this file system allows at most {}", name.size(), nameMax);
  return fmt::format("the path has {} bytes, more than the system allows ({})", path.size(), PATH_MAX - 1);
}

bool holds(const std::string &path, llvm::StringRef text) {
  if (!sfs::is_regular_file(path))
    return false;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  return buffer && (*buffer)->getBuffer() == text;
}

// An output that is a symbolic link is written through it, as a compiler's -o does.
std::string target(const std::string &path) {
  llvm::SmallString<256> real;
  if (sfs::is_symlink_file(path) && !sfs::real_path(path, real))
    return real.str().str();
  return path;
}

} // namespace

bool sameFile(const std::string &a, const std::string &b) {
  if (a == "-" || b == "-")
    return a == b;
  bool result = false;
  if (!sfs::equivalent(a, b, result))
    return result;
  return normalised(a) == normalised(b);
}

std::optional<std::string> outputClash(const std::vector<NamedPath> &inputs, const std::vector<NamedPath> &outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath &out = outputs[i];
    for (const NamedPath &in : inputs)
      if (in.path != "-" && out.path != "-" && sameFile(in.path, out.path))
        return fmt::format("{} '{}' is {} '{}': refusing to overwrite it", out.what, out.path, in.what, in.path);
    for (size_t j = 0; j < i; ++j)
      if (sameFile(outputs[j].path, out.path))
        return out.path == "-" ? fmt::format("{} and {} both write to standard output", outputs[j].what, out.what)
                               : fmt::format("{} '{}' and {} '{}' are the same file: one would overwrite the other",
                                             outputs[j].what, outputs[j].path, out.what, out.path);
  }
  return std::nullopt;
}

std::optional<std::string> makeTemporaryBeside(const std::string &path, std::string &temporary) {
  llvm::SmallString<256> name;
  int fd = -1;
  if (std::error_code ec = sfs::createUniqueFile(folderOf(path) + "/.moac-%%%%%%.tmp", fd, name))
    return failure(path, ec);
  ::close(fd);
  temporary = name.str().str();
  return std::nullopt;
}

std::optional<std::string> commitFile(const std::string &temporary, const std::string &path) {
  std::string to = target(path);
  auto finish = [&](std::error_code ec) -> std::optional<std::string> {
    sfs::remove(temporary);
    if (ec)
      return failure(path, ec);
    return std::nullopt;
  };
  if (sfs::is_regular_file(to)) {
    auto fresh = llvm::MemoryBuffer::getFile(temporary, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!fresh)
      return finish(fresh.getError());
    if (holds(to, (*fresh)->getBuffer()))
      return finish({});
    // Keep the permissions the user gave the file (the temporary has 0666 less the umask).
    if (auto perms = sfs::getPermissions(to))
      sfs::setPermissions(temporary, *perms);
  }
  if (std::error_code ec = sfs::rename(temporary, to))
    return finish(ec);
  return std::nullopt;
}

std::optional<std::string> writeFileAtomically(const std::string &path, std::string_view text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0)
      return std::string(std::strerror(errno));
    return std::nullopt;
  }
  std::string to = target(path);
  if (holds(to, llvm::StringRef(text.data(), text.size())))
    return std::nullopt;
  std::string temporary;
  if (auto problem = makeTemporaryBeside(to, temporary))
    return problem;
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(temporary, ec);
    if (!ec) {
      out << llvm::StringRef(text.data(), text.size());
      out.close();
      ec = out.error();
    }
    if (ec) {
      sfs::remove(temporary);
      return failure(path, ec);
    }
  }
  return commitFile(temporary, to);
}

} // namespace moac
