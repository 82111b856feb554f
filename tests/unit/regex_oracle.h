// The user-context matcher's answer, as the oracle the regex tests check
// the DFA and the BPF code against.
#pragma once

#include <regex.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace stap::test {

inline bool glibc_matches(const std::string& pattern, const std::string& text) {
  regex_t re;
  REQUIRE(regcomp(&re, pattern.c_str(), REG_EXTENDED) == 0);
  // As loader/interp_builtins.cpp asks: every group (glibc then checks
  // its match more closely than with none).
  std::vector<regmatch_t> groups(re.re_nsub + 1);
  bool hit = regexec(&re, text.c_str(), groups.size(), groups.data(), 0) == 0;
  regfree(&re);
  return hit;
}

}  // namespace stap::test
