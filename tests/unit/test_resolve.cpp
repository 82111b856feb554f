// Symbol resolution: locals, globals, parameters, calls by name and arity,
// builtins, and the errors stap words for what cannot be resolved.
#include <catch2/catch.hpp>

#include "ast/visitor.h"
#include "elaborate/builtins.h"
#include "elaborate/resolve.h"
#include "elaborate_fixture.h"

using stap::test::ElaborateFixture;
using Strings = std::vector<std::string>;

namespace {

Strings global_names(const ElaborateFixture& f) {
  Strings out;
  for (auto* g : f.program.globals) out.push_back(g->name);
  return out;
}

// Every Symbol of a body, to check what each was bound to.
struct Symbols : stap::ast::TraversingVisitor {
  std::vector<stap::ast::Symbol*> found;
  using TraversingVisitor::visit;
  void visit(stap::ast::Symbol& s) override { found.push_back(&s); }
};

}  // namespace

TEST_CASE("locals are created on first use and shared by later uses") {
  ElaborateFixture f(true);
  REQUIRE(f.run("probe begin { x = 1; y = x + 2; print(y) }"));
  auto& locals = f.program.probes.at(0).decl->locals;
  REQUIRE(locals.size() == 2);
  CHECK(locals[0]->name == "x");
  CHECK(locals[1]->name == "y");
  Symbols s;
  f.program.probes[0].decl->body->accept(s);
  for (auto* sym : s.found) {
    REQUIRE(sym->decl != nullptr);
    CHECK(sym->decl->name == sym->name);
  }
}

TEST_CASE("globals are listed in stap's order of first reference, unused ones left out") {
  ElaborateFixture f(true);
  REQUIRE(f.run("global a, b, c, unused; probe begin { c[b] = a; a = 1; b = 2 }"));
  // An index before its array, an assignment's target before its value.
  CHECK(global_names(f) == Strings{"b", "c", "a"});
}

TEST_CASE("function parameters shadow globals; functions join the program when called") {
  ElaborateFixture f(true);
  REQUIRE(f.run("global a; function g(a) { return a } function unused() { return 1 }\n"
                "probe begin { a = g(2) }"));
  auto* g = f.function("g", 1);
  REQUIRE(g);
  CHECK(f.function("unused", 0) == nullptr);
  REQUIRE(g->param_decls.size() == 1);
  CHECK(g->param_decls[0]->scope == stap::ast::VarDecl::Scope::param);
}

TEST_CASE("calls resolve by arity to overloads, user functions before builtins") {
  ElaborateFixture f(true);
  REQUIRE(f.run("function f() { return 1 } function f(a) { return a }\n"
                "function pid() { return 5 }\n"
                "probe begin { print(f() + f(2) + pid()) }"));
  CHECK(f.function("f", 0));
  CHECK(f.function("f", 1));
  CHECK(f.function("pid", 0));
  // The builtin stays in the overload set stap would list.
  REQUIRE(f.program.builtins.size() >= 1);
  bool listed_pid = false;
  for (auto* b : f.program.builtins) listed_pid |= std::string(b->name) == "pid";
  CHECK(listed_pid);
}

TEST_CASE("a function cannot replace the print family") {
  ElaborateFixture f(true);
  REQUIRE(f.run("function print(x) { return 1 } probe begin { print(1) }"));
  CHECK(f.function("print", 1) == nullptr);
}

TEST_CASE("an unknown function is reported with similar names") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("probe begin { strlem(\"a\") }"));
  CHECK(f.messages().starts_with(
      "semantic error: unresolved function strlem (similar: strlen, strpos"));
  CHECK(f.messages().find(": identifier 'strlem' at <input>:1:15") != std::string::npos);
}

TEST_CASE("a call with the wrong arity names the function's declaration") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("function f(a) { return a } probe begin { f(1,2) }"));
  CHECK(f.messages() ==
        "semantic error: arity mismatch found (function 'f' takes 1 args): identifier 'f' at "
        "<input>:1:42\n"
        "        source: function f(a) { return a } probe begin { f(1,2) }\n"
        "                                                         ^\n"
        "identifier 'f' at <input>:1:10\n"
        "        source: function f(a) { return a } probe begin { f(1,2) }\n"
        "                         ^\n\n");
}

TEST_CASE("a local used as an array is an error naming the missing global") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("probe begin { y[1] = 1 }"));
  CHECK(f.messages().starts_with(
      "semantic error: unresolved arity-1 global array y, missing global declaration?: "
      "identifier 'y' at <input>:1:15\n"));
}

