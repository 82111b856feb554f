// Source files and locations shared by every phase.
//
// A SourceLoc is three small integers; the text lives once in the
// SourceManager, which every diagnostic consults to print the source line.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_set>
#include <string>
#include <string_view>
#include <vector>

namespace stap {

using FileId = uint32_t;
constexpr FileId kNoFile = UINT32_MAX;

struct SourceLoc {
  FileId file = kNoFile;
  uint32_t line = 0;    // 1-based; 0 means "no location"
  uint32_t column = 0;  // 1-based, in bytes
  // Non-zero when the text came from a macro expansion or an argument
  // substitution: an id in SourceManager's expansion table, whose chain
  // leads back to the user's script.
  uint32_t expansion = 0;
  bool valid() const { return file != kNoFile && line != 0; }
  bool operator==(const SourceLoc&) const = default;
};

// Where a file came from decides how errors inside it are explained.
enum class FileOrigin { user_script, tapset, macro_library, command_line };

struct SourceFile {
  std::string name;  // "<input>" for -e, the path otherwise
  std::string text;
  FileOrigin origin = FileOrigin::user_script;
  std::vector<uint32_t> line_starts;  // byte offset of each line
  // For a library file: the first place in the program that needed one of
  // its names, so errors inside it can say how the script got there.
  SourceLoc needed_at;
};

class SourceManager {
 public:
  FileId add(std::string name, std::string text, FileOrigin origin);
  const SourceFile& file(FileId id) const { return *files_.at(id); }
  const std::string& name(FileId id) const;
  void set_needed_at(FileId id, SourceLoc at) { files_.at(id)->needed_at = at; }
  SourceLoc needed_at(FileId id) const {
    return id < files_.size() ? files_[id]->needed_at : SourceLoc{};
  }
  // The text of one line, without its newline; empty when out of range.
  std::string_view line_text(FileId id, uint32_t line) const;
  size_t size() const { return files_.size(); }

  // Records "<what> at <where>" (e.g. "in expansion of macro '@foo'"),
  // nested inside where.expansion; returns its id (never 0).  Every use
  // of a macro is one, so the texts, which repeat, are kept once each:
  // `what` is copied unless it is a view that intern() returned.
  struct Expansion {
    std::string_view what;
    SourceLoc where;
  };
  uint32_t add_expansion(std::string_view what, SourceLoc where);
  std::string_view intern(std::string_view text);
  const Expansion& expansion(uint32_t id) const { return expansions_.at(id - 1); }

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
  std::deque<Expansion> expansions_;  // a million for a large macro stress: no copying as it grows
  std::unordered_set<std::string> expansion_texts_;  // node-based: views stay valid
  std::unordered_set<const char*> interned_;         // their data()
};

}  // namespace stap
