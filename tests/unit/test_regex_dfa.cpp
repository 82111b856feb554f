// The kernel-context regex DFA (compiler/ir/regex_dfa) against the
// runtime's matcher, glibc regexec(REG_EXTENDED): a table of patterns and
// strings, then random patterns over a small alphabet.
#include <regex.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "ir/regex_dfa.h"
#include "regex_oracle.h"

using stap::ir::build_regex_dfa;
using stap::test::glibc_matches;
using stap::ir::RegexStatus;

namespace {

const std::vector<std::string> kTexts = {
    "", "a", "b", "ab", "ba", "aab", "abc", "abcabc", "xyz", "a b", " ", "\n", "a\nb",
    "--", "]", "[", "\\", ".", "*", "{", "}", "(", ")", "|", "^", "$", "a{", "a)",
    "hello world", "HELLO", "foo123bar", "0x1F", "\t\r", "_w_", "\x7f", "\x80", "\xff\xfe",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "/usr/bin/cat", "sys_enter_openat",
    "abababababababababababababababababababababababababab",
};

}  // namespace

TEST_CASE("regex DFA: agrees with glibc on a table of patterns", "[regex]") {
  const std::vector<std::string> patterns = {
      "", "a", "^a", "a$", "^a$", "^$", "^", "$", "ab|ba", "^(ab|ba)$", "a*", "a+", "a?b",
      "^a*$", "^a+b$", "a{2}", "a{2,}", "a{,2}b", "^a{1,3}$", "(ab){2,3}", "^(a|b)*$",
      ".", "^.$", "a.c", "[abc]", "[^abc]", "^[^a]*$", "[a-c]+", "[]a]", "[^]a]", "[a-]",
      "[--/]", "[]-a]", "[[:alpha:]]+", "^[[:digit:]]+$", "[[:space:]]", "[[:upper:][:digit:]]",
      "[[:punct:]]", "[[:xdigit:]]{2}", "[[:cntrl:]]", "[[:print:]]", "[[:graph:]]",
      "[[:blank:]]", "[[:lower:]]", "[[:alnum:]_]+", "[[.a.]]", "[[=b=]]", "[a-[.c.]]",
      "\\w+", "\\W", "\\s", "\\S+", "\\`a", "b\\'", "\\.", "\\*", "\\{", "\\\\", "a)",
      "x^", "a$b", "(^a|b$)", "(a|)+", "()", "(|a)b", "a|", "|b", "a**", "a+?", "a{1}{2}",
      "a{0}", "(a){0}b", "a{,}", "^(a*)*$", "(a*|b)*c", "^.*$", "o w", "^/usr/(s?bin)/",
      "enter_(open|close)", "^sys_(enter|exit)_", "[0-9]+[a-z]", "^0x[0-9A-Fa-f]+$",
      "(ab|a)(bc|c)", "a\nb", ".\n.", "[\x80-\xff]", "\xff", "[^\x01-\x7f]", "^(a|ab)(c|bcd)$",
      "(a|b)*abb", "((a|b)(a|b))*$", "^(([a-c])+)$", "b*$", "$^", "^$^$", "(^)*a", "a($)",
      "[a-a]", "\\]", "}", "a}", "]",
      // glibc's newline context: only for patterns without groups
      ".^b", "a$.", "a$\\s", "\n^b", "a$\nb", "(a)$\\s", "(.)^b", "^b", "a$",
  };
  for (const std::string& p : patterns) {
    auto built = build_regex_dfa(p);
    INFO("pattern '" << p << "': " << built.reason);
    REQUIRE(built.status == RegexStatus::ok);
    for (const std::string& t : kTexts) {
      INFO("text '" << t << "'");
      CHECK(built.dfa.matches(t) == glibc_matches(p, t));
    }
  }
}

TEST_CASE("regex DFA: long strings and NUL ends the text", "[regex]") {
  auto built = build_regex_dfa("^a*b$");
  REQUIRE(built.status == RegexStatus::ok);
  std::string long_a(4095, 'a');
  CHECK_FALSE(built.dfa.matches(long_a));
  CHECK(built.dfa.matches(long_a + "b"));
  CHECK(built.dfa.matches(std::string("ab\0c", 4)));
}

