// KeyAliases (loader/key_aliases.h): keys with one identity are one group,
// the first seen stands for it, and writes and deletes collapse it.
#include <catch2/catch.hpp>

#include "loader/interp/key_aliases.h"

using stap::KeyAliases;

namespace {
KeyAliases::Packed key(char c) { return KeyAliases::Packed(8, c); }
}  // namespace

TEST_CASE("key aliases: grouped by identity, first seen first", "[key_aliases]") {
  KeyAliases a;
  CHECK(!a.built());
  a.build({{key('a'), "f"}, {key('b'), "g"}, {key('c'), "f"}, {key('d'), "h"}});
  CHECK(a.built());
  REQUIRE(a.group_of(key('c')));
  CHECK(*a.group_of(key('c')) == std::vector<KeyAliases::Packed>{key('a'), key('c')});
  CHECK(a.group_of(key('b')) == nullptr);  // alone: no aliases
  CHECK(a.group_of(key('z')) == nullptr);  // unknown
  CHECK(a.firsts() == std::vector<KeyAliases::Packed>{key('a'), key('b'), key('d')});
}

TEST_CASE("key aliases: a write keeps one key, a delete none", "[key_aliases]") {
  KeyAliases a;
  a.build({{key('a'), "f"}, {key('b'), "f"}, {key('c'), "g"}, {key('d'), "g"}});
  a.collapse(key('b'), true);
  CHECK(a.group_of(key('a')) == nullptr);
  CHECK(a.group_of(key('b')) == nullptr);
  a.collapse(key('c'), false);
  CHECK(a.firsts() == std::vector<KeyAliases::Packed>{key('b')});
  a.reset();
  CHECK(!a.built());
  CHECK(a.firsts().empty());
}
