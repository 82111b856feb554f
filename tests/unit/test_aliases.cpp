// Alias expansion: derived probes, prologue/epilogue order, wildcard and
// suffix matching, '?'/'!', conditions, loops, the chain back to the user.
#include <catch2/catch.hpp>

#include <sstream>

#include "ast/clone.h"
#include "ast/visitor.h"
#include "elaborate/providers/provider.h"
#include "parse/printer.h"
#include "probe_fixture.h"

using stap::test::ProbeFixture;
using Strings = std::vector<std::string>;

namespace {

// The names assigned by the top-level statements of each part of a derived
// body: {"x"} for { x = 1 }.  Parts are the nested blocks alias expansion
// builds, or the body's own statements when no alias was involved.
Strings assigned_names(const stap::ast::Block& body) {
  Strings out;
  auto visit_stmt = [&](const stap::ast::Stmt* s) {
    auto* es = dynamic_cast<const stap::ast::ExprStmt*>(s);
    if (!es) return;
    auto* as = dynamic_cast<const stap::ast::AssignExpr*>(es->expr);
    if (!as) return;
    if (auto* sym = dynamic_cast<const stap::ast::Symbol*>(as->target)) out.push_back(sym->name);
  };
  for (const stap::ast::Stmt* s : body.statements) {
    if (auto* b = dynamic_cast<const stap::ast::Block*>(s)) {
      for (const stap::ast::Stmt* inner : b->statements) visit_stmt(inner);
    } else {
      visit_stmt(s);
    }
  }
  return out;
}

std::string expr_text(const stap::ast::Expr& e) {
  std::ostringstream out;
  stap::print_expr(e, out);
  return out.str();
}

ProbeFixture& with_test_tapsets(ProbeFixture& f) {
  f.load({stap::test::test_tapset_dir()});
  REQUIRE(f.diags.error_count() == 0);
  return f;
}

}  // namespace

TEST_CASE("a plain probe gives one derived probe per point, each with its own body") {
  ProbeFixture f;
  f.parse("probe begin, end { x = 1 }");
  REQUIRE(f.expand());
  CHECK(f.points() == Strings{"begin", "end"});
  REQUIRE(f.program.probes.size() == 2);
  CHECK(f.program.probes[0].decl->body != f.program.probes[1].decl->body);
  CHECK(f.program.probes[0].provider == &stap::begin_end_provider());
  CHECK(stap::derivation_note(*f.program.probes[0].decl) == " /* <- begin,end */");
}

TEST_CASE("an alias's prologue runs before the user's body, on every alias point") {
  ProbeFixture f;
  f.parse("probe a = begin, end { x = 1 }  probe a { y = 2 }");
  REQUIRE(f.expand());
  CHECK(f.points() == Strings{"begin", "end"});
  for (const stap::DerivedProbe& p : f.program.probes) {
    CHECK(assigned_names(*p.decl->body) == Strings{"x", "y"});
    CHECK(stap::derivation_note(*p.decl) == " /* <- a = begin, end <- a */");
  }
}

TEST_CASE("an epilogue alias (+=) runs after the user's body") {
  ProbeFixture f;
  f.parse("probe a += end { z = 3 }  probe a { y = 2 }");
  REQUIRE(f.expand());
  REQUIRE(f.program.probes.size() == 1);
  CHECK(assigned_names(*f.program.probes[0].decl->body) == Strings{"y", "z"});
  CHECK(stap::derivation_note(*f.program.probes[0].decl) == " /* <- a += end <- a */");
}

TEST_CASE("aliases of aliases nest their prologues, innermost first") {
  ProbeFixture f;
  f.parse("probe b = begin { inner = 1 }  probe a = b { outer = 1 }  probe a { user = 1 }");
  REQUIRE(f.expand());
  REQUIRE(f.program.probes.size() == 1);
  const stap::ast::ProbeDecl& d = *f.program.probes[0].decl;
  CHECK(assigned_names(*d.body) == Strings{"inner", "outer", "user"});
  CHECK(stap::derivation_note(d) == " /* <- b = begin <- a = b <- a */");
  REQUIRE(d.via_aliases.size() == 2);
  CHECK(d.derived_from.size() == 3);
}

