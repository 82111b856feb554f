// =~ and !~ in kernel context (codegen/emit_regex.cpp) against the
// runtime's matcher, glibc regexec(REG_EXTENDED): each text is written
// into a string global at run time (so LLVM folds nothing), a getpid()
// fires the programs, and every pattern's result global is compared.
#include <regex.h>

#include "codegen_fixture.h"
#include "regex_oracle.h"

using namespace codegen_test;
using stap::test::glibc_matches;

namespace {

struct Case {
  std::string pattern;
  bool negate;
  size_t result;  // its global
};

// Patterns x texts, `per_probe` patterns to a program.
void compare(const std::vector<std::string>& patterns, const std::vector<std::string>& texts,
             int64_t maxlen, size_t per_probe = 16) {
  Builder t;
  t.m.limits.maxstringlen = maxlen;
  size_t text = t.global("text", Type::string);
  std::vector<Case> cases;
  std::vector<Node*> body;
  for (size_t k = 0; k < patterns.size(); ++k) {
    bool negate = k % 3 == 2;  // some as !~
    cases.push_back({patterns[k], negate, t.global("r" + std::to_string(k), Type::long_)});
    Node* match = t.node(Op::regex_match, Type::long_, {t.get_global(text)}, 0, negate);
    match->s = patterns[k];
    body.push_back(t.set_global(cases.back().result, match));
    if (body.size() == per_probe || k + 1 == patterns.size()) {
      t.probe(t.block(body));
      body.clear();
    }
  }
  Loaded l(t.m);
  uint32_t zero = 0;
  for (const std::string& s : texts) {
    std::vector<char> g = l.globals();
    std::memset(g.data() + t.m.globals[text].offset, 0, size_t(maxlen));
    std::memcpy(g.data() + t.m.globals[text].offset, s.data(), std::min(s.size(), size_t(maxlen - 1)));
    REQUIRE(bpf_map_update_elem(l.fd(STAP_GLOBALS_MAP), &zero, g.data(), 0) == 0);
    fire();
    std::string stored = l.get_string(text);
    for (const Case& c : cases) {
      INFO("'" << stored << "' " << (c.negate ? "!~" : "=~") << " '" << c.pattern << "'");
      CHECK(l.get_long(c.result) == int64_t(glibc_matches(c.pattern, stored) != c.negate));
    }
  }
  CHECK(l.header().errors == 0);
}

const std::vector<std::string> kPatterns = {
    "", "a", "^a", "a$", "^a$", "^$", "ab|ba", "^(ab|ba)$", "a*", "a+b", "^a*$", "a{2}",
    "^a{1,3}$", "(ab){2,3}", "^(a|b)*$", ".", "^.$", "a.c", "[abc]", "[^abc]", "^[^a]*$",
    "[a-c]+", "[]a]", "[a-]", "[[:alpha:]]+", "^[[:digit:]]+$", "[[:space:]]", "[[:punct:]]",
    "[[:upper:][:digit:]]", "\\w+$", "\\W", "\\s", "\\`a", "b\\'", "\\.", "a)", "x^", "a$b",
    "(^a|b$)", "(a|)+", "a|", "^/usr/(s?bin)/", "^sys_(enter|exit)_", "^0x[0-9A-Fa-f]+$",
    "(a|b)*abb", "[\x80-\xff]", "b*$", "^a*b$", "(ab|a)(bc|c)", "o w",
};

const std::vector<std::string> kTexts = {
    "", "a", "b", "ab", "ba", "aab", "abc", "abb", "abababb", "xyz", "a b", " ", "\n", "a\nb",
    "]", "-", ".", "a)", "hello world", "HELLO", "0x1F", "0xg", "\t", "_w_", "\x80", "\xff",
    "/usr/bin/cat", "/usr/sbin/ip", "sys_enter_openat", "sys_exitt", "aaa", "aaaa",
};

}  // namespace

TEST_CASE("regex codegen: kernel matches agree with the runtime's", "[regex][codegen]") {
  compare(kPatterns, kTexts, 128);
}

TEST_CASE("regex codegen: strings of MAXSTRINGLEN - 1 bytes, other MAXSTRINGLENs", "[regex][codegen]") {
  const std::vector<std::string> patterns = {"^a*b$", "b$", "^a*$", "(ab)+$", "^.{99}$", "c", "^$"};
  for (int64_t maxlen : {100, 128, 1024}) {
    INFO("MAXSTRINGLEN " << maxlen);
    std::string full(size_t(maxlen - 2), 'a');
    std::string ab;
    while (ab.size() + 2 < size_t(maxlen)) ab += "ab";
    compare(patterns, {full + "b", full + "c", full + "a", std::string(99, 'x'), ab, ""}, maxlen);
  }
}
