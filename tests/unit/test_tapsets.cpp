// The tapset library: every file parsed up front, a file joining the
// program only when a name it defines is needed.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "probe_fixture.h"

using stap::test::ProbeFixture;

namespace {

bool has_file(const stap::Program& p, const std::string& suffix) {
  return std::any_of(p.files.begin(), p.files.end(), [&](const auto& f) {
    return f->name.size() >= suffix.size() &&
           f->name.compare(f->name.size() - suffix.size(), suffix.size(), suffix) == 0;
  });
}

stap::ast::ProbePoint& point_of(ProbeFixture& f, const std::string& text) {
  return *f.parse("probe " + text + " {}").probes.at(0)->points.at(0);
}

}  // namespace

TEST_CASE("the library parses every .stp file, subdirectories included, and uses none yet") {
  ProbeFixture f;
  f.load({stap::test::test_tapset_dir()});
  CHECK(f.diags.error_count() == 0);
  CHECK(f.library.file_count() == 5);  // fake_syscalls helpers uses_macro with_probe sub/nested
  CHECK(f.library.files_used() == 0);
  CHECK(f.library.all_aliases().size() == 5);
  CHECK(f.program.files.empty());
}

TEST_CASE("a directory given twice is read once") {
  ProbeFixture f;
  f.load({stap::test::test_tapset_dir(), stap::test::test_tapset_dir()});
  CHECK(f.library.file_count() == 5);
  CHECK(f.diags.error_count() == 0);
}

TEST_CASE("a function pulls in its file, with the file's other names") {
  ProbeFixture f;
  f.load({stap::test::test_tapset_dir()});
  std::vector<stap::ast::FunctionDecl*> fns = f.library.need_function("helper_double", f.program);
  CHECK(fns.size() == 2);  // both overloads
  CHECK(f.library.files_used() == 1);
  CHECK(has_file(f.program, "helpers.stp"));
  CHECK_FALSE(has_file(f.program, "fake_syscalls.stp"));
  CHECK(f.program.files.back()->is_tapset);
  CHECK(f.program.functions.size() == 3);  // two overloads and the private one
  REQUIRE(f.program.globals.size() == 1);
  CHECK(f.program.globals[0]->name == "helper_counter");
  // Needing another name of the same file adds nothing twice.
  CHECK(f.library.need_global("helper_counter", f.program) == f.program.globals[0]);
  CHECK(f.program.files.size() == 1);
  CHECK(f.program.functions.size() == 3);
}

TEST_CASE("unknown and private names pull nothing in") {
  ProbeFixture f;
  f.load({stap::test::test_tapset_dir()});
  CHECK(f.library.need_function("no_such_function", f.program).empty());
  CHECK(f.library.need_function("helper_hidden", f.program).empty());
  CHECK(f.library.need_global("no_such_global", f.program) == nullptr);
  CHECK(f.library.files_used() == 0);
  CHECK(f.program.files.empty());
}

TEST_CASE("a global pulls in its file") {
  ProbeFixture f;
  f.load({stap::test::test_tapset_dir()});
  stap::ast::VarDecl* g = f.library.need_global("helper_counter", f.program);
  REQUIRE(g != nullptr);
  CHECK(g->name == "helper_counter");
  CHECK(has_file(f.program, "helpers.stp"));
  CHECK(f.library.files_used() == 1);
}

TEST_CASE("files in subdirectories are found") {
  ProbeFixture f;
  f.load({stap::test::test_tapset_dir()});
  CHECK(f.library.need_function("nested_answer", f.program).size() == 1);
  CHECK(has_file(f.program, "sub/nested.stp"));
}

TEST_CASE("a macro from a .stpm file is visible in a later tapset file") {
  ProbeFixture f;
  f.load({stap::test::test_tapset_dir()});
  REQUIRE(f.diags.error_count() == 0);
  std::vector<stap::ast::FunctionDecl*> fns = f.library.need_function("uses_twice", f.program);
  REQUIRE(fns.size() == 1);
  REQUIRE(fns[0]->body != nullptr);
  auto* ret = dynamic_cast<stap::ast::ReturnStmt*>(fns[0]->body->statements.at(0));
  REQUIRE(ret != nullptr);
  auto* sum = dynamic_cast<stap::ast::BinaryExpr*>(ret->value);
  REQUIRE(sum != nullptr);
  CHECK(sum->op == "+");
}

TEST_CASE("library macros are visible in the user's script") {
  ProbeFixture f;
  f.load({stap::test::test_tapset_dir()});
  stap::ast::File& file = f.parse("probe begin { x = @twice(2) }");
  CHECK(f.diags.error_count() == 0);
  CHECK(file.probes.size() == 1);
}