TEST_CASE("several aliases of one name all apply") {
  ProbeFixture f;
  f.parse("probe a += begin { y = 1 }  probe a = end { x = 1 }  probe a { u = 1 }");
  REQUIRE(f.expand());
  CHECK(f.points() == Strings{"begin", "end"});
  CHECK(assigned_names(*f.program.probes[0].decl->body) == Strings{"u", "y"});
  CHECK(assigned_names(*f.program.probes[1].decl->body) == Strings{"x", "u"});
}

TEST_CASE("wildcards match alias names component by component") {
  struct Case {
    const char* point;
    Strings expected;
  };
  const Case cases[] = {
      {"syscall.*", {"begin(2)", "begin(1)"}},  // close, open: by name
      {"syscall.*.return", {"end(2)", "end(1)"}},
      {"syscall.open*", {"begin(1)"}},  // not open.return: one component each
      {"syscall.**", {"begin(2)", "begin(1)", "end(2)", "end(1)"}},
      {"sys*.open", {"begin(1)"}},
      {"syscall.{open,close}", {"begin(1)", "begin(2)"}},
  };
  for (const Case& c : cases) {
    INFO(c.point);
    ProbeFixture f;
    with_test_tapsets(f);
    f.parse(std::string("probe ") + c.point + " { print(name) }");
    REQUIRE(f.diags.error_count() == 0);
    CHECK(f.expand());
    CHECK(f.points() == c.expected);
    for (const stap::DerivedProbe& p : f.program.probes)
      CHECK(assigned_names(*p.decl->body).at(0) == "name");
  }
}

TEST_CASE("the annotation names the matched alias and the user's wildcard point") {
  ProbeFixture f;
  with_test_tapsets(f);
  f.parse("probe syscall.*.return { print(retstr) }");
  REQUIRE(f.expand());
  REQUIRE(f.program.probes.size() == 2);
  CHECK(stap::derivation_note(*f.program.probes[0].decl) ==
        " /* <- syscall.close.return = end(2) <- syscall.*.return */");
}

TEST_CASE("a wildcard that matches no alias is an error unless optional") {
  ProbeFixture f;
  with_test_tapsets(f);
  f.parse("probe syscall.nope* { }");
  CHECK_FALSE(f.expand());
  CHECK(f.messages().find("didn't find any wildcard matches") != std::string::npos);

  ProbeFixture g;
  with_test_tapsets(g);
  g.parse("probe syscall.nope*?, begin { }");
  CHECK(g.expand());
  CHECK(g.points() == Strings{"begin"});
}

TEST_CASE("components past an alias name are appended to its points") {
  ProbeFixture f;
  f.parse("probe a = timer.ms(3) { }  probe a.randomize(1) { }");
  REQUIRE(f.expand());
  CHECK(f.points() == Strings{"timer.ms(3).randomize(1)"});
  CHECK(stap::derivation_note(*f.program.probes[0].decl) ==
        " /* <- a = timer.ms(3) <- a.randomize(1) */");

  ProbeFixture g;
  g.parse("probe a = begin { }  probe a.b { }");
  CHECK_FALSE(g.expand());
  CHECK(g.messages().find("invalid suffix for probe: identifier 'b'") != std::string::npos);
}

TEST_CASE("'?' excuses a point that resolves to nothing, even through aliases") {
  ProbeFixture f;
  f.parse("probe nothere?, end { }");
  REQUIRE(f.expand());
  CHECK(f.points() == Strings{"end"});

  ProbeFixture g;
  g.parse("probe a = foo.bar { x = 1 }  probe a?, begin { }");
  REQUIRE(g.expand());
  CHECK(g.points() == Strings{"begin"});
  CHECK(g.diags.error_count() == 0);
}

TEST_CASE("a non-optional point that resolves to nothing is an error") {
  ProbeFixture f;
  f.parse("probe a = foo.bar { x = 1 }  probe a { }");
  CHECK_FALSE(f.expand());
  std::string msg = f.messages();
  CHECK(msg.find("probe point mismatch") != std::string::npos);
  CHECK(msg.find("identifier 'foo'") != std::string::npos);
  CHECK(msg.find("semantic error: no match") != std::string::npos);
  CHECK(f.program.probes.empty());
}