TEST_CASE("regex DFA: refusals say why", "[regex]") {
  auto invalid = build_regex_dfa("(a");
  CHECK(invalid.status == RegexStatus::invalid);
  CHECK(invalid.reason == "Unmatched ( or \\(");
  CHECK(build_regex_dfa("*a").status == RegexStatus::invalid);
  CHECK(build_regex_dfa("[[:foo:]]").status == RegexStatus::invalid);

  auto backref = build_regex_dfa("(a)\\1");
  CHECK(backref.status == RegexStatus::unsupported);
  CHECK(backref.reason == "uses a back-reference");
  CHECK(build_regex_dfa("\\bfoo").reason == "uses the word assertion '\\b'");
  CHECK(build_regex_dfa("foo\\>").status == RegexStatus::unsupported);

  auto big = build_regex_dfa("(a|b)*a(a|b){14}");  // 2^15 states
  CHECK(big.status == RegexStatus::unsupported);
  CHECK(big.reason.find("too large for kernel context") != std::string::npos);
  CHECK(build_regex_dfa("((a{100}){100}){100}").status == RegexStatus::unsupported);
}

TEST_CASE("regex DFA: groups and table layout", "[regex]") {
  auto built = build_regex_dfa("(a)(b(c))|d");
  REQUIRE(built.status == RegexStatus::ok);
  CHECK(built.dfa.groups == 3);
  std::string bytes = built.dfa.table_bytes();
  CHECK(bytes.size() == built.dfa.next_offset() + 2 * built.dfa.next_span());
  CHECK(built.dfa.next_span() >= built.dfa.next.size());
  CHECK((built.dfa.next_span() & (built.dfa.next_span() - 1)) == 0);
  CHECK(built.dfa.accept_span() >= built.dfa.states());
  CHECK(uint8_t(bytes[built.dfa.accept_offset()]) == built.dfa.accept_end[0]);
  CHECK(uint8_t(bytes['d']) == built.dfa.byte_class['d']);
  CHECK(built.dfa.byte_class['a'] != built.dfa.byte_class['b']);
  CHECK(built.dfa.byte_class['x'] == built.dfa.byte_class['y']);
}

// Random patterns from a grammar that reaches every construct the parser
// reads; glibc decides which are valid, and both matchers must agree on
// every text over the same alphabet.  Two families, because glibc itself
// is inconsistent with `^`/`$` inside repeated groups (it misses matches
// of `((^a{,2}){2}(-)? )?\s*`, which matches the empty string, and lets
// `($c|\s){2}` match "a c"): patterns without groups, anchors anywhere;
// patterns with groups, anchors only at the ends.
namespace {

std::string random_pattern(std::mt19937& rng, int depth, bool groups) {
  static const std::vector<std::string> atoms = {
      "a", "b", "c", ".", "[ab]", "[^a]", "[a-c]", "\\w", "\\s", "[[:alpha:]]", "-", " ", "^", "$",
  };
  static const std::vector<std::string> ops = {"", "", "", "*", "+", "?", "{2}", "{1,2}", "{,2}", "{0}"};
  auto pick = [&](size_t n) { return size_t(rng() % n); };
  std::string out;
  size_t pieces = 1 + pick(3);
  for (size_t i = 0; i < pieces; ++i) {
    std::string atom = groups && depth < 2 && pick(4) == 0
                           ? "(" + random_pattern(rng, depth + 1, groups) + ")"
                           : atoms[pick(atoms.size() - (groups ? 2 : 0))];
    out += atom + ops[pick(ops.size())];
  }
  if (depth < 2 && pick(4) == 0) out += "|" + random_pattern(rng, depth + 1, groups);
  if (groups && depth == 0 && pick(2)) out = "^" + out;
  if (groups && depth == 0 && pick(2)) out += "$";
  return out;
}

std::string random_text(std::mt19937& rng) {
  static const char alphabet[] = "abc -\n";
  std::string t;
  size_t n = rng() % 8;
  for (size_t i = 0; i < n; ++i) t += alphabet[rng() % (sizeof alphabet - 1)];
  return t;
}

int fuzz(bool groups, uint32_t seed) {
  std::mt19937 rng(seed);
  int compared = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string p = random_pattern(rng, 0, groups);
    auto built = build_regex_dfa(p);
    if (built.status == RegexStatus::invalid) continue;
    INFO("pattern '" << p << "': " << built.reason);
    REQUIRE(built.status == RegexStatus::ok);
    for (int k = 0; k < 40; ++k) {
      std::string t = random_text(rng);
      INFO("text '" << t << "'");
      REQUIRE(built.dfa.matches(t) == glibc_matches(p, t));
      ++compared;
    }
  }
  return compared;
}

}  // namespace

TEST_CASE("regex DFA: random patterns agree with glibc", "[regex]") {
  CHECK(fuzz(false, 4) > 50000);
  CHECK(fuzz(true, 5) > 50000);
}
