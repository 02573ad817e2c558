#include "Source.h"

#include <algorithm>

namespace moac {

std::string_view SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts.size())
    return {};
  uint32_t begin = lineStarts[line - 1];
  uint32_t end = line < lineStarts.size() ? lineStarts[line] : uint32_t(text.size());
  std::string_view view(text.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r'))
    view.remove_suffix(1);
  return view;
}

uint32_t SourceManager::add(std::string name, std::string text) {
  auto file = std::make_unique<SourceFile>();
  file->name = std::move(name);
  file->text = std::move(text);
  file->lineStarts.push_back(0);
  for (uint32_t i = 0; i < file->text.size(); ++i)
    if (file->text[i] == '\n' && i + 1 < file->text.size())
      file->lineStarts.push_back(i + 1);
  files.push_back(std::move(file));
  return uint32_t(files.size());
}

SourceLoc SourceManager::locate(uint32_t id, uint32_t offset) const {
  const SourceFile &f = file(id);
  auto it = std::upper_bound(f.lineStarts.begin(), f.lineStarts.end(), offset);
  uint32_t line = uint32_t(it - f.lineStarts.begin());
  return SourceLoc{id, line, offset - f.lineStarts[line - 1] + 1, offset};
}

} // namespace moac