TEST_CASE("'!' stops at the first point that resolved") {
  ProbeFixture f;
  f.parse("probe begin!, end { }");
  REQUIRE(f.expand());
  CHECK(f.points() == Strings{"begin!"});

  ProbeFixture g;
  g.parse("probe a = nope!, begin!, end { x = 1 }  probe a { }");
  REQUIRE(g.expand());
  CHECK(g.points() == Strings{"begin!"});
  CHECK(stap::derivation_note(*g.program.probes[0].decl) ==
        " /* <- a = nope!, begin!, end <- a */");
}

TEST_CASE("conditions join the alias point's and the user's with &&") {
  ProbeFixture f;
  f.parse("global x, y  probe a = begin if (x > 0) { }  probe a if (y) { }");
  REQUIRE(f.expand());
  REQUIRE(f.program.probes.size() == 1);
  const stap::ast::Expr* cond = f.program.probes[0].point->condition;
  REQUIRE(cond != nullptr);
  auto* both = dynamic_cast<const stap::ast::BinaryExpr*>(cond);
  REQUIRE(both != nullptr);
  CHECK(both->op == "&&");
  CHECK(expr_text(*both->left) == expr_text(*f.program.files[0]->aliases[0]->points[0]->condition));
  auto* user = dynamic_cast<const stap::ast::Symbol*>(both->right);
  REQUIRE(user != nullptr);
  CHECK(user->name == "y");
}

TEST_CASE("an alias loop is reported, not followed forever") {
  ProbeFixture f;
  f.parse("probe a = b { x = 1 }  probe b = a { }  probe a { }");
  CHECK_FALSE(f.expand());
  CHECK(f.messages().find("recursive loop in alias expansion of") != std::string::npos);
  CHECK(f.program.probes.empty());
}

TEST_CASE("alias names take no parameters") {
  ProbeFixture f;
  f.parse("probe a(3) = begin { }  probe begin { }");
  CHECK_FALSE(f.expand());
  std::string msg = f.messages();
  CHECK(msg.find("while registering probe alias: keyword") != std::string::npos);
  CHECK(msg.find("alias component a contains illegal parameter") != std::string::npos);
}

TEST_CASE("an unknown probe family is an error naming the point") {
  ProbeFixture f;
  f.parse("probe foo.bar { }");
  CHECK_FALSE(f.expand());
  std::string msg = f.messages();
  CHECK(msg.find("semantic error: while resolving probe point: identifier 'foo' at <input>:1:7") !=
        std::string::npos);
  CHECK(msg.find("probe point mismatch") != std::string::npos);
}

TEST_CASE("code copied from an alias chains its locations back to the user's point") {
  ProbeFixture f;
  with_test_tapsets(f);
  f.parse("probe syscall.open { }");
  REQUIRE(f.expand());
  REQUIRE(f.program.probes.size() == 1);
  const stap::ast::Block& body = *f.program.probes[0].decl->body;
  auto* prologue = dynamic_cast<const stap::ast::Block*>(body.statements.at(0));
  REQUIRE(prologue != nullptr);
  const stap::SourceLoc loc = prologue->statements.at(0)->loc;
  CHECK(f.sources.name(loc.file).find("fake_syscalls.stp") != std::string::npos);
  REQUIRE(loc.expansion != 0);
  const auto& e = f.sources.expansion(loc.expansion);
  CHECK(e.what == "in expansion of probe alias 'syscall.open'");
  CHECK(f.sources.name(e.where.file) == "<input>");
  CHECK(e.where.line == 1);
  CHECK(e.where.column == 7);
  // A diagnostic there renders the chain.
  f.diags.semantic_error(loc, "test error");
  CHECK(f.messages().find("in expansion of probe alias 'syscall.open' at <input>:1:7") !=
        std::string::npos);
}

TEST_CASE("tapset files pulled in by an alias bring their own probes") {
  ProbeFixture f;
  with_test_tapsets(f);
  f.parse("probe withprobe.point { }");
  REQUIRE(f.expand());
  CHECK(f.points() == Strings{"end(7)", "begin(99)"});
  CHECK(f.program.expanded_files == f.program.files.size());
  // A second call finds nothing new.
  REQUIRE(f.expand());
  CHECK(f.program.probes.size() == 2);
}