TEST_CASE("aliases are found by name, wildcard or prefix, and pull in their file") {
  ProbeFixture f;
  f.load({stap::test::test_tapset_dir()});
  CHECK(f.library.need_aliases(point_of(f, "nosuch.alias"), f.program).empty());
  CHECK(f.library.files_used() == 0);
  CHECK(f.library.need_aliases(point_of(f, "syscall.open"), f.program).size() == 1);
  CHECK(f.library.need_aliases(point_of(f, "syscall.*"), f.program).size() == 2);
  CHECK(f.library.need_aliases(point_of(f, "syscall.*.return"), f.program).size() == 2);
  CHECK(f.library.need_aliases(point_of(f, "syscall.**"), f.program).size() == 4);
  // syscall.open.return is an alias itself: the full match wins over
  // syscall.open with a ".return" suffix.
  CHECK(f.library.need_aliases(point_of(f, "syscall.open.return"), f.program).size() == 1);
  // No full match: the alias with the longest matching prefix.
  auto prefixed = f.library.need_aliases(point_of(f, "syscall.open.foo"), f.program);
  REQUIRE(prefixed.size() == 1);
  CHECK(prefixed[0]->names[0]->to_string() == "syscall.open");
  CHECK(f.library.files_used() == 1);
  CHECK(has_file(f.program, "fake_syscalls.stp"));
}

TEST_CASE("the shipped tapsets parse cleanly and define what scripts rely on") {
  ProbeFixture f;
  f.load({STAP_SOURCE_TAPSET_DIR});
  REQUIRE(f.diags.error_count() == 0);
  CHECK(f.library.need_function("ansi_set_color", f.program).size() == 3);
  CHECK(f.library.need_function("ansi_clear_screen", f.program).size() == 1);
  CHECK(f.library.need_function("ansi_cursor_move", f.program).size() == 1);
  CHECK(f.library.need_aliases(point_of(f, "init"), f.program).size() == 1);
  CHECK(f.library.need_aliases(point_of(f, "oneshot"), f.program).size() == 1);
  CHECK(f.library.need_aliases(point_of(f, "timer.profile"), f.program).size() == 1);
  CHECK(f.library.need_aliases(point_of(f, "perf.sw.*"), f.program).size() == 9);
  CHECK(f.library.need_aliases(point_of(f, "perf.hw.*"), f.program).size() == 10);
  CHECK(f.library.need_aliases(point_of(f, "perf.hw_cache.l1d.*.miss"), f.program).size() == 3);
  // @try_assign from try_assign.stpm expands in a user script.
  stap::ast::File& file =
      f.parse("probe begin { @try_assign(v, 1 / 0, 2) }");
  CHECK(f.diags.error_count() == 0);
  REQUIRE(file.probes.size() == 1);
  REQUIRE(file.probes[0]->body->statements.size() >= 1);
  CHECK(dynamic_cast<stap::ast::TryStmt*>(file.probes[0]->body->statements[0]) != nullptr);
}

namespace {

// A directory of tapset files written for one test, removed afterwards.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    char tmpl[] = "/tmp/stap_tapset_test_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
  }
};

}  // namespace

TEST_CASE("a tapset file that does not parse is reported, skipped, and fails nothing") {
  ScratchDir dir;
  dir.write("a_bad.stp", "function bad_one() { return 1 + }\nfunction bad_two() { return ) }\n");
  dir.write("b_good.stp", "function good_one() { return 1 }\n");
  ProbeFixture f;
  f.load({dir.path.string()});
  CHECK(f.diags.error_count() == 0);
  CHECK(f.diags.count_of("parse error") == 0);
  CHECK(f.library.file_count() == 1);
  CHECK(f.library.need_function("bad_one", f.program).empty());
  CHECK(f.library.need_function("good_one", f.program).size() == 1);
  std::string out = f.messages();
  CHECK(out.find("parse error: expected literal string or number") != std::string::npos);
  std::string bad = (dir.path / "a_bad.stp").string();
  CHECK(out.find("2 parse errors.\nWARNING: tapset \"" + bad +
                 "\" has errors, and will be skipped\n") != std::string::npos);
}

TEST_CASE("each skipped tapset file has its own count line") {
  ScratchDir dir;
  dir.write("a.stp", "function a() { return 1 + }\n");
  dir.write("b.stp", "function b() { return 1 + }\n");
  ProbeFixture f;
  f.load({dir.path.string()});
  std::string out = f.messages();
  size_t first = out.find("1 parse error.\n");
  REQUIRE(first != std::string::npos);
  CHECK(out.find("1 parse error.\n", first + 1) != std::string::npos);
  CHECK(f.diags.error_count() == 0);
}

TEST_CASE("a macro file with errors still fails the run") {
  ScratchDir dir;
  dir.write("bad.stpm", "@define foo %( 1 + \n");
  ProbeFixture f;
  f.load({dir.path.string()});
  CHECK(f.diags.error_count() > 0);
  CHECK(f.messages().find("WARNING: macro tapset \"" + (dir.path / "bad.stpm").string() +
                          "\" has errors, and will be skipped.") != std::string::npos);
}