TEST_CASE("scalar and array uses of one name conflict, both places shown") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("global a; probe begin { a = 1; a[1] = 2 }"));
  std::string m = f.messages();
  CHECK(m.find("semantic error: inconsistent arity (0 vs 1): identifier 'a' at <input>:1:32") !=
        std::string::npos);
  CHECK(m.find("semantic error: arity 0 first inferred here: identifier 'a' at <input>:1:25") !=
        std::string::npos);
}

TEST_CASE("arrays get their arity; foreach keys, catch variables are locals") {
  ElaborateFixture f(true);
  REQUIRE(f.run("global a; probe begin { a[1, \"x\"] = 1; foreach ([k, s] in a) print(k);"
                " try { error(\"e\") } catch (m) { print(m) } }"));
  auto* a = f.global("a");
  REQUIRE(a);
  CHECK(a->is_array);
  CHECK(a->index_types.size() == 2);
  CHECK(f.local(0, "k"));
  CHECK(f.local(0, "s"));
  CHECK(f.local(0, "m"));
}

TEST_CASE("private globals are seen only from their own file") {
  ElaborateFixture f(true);
  f.parse("private global p; probe begin { p = 1 }");
  REQUIRE(f.run("probe end { p = \"s\"; print(p) }"));
  REQUIRE(f.program.probes.size() >= 2);
  CHECK(f.global("p"));
  CHECK(f.local(1, "p"));  // the second file's p is its own local
}

TEST_CASE("similar_names orders by distance, then length, then name") {
  CHECK(stap::similar_names("foo", {"cpu", "pp", "log", "pn", "HZ", "execname"}) ==
        "log, HZ, pn, pp, cpu");
  CHECK(stap::similar_names("zzzzzz", {"a", "b"}).empty());
}

TEST_CASE("foreach declares its keys before its value, as stap lists them") {
  ElaborateFixture f(true);
  REQUIRE(f.run("global a; probe begin { a[1, \"x\"] = 2; foreach (v = [k1, k2] in a) print(v, k1, k2) }"));
  auto& locals = f.program.probes.at(0).decl->locals;
  REQUIRE(locals.size() == 3);
  CHECK(locals[0]->name == "k1");
  CHECK(locals[1]->name == "k2");
  CHECK(locals[2]->name == "v");
}

TEST_CASE("delete of a name that is nothing yet is an error, not a new local") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("function f() { return 1 } probe begin { delete f; println(f()) }"));
  CHECK(f.messages().find("semantic error: unresolved array in delete statement: identifier 'f' "
                          "at <input>:1:48") != std::string::npos);
  ElaborateFixture ok(true);
  CHECK(ok.run("probe begin { x = 1; delete x; print(x) }"));
}

TEST_CASE("@defined of a target variable is 0 where there are none, and decides its branch") {
  ElaborateFixture f(true);
  REQUIRE(f.run("probe begin { if (@defined($x)) println($x) else println(2); "
                "y = !@defined($y) || $y > 1 ? @choose_defined($z, 7) : $y; print(y) }"));
  CHECK(f.printed(1) ==
        "# probes\n"
        "begin /* <- begin */\n"
        "  # locals\n"
        "  y:long\n"
        "{ {\n"
        "println(2);\n"
        "(y) = (7);\n"
        "print(y);\n"
        "} }\n");
  // In a function too; an if with no else leaves an empty statement.
  ElaborateFixture fn(true);
  REQUIRE(fn.run("function f() { if (@defined($x)) return $x; return 3 } probe begin { println(f()) }"));
  CHECK(fn.printed(1).find("{ {\n;;\nreturn 3;\n} }") != std::string::npos);
}

TEST_CASE("@defined is left to the provider where target variables may exist") {
  ElaborateFixture f(true);
  REQUIRE(f.run("probe kernel.function(\"vfs_read\") { println(@defined($x) ? $x : 0) }"));
  CHECK(f.printed(1).find("(@defined($x))?($x):(0)") != std::string::npos);
}

TEST_CASE("a branch ruled out by @defined pulls in no tapset function") {
  ElaborateFixture f(true);
  f.load({stap::test::test_tapset_dir()});
  REQUIRE(f.run("probe begin { if (@defined($x)) println(helper_double(1)); print(1) }"));
  CHECK(f.library.files_used() == 0);
}
