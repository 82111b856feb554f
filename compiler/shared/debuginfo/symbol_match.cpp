#include "debuginfo/symbol_match.h"

#include <fnmatch.h>

namespace stap::debuginfo {

bool has_wildcard(const std::string& pattern) {
  return pattern.find_first_of("*?[") != std::string::npos;
}

std::string without_parameters(const std::string& demangled) {
  int angle = 0;
  for (size_t i = 0; i < demangled.size(); ++i) {
    char c = demangled[i];
    if (c == '<') ++angle;
    else if (c == '>' && angle > 0) --angle;
    else if (c == '(' && angle == 0) {
      // "operator()(int)": the first "()" is the name.
      if (demangled.compare(i, 2, "()") == 0 && i >= 8 &&
          demangled.compare(i - 8, 8, "operator") == 0) {
        ++i;
        continue;
      }
      return demangled.substr(0, i);
    }
  }
  return demangled;
}

std::string unqualified(const std::string& qualified) {
  int angle = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < qualified.size(); ++i) {
    char c = qualified[i];
    if (c == '<') ++angle;
    else if (c == '>' && angle > 0) --angle;
    else if (c == ':' && qualified[i + 1] == ':' && angle == 0) start = i + 2;
  }
  return qualified.substr(start);
}

static bool glob(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

bool symbol_matches(const ElfSymbol& sym, const std::string& pattern) {
  if (glob(pattern, sym.name)) return true;
  if (sym.demangled.empty() || pattern.starts_with("_Z")) return false;
  std::string qualified = without_parameters(sym.demangled);
  if (glob(pattern, qualified)) return true;
  return pattern.find("::") == std::string::npos && glob(pattern, unqualified(qualified));
}

std::vector<const ElfSymbol*> match_symbols(const ElfFile& file, const std::string& pattern) {
  std::vector<const ElfSymbol*> out;
  for (const auto& sym : file.functions())
    if (symbol_matches(sym, pattern)) out.push_back(&sym);
  return out;
}

}  // namespace stap::debuginfo
