#include "base/source.h"

namespace stap {

FileId SourceManager::add(std::string name, std::string text, FileOrigin origin) {
  auto f = std::make_unique<SourceFile>();
  f->name = std::move(name);
  f->text = std::move(text);
  f->origin = origin;
  f->line_starts.push_back(0);
  for (uint32_t i = 0; i < f->text.size(); ++i)
    if (f->text[i] == '\n') f->line_starts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<FileId>(files_.size() - 1);
}

const std::string& SourceManager::name(FileId id) const {
  static const std::string unknown = "<unknown>";
  return id < files_.size() ? files_[id]->name : unknown;
}

std::string_view SourceManager::intern(std::string_view text) {
  const std::string& kept = *expansion_texts_.emplace(text).first;
  interned_.insert(kept.data());
  return kept;
}

uint32_t SourceManager::add_expansion(std::string_view what, SourceLoc where) {
  if (!interned_.count(what.data())) what = intern(what);
  expansions_.push_back({what, where});
  return static_cast<uint32_t>(expansions_.size());
}

std::string_view SourceManager::line_text(FileId id, uint32_t line) const {
  if (id >= files_.size() || line == 0) return {};
  const SourceFile& f = *files_[id];
  if (line > f.line_starts.size()) return {};
  uint32_t begin = f.line_starts[line - 1];
  uint32_t end = line < f.line_starts.size() ? f.line_starts[line] - 1
                                             : static_cast<uint32_t>(f.text.size());
  if (begin > end) return {};
  return std::string_view(f.text).substr(begin, end - begin);
}

}  // namespace stap