TEST_CASE("the shipped session aliases expand as stap's do") {
  ProbeFixture f;
  f.load({STAP_SOURCE_TAPSET_DIR});
  REQUIRE(f.diags.error_count() == 0);
  f.parse("probe init { a = 1 }  probe oneshot { b = 1 }  probe perf.sw.cpu_clock.hz(100) { }");
  REQUIRE(f.expand());
  CHECK(f.points() == Strings{"begin(-9223372036854775808)", "begin",
                              "perf.type(1).config(0).hz(100)"});
  CHECK(stap::derivation_note(*f.program.probes[1].decl) == " /* <- oneshot += begin <- oneshot */");
  // oneshot's exit() comes after the user's body.
  const stap::ast::Block& body = *f.program.probes[1].decl->body;
  REQUIRE(body.statements.size() == 2);
  CHECK(assigned_names(body) == Strings{"b"});
}

TEST_CASE("clone makes an independent deep copy") {
  ProbeFixture f;
  stap::ast::File& file = f.parse(
      "probe begin { x = 1; if (x > 0) { a[x, \"k\"] <<< x } else y = \"s\" . \"t\"; "
      "foreach ([k1, k2] in a- limit 3) print(@count(a[k1, k2])); "
      "try { z = $v->f[2] } catch (msg) { next } }");
  REQUIRE(f.diags.error_count() == 0);
  stap::ast::Block* original = file.probes[0]->body;
  std::ostringstream before;
  stap::print_stmt(*original, before);
  size_t nodes_before = f.arena.size();
  stap::ast::Block* copy = stap::ast::clone(original, f.arena);
  CHECK(f.arena.size() > nodes_before);
  CHECK(copy != original);
  std::ostringstream copied;
  stap::print_stmt(*copy, copied);
  CHECK(copied.str() == before.str());
  // Changing the copy leaves the original alone.
  auto* first = dynamic_cast<stap::ast::ExprStmt*>(copy->statements.at(0));
  REQUIRE(first != nullptr);
  auto* assign = dynamic_cast<stap::ast::AssignExpr*>(first->expr);
  REQUIRE(assign != nullptr);
  CHECK(assign != dynamic_cast<stap::ast::ExprStmt*>(original->statements[0])->expr);
  dynamic_cast<stap::ast::Symbol*>(assign->target)->name = "renamed";
  std::ostringstream after;
  stap::print_stmt(*original, after);
  CHECK(after.str() == before.str());
}

TEST_CASE("clone applies the location map to every node") {
  ProbeFixture f;
  stap::ast::File& file = f.parse("probe begin { x = y + 1; print(x) }");
  REQUIRE(f.diags.error_count() == 0);
  size_t mapped = 0;
  stap::ast::Block* copy = stap::ast::clone(file.probes[0]->body, f.arena,
                                            [&](stap::SourceLoc l) {
                                              ++mapped;
                                              l.line += 100;
                                              return l;
                                            });
  struct Lines : stap::ast::TraversingVisitor {
    size_t low = 0;
    void visit(stap::ast::Symbol& s) override { low += s.loc.line < 100; }
  } lines;
  copy->accept(lines);
  CHECK(lines.low == 0);
  CHECK(mapped >= 8);
}

TEST_CASE("timer.profile falls back to perf; timer.profile.tick stays the provider's") {
  ProbeFixture f;
  f.load({STAP_SOURCE_TAPSET_DIR});
  REQUIRE(f.diags.error_count() == 0);
  f.parse("probe timer.profile { }  probe timer.profile.tick { }  "
          "probe timer.profile.freq.hz(100) { }");
  REQUIRE(f.expand());
  CHECK(f.points() == Strings{"timer.profile.tick!", "timer.profile.tick",
                              "perf.type(1).config(0).hz(100)"});
  CHECK(stap::derivation_note(*f.program.probes[2].decl) ==
        " /* <- perf.sw.cpu_clock = perf.type(1).config(0) <- timer.profile.freq = "
        "perf.sw.cpu_clock <- timer.profile.freq.hz(100) */");
  CHECK(f.program.probes[1].decl->via_aliases.empty());
}
