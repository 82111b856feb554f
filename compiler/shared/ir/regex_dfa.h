// POSIX extended regular expressions compiled to a DFA, for `=~`/`!~` in
// kernel context, where no regex library runs.  The semantics are those
// of the runtime's matcher (glibc regcomp(REG_EXTENDED) + regexec in the C
// locale, loader/interp_builtins.cpp): an unanchored search, `^`/`$` and
// \` \' anchored at the ends of the string (no REG_NEWLINE), `.` and
// `[^...]` match newline, \w \W \s \S.  Back-references and the word
// assertions (\b \B \< \>) have no DFA and are refused.
//
// The DFA answers "does some substring match": the scan restarts the
// pattern at every position (the start state is in every state's set) and
// a state holding the match is a sink that accepts.  Columns are byte
// classes (bytes no pattern position tells apart share one), so the table
// is states x classes, not states x 256.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stap::ir {

// Past these a pattern is refused (pass 3 says so): the NFA bounds the
// work of building, the table the size of .rodata and of each lookup.
constexpr size_t kRegexMaxNfaNodes = 20000;
constexpr size_t kRegexMaxTableEntries = 32768;  // states x classes

struct RegexDfa {
  std::array<uint8_t, 256> byte_class{};  // byte -> column
  uint32_t classes = 0;
  std::vector<uint16_t> next;       // [state * classes + class]; state 0 starts
  std::vector<uint8_t> accept_end;  // per state: matched if the text ends here
  size_t groups = 0;                // parenthesised subexpressions (re_nsub)

  uint32_t states() const { return uint32_t(accept_end.size()); }
  // The walk the BPF code does: bytes up to the first NUL.
  bool matches(std::string_view text) const;

  // The table as codegen puts it in .rodata: byte_class (256 bytes), then
  // accept_end, then `next` as little-endian u16, each zero-padded to a
  // power of two, so BPF code bounds an index with a mask the verifier
  // follows (a compare LLVM may move away from the access).
  std::string table_bytes() const;
  static constexpr uint32_t accept_offset() { return 256; }
  uint32_t accept_span() const;  // entries, a power of two >= states()
  uint32_t next_span() const;    // entries, a power of two >= next.size()
  uint32_t next_offset() const { return accept_offset() + accept_span(); }
};

enum class RegexStatus { ok, invalid, unsupported };

struct RegexBuild {
  RegexStatus status = RegexStatus::ok;
  // invalid: regerror's text; unsupported: why ("uses a back-reference").
  std::string reason;
  RegexDfa dfa;
};

RegexBuild build_regex_dfa(const std::string& pattern);

}  // namespace stap::ir
