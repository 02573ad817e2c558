// How the driver writes the files a command produces: never onto a file it reads or onto another of its
// outputs, atomically (a temporary file in the same folder renamed over the target, so a reader or an
// interrupted moac never sees half a file), and not at all when the file already holds the same bytes (so a
// build system does not rebuild what depends on an output that did not change).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moac {

// A file a command reads or writes, with what names it on the command line ("-o", "--header", "the input").
// The path "-" is standard input or output.
struct NamedPath {
  std::string what;
  std::string path;
};

// Whether two paths name one file: by file identity (device and inode) when both exist, else by their
// absolute, normalised spelling (the existing folders resolved through symbolic links).
bool sameFile(const std::string &a, const std::string &b);

// The first output that names an input or an earlier output, as a message for a usage error; "-" clashes
// only with another "-" output (two results interleaved on standard output).
std::optional<std::string> outputClash(const std::vector<NamedPath> &inputs, const std::vector<NamedPath> &outputs);

// Writes text to path ("-": standard output) atomically, and only when the file does not already hold it.
// Returns why it failed (for Diag::CannotWrite), or nothing.
std::optional<std::string> writeFileAtomically(const std::string &path, std::string_view text);

// A temporary file name in path's folder for a writer that opens files itself (moart_write_array); short,
// so that an output name as long as the file system allows still fits. Returns why it failed, or nothing.
std::optional<std::string> makeTemporaryBeside(const std::string &path, std::string &temporary);

// Moves a finished temporary file onto path, or removes it when path already holds the same bytes.
// Returns why it failed (the temporary is removed then too), or nothing.
std::optional<std::string> commitFile(const std::string &temporary, const std::string &path);

} // namespace moac
