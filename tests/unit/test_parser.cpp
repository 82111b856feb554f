// The parser: the trees it builds, its diagnostics (wording and places
// checked against stap 4.8, ostap -p1) and its recovery after errors.
// The printed forms are tested in test_printer.cpp.
#include <catch2/catch.hpp>

#include "parse_fixture.h"

using namespace stap;
using test::parse_errors;
using test::Parsed;

using test::expr_of;
using test::first_stmt;
using test::one_error;

// ---------------------------------------------------------------- declarations

TEST_CASE("parser: globals", "[parser]") {
  Parsed p("global a, b[100], c%, d%[10], x = 1, s = \"lit\", n = -5, t:string\n"
           "private global pg\nprivate q");
  REQUIRE(p.diags.error_count() == 0);
  const auto& g = p.file->globals;
  REQUIRE(g.size() == 10);
  CHECK(g[0]->name == "a");
  CHECK(g[0]->scope == ast::VarDecl::Scope::global);
  CHECK_FALSE(g[0]->is_array);
  CHECK(g[1]->is_array);
  CHECK(g[1]->max_entries == 100);
  CHECK(g[2]->wrap);
  CHECK(g[2]->max_entries == 0);
  CHECK(g[3]->wrap);
  CHECK(g[3]->max_entries == 10);
  CHECK(dynamic_cast<ast::NumberLit*>(g[4]->init)->value == 1);
  CHECK(dynamic_cast<ast::StringLit*>(g[5]->init)->value == "lit");
  CHECK(dynamic_cast<ast::NumberLit*>(g[6]->init)->value == -5);
  CHECK(g[7]->type == ast::Type::string);
  CHECK(g[7]->type_declared);
  CHECK(g[8]->is_private);
  CHECK(g[8]->file_of_private == "<input>");
  CHECK(g[9]->name == "q");
  CHECK(g[9]->is_private);
  CHECK(g[0]->loc.line == 1);
  CHECK(g[0]->loc.column == 8);
}

TEST_CASE("parser: global errors", "[parser]") {
  CHECK(one_error("global d[10], e[0]") ==
        "parse error: array size out of range\n"
        "        saw: number '0' at <input>:1:17\n"
        "     source: global d[10], e[0]\n"
        "                             ^\n\n");
  CHECK(one_error("global x[a]").find("expected number") != std::string::npos);
  CHECK(one_error("global x = y").find("expected literal string or number") != std::string::npos);
  CHECK(one_error("global x:int").find("expected 'string' or 'long'") != std::string::npos);
  CHECK(one_error("global x, x") ==
        "parse error: duplicate global name\n"
        "        saw: identifier 'x' at <input>:1:11\n"
        "     source: global x, x\n"
        "                       ^\n\n");
  CHECK(one_error("global x private x").find(
            "global versus private variable declaration conflict") != std::string::npos);
  CHECK(one_error("global x y").find("expected 'probe', 'global', 'private', 'function', or '%{'") !=
        std::string::npos);
}

TEST_CASE("parser: functions", "[parser]") {
  Parsed p("function f:long (a:long, b:string, c) { return a }\n"
           "function g() { }\nprivate function h(x) { next }");
  REQUIRE(p.diags.error_count() == 0);
  const auto& fs = p.file->functions;
  REQUIRE(fs.size() == 3);
  CHECK(fs[0]->name == "f");
  CHECK(fs[0]->return_type == ast::Type::long_);
  CHECK(fs[0]->return_type_declared);
  REQUIRE(fs[0]->params.size() == 3);
  CHECK(fs[0]->params[0].type == ast::Type::long_);
  CHECK(fs[0]->params[1].type == ast::Type::string);
  CHECK_FALSE(fs[0]->params[2].type_declared);
  CHECK(fs[0]->params[2].loc.column == 36);
  CHECK_FALSE(fs[1]->return_type_declared);
  CHECK(fs[1]->params.empty());
  CHECK(fs[1]->body->statements.empty());
  CHECK(fs[2]->is_private);
}

TEST_CASE("parser: function errors", "[parser]") {
  CHECK(one_error("function f(x, x) {}") ==
        "parse error: duplicate parameter names\n"
        "        saw: identifier 'x' at <input>:1:15\n"
        "     source: function f(x, x) {}\n"
        "                           ^\n\n");
  CHECK(one_error("function f(a b) {}").find("expected ',' or ')'") != std::string::npos);
  CHECK(one_error("function f:int () {}").find("expected 'string' or 'long'") != std::string::npos);
  CHECK(one_error("probe begin { return 1 }") ==
        "parse error: found 'return' not in function context\n"
        "        saw: keyword at <input>:1:15\n"
        "     source: probe begin { return 1 }\n"
        "                           ^\n\n");
}

TEST_CASE("parser: embedded C without -g is a located error, parsing goes on", "[parser]") {
  Parsed p("function f() %{ return 1; %}\n%{ #include <x.h> %}\n"
           "probe begin { %{ x %} y = }\nfunction g() { return 2 }");
  // The expression's error ends its probe, as stap's does.
  CHECK(p.diags.error_count() == 3);
  std::string out = p.errors();
  CHECK(out.find("parse error: embedded code in unprivileged script; need stap -g\n"
                 "        saw: embedded-code at <input>:1:14\n") != std::string::npos);
  CHECK(out.find("embedded expression code in unprivileged script; need stap -g") !=
        std::string::npos);
  CHECK(out.find("embedded-code at <input>:2:1") != std::string::npos);
  CHECK(out.find("embedded-code at <input>:3:15") != std::string::npos);
  REQUIRE(p.file->functions.size() == 2);
  CHECK(p.file->functions[0]->embedded_c);
  CHECK(p.file->functions[0]->body == nullptr);
  CHECK(p.file->functions[1]->name == "g");
}

TEST_CASE("parser: embedded C in guru mode is kept", "[parser]") {
  Parsed p("%{ #include <x.h> %}\nfunction f:long () %{ /* pure */ STAP_RETVALUE = 1; %}\n"
           "probe begin { x = %{ 42 %} }", false, "<input>", true);
  CHECK(p.diags.error_count() == 0);
  REQUIRE(p.file->embedded_blocks.size() == 1);
  CHECK(p.file->embedded_blocks[0].code == " #include <x.h> ");
  REQUIRE(p.file->functions.size() == 1);
  CHECK(p.file->functions[0]->embedded_c);
  CHECK(p.file->functions[0]->embedded_code == " /* pure */ STAP_RETVALUE = 1; ");
}

// ---------------------------------------------------------------- probes

TEST_CASE("parser: probe points", "[parser]") {
  Parsed p("probe kernel.function(\"vfs_*\").return?, begin(-1)!, timer.ms(100) if (x > 1),"
           " vfs_*.foo_*_bar, syscall.** {}");
  REQUIRE(p.diags.error_count() == 0);
  const auto& pts = p.file->probes[0]->points;
  REQUIRE(pts.size() == 5);
  REQUIRE(pts[0]->components.size() == 3);
  CHECK(pts[0]->components[1].functor == "function");
  CHECK(dynamic_cast<ast::StringLit*>(pts[0]->components[1].arg)->value == "vfs_*");
  CHECK(pts[0]->components[2].functor == "return");
  CHECK(pts[0]->optional);
  CHECK_FALSE(pts[0]->sufficient);
  CHECK(dynamic_cast<ast::NumberLit*>(pts[1]->components[0].arg)->value == -1);
  CHECK(pts[1]->optional);
  CHECK(pts[1]->sufficient);
  CHECK(dynamic_cast<ast::BinaryExpr*>(pts[2]->condition) != nullptr);
  CHECK(pts[3]->components[0].functor == "vfs_*");
  CHECK(pts[3]->components[1].functor == "foo_*_bar");
  CHECK(pts[4]->components[1].functor == "**");
  CHECK(pts[2]->loc.column == 53);
}

TEST_CASE("parser: brace expansion gives each point its own condition", "[parser]") {
  Parsed p("probe syscall.{open,close}? if (x) {}");
  REQUIRE(p.diags.error_count() == 0);
  const auto& pts = p.file->probes[0]->points;
  REQUIRE(pts.size() == 2);
  CHECK(pts[0]->to_string() == "syscall.open");
  CHECK(pts[1]->to_string() == "syscall.close");
  CHECK(pts[1]->optional);
  REQUIRE(pts[0]->condition);
  REQUIRE(pts[1]->condition);
  CHECK(pts[0]->condition != pts[1]->condition);
}

TEST_CASE("parser: brace expansion is bounded", "[parser]") {
  std::string pp = "a";
  for (int i = 0; i < 20; ++i) pp += ".{b,c}";
  CHECK(one_error("probe " + pp + " {}").find("too many probe points from brace expansion") !=
        std::string::npos);
}

TEST_CASE("parser: aliases", "[parser]") {
  Parsed p("probe a.b = c.d, e.f { x = 1 }\nprobe g += h {}\nprobe m.{n} = o {}");
  REQUIRE(p.diags.error_count() == 0);
  const auto& as = p.file->aliases;
  REQUIRE(as.size() == 3);
  CHECK(as[0]->names.size() == 1);
  CHECK(as[0]->points.size() == 2);
  CHECK_FALSE(as[0]->epilogue);
  CHECK(as[1]->epilogue);
  CHECK(as[2]->names.size() == 1);
  CHECK(p.file->probes.empty());
}

TEST_CASE("parser: printf and sprintf formats are checked in pass 1", "[parser]") {
  // Blamed on the token after the format, as stap does.
  CHECK(one_error("probe begin { printf(\"%q\\n\", 1) }") ==
        "parse error: invalid or missing conversion specifier\n"
        "        saw: operator ',' at <input>:1:28\n"
        "     source: probe begin { printf(\"%q\\n\", 1) }\n"
        "                                        ^\n\n");
  CHECK(one_error("probe begin { x = sprintf(\"%5\") }")
            .find("trailing incomplete print format conversion\n"
                  "        saw: operator ')' at <input>:1:31") != std::string::npos);
  // Adjacent literals are one format.
  CHECK(one_error("probe begin { printf(\"%\" \"q\") }")
            .find("invalid or missing conversion specifier") != std::string::npos);
  Parsed ok("probe begin { printf(\"%-5d %s %%\", 1, \"a\"); printd(\"%q\", 1, 2) }");
  CHECK(ok.diags.error_count() == 0);
}

TEST_CASE("parser: an alias has exactly one name", "[parser]") {
  CHECK(one_error("probe m, n = o {}") ==
        "parse error: expected probe point specifier\n"
        "        saw: operator '=' at <input>:1:12\n"
        "     source: probe m, n = o {}\n"
        "                        ^\n\n");
  CHECK(one_error("probe m, n += o {}").find("expected probe point specifier\n"
                                            "        saw: operator '+=' at <input>:1:12") !=
        std::string::npos);
  // Checked before the name's own form: '?' on a second name is not blamed.
  CHECK(one_error("probe m?, n = o {}").find("expected probe point specifier") !=
        std::string::npos);
  CHECK(one_error("probe m.{a,b} = o {}").find("operator '=' at <input>:1:15") !=
        std::string::npos);
}

TEST_CASE("parser: probe errors", "[parser]") {
  CHECK(one_error("probe a.b? = c {}") ==
        "parse error: probe point alias name cannot be optional nor sufficient\n"
        "         at: identifier 'a' at <input>:1:7\n"
        "     source: probe a.b? = c {}\n"
        "                   ^\n\n");
  CHECK(one_error("probe 1 {}") ==
        "parse error: expected identifier or '*' or '{'\n"
        "        saw: number '1' at <input>:1:7\n"
        "     source: probe 1 {}\n"
        "                   ^\n\n");
  CHECK(one_error("probe a.b(x) {}").find("expected literal string or number") != std::string::npos);
  CHECK(one_error("probe a.b(\"x\" {}").find("expected ')'") != std::string::npos);
  CHECK(one_error("probe a b {}").find("expected one of ', { } = +='") != std::string::npos);
  CHECK(one_error("probe begin") ==
        "parse error: expected one of ', { } = +='\n"
        "        saw: <input> EOF\n\n");
  CHECK(one_error("private probe begin {}").find("expected 'function' or identifier") !=
        std::string::npos);
}

// ---------------------------------------------------------------- statements

TEST_CASE("parser: if, loops, jumps", "[parser]") {
  Parsed p("probe begin { if (x) y = 1; else { z = 2 } while (a) a--; for (;;) break;"
           " for (i = 0; i < 3; i++) continue; next }");
  REQUIRE(p.diags.error_count() == 0);
  const auto& ss = p.file->probes[0]->body->statements;
  REQUIRE(ss.size() == 5);
  auto* i = dynamic_cast<ast::IfStmt*>(ss[0]);
  REQUIRE(i);
  CHECK(dynamic_cast<ast::ExprStmt*>(i->then_stmt));
  CHECK(dynamic_cast<ast::Block*>(i->else_stmt));
  auto* w = dynamic_cast<ast::ForStmt*>(ss[1]);
  REQUIRE(w);
  CHECK(w->is_while);
  CHECK(w->cond);
  auto* f = dynamic_cast<ast::ForStmt*>(ss[2]);
  REQUIRE(f);
  CHECK_FALSE(f->is_while);
  CHECK((!f->init && !f->cond && !f->incr));
  CHECK(dynamic_cast<ast::JumpStmt*>(f->body)->kind == ast::JumpStmt::Kind::break_);
  auto* f2 = dynamic_cast<ast::ForStmt*>(ss[3]);
  CHECK((f2->init && f2->cond && f2->incr));
  CHECK(dynamic_cast<ast::JumpStmt*>(f2->body)->kind == ast::JumpStmt::Kind::continue_);
  CHECK(dynamic_cast<ast::JumpStmt*>(ss[4])->kind == ast::JumpStmt::Kind::next);
}

TEST_CASE("parser: foreach forms", "[parser]") {
  {
    Parsed p("probe begin { foreach (k in a) {} }");
    auto* f = first_stmt<ast::ForeachStmt>(p);
    CHECK(f->keys.size() == 1);
    CHECK_FALSE(f->keys_bracketed);
    CHECK(f->value == nullptr);
    CHECK(f->sort_direction == 0);
    CHECK(dynamic_cast<ast::Symbol*>(f->base)->name == "a");
  }
  {
    Parsed p("probe begin { foreach ([a, b-] in x limit 5) {} }");
    auto* f = first_stmt<ast::ForeachStmt>(p);
    CHECK(f->keys_bracketed);
    CHECK(f->keys[1]->name == "b");
    CHECK(f->sort_column == 2);
    CHECK(f->sort_direction == -1);
    CHECK(dynamic_cast<ast::NumberLit*>(f->limit)->value == 5);
  }
  {
    Parsed p("probe begin { foreach (v = [k] in a+) {} }");
    auto* f = first_stmt<ast::ForeachStmt>(p);
    CHECK(f->value->name == "v");
    CHECK(f->sort_column == 0);
    CHECK(f->sort_direction == 1);
  }
  {
    Parsed p("probe begin { foreach (v- = k in a) {} }");
    auto* f = first_stmt<ast::ForeachStmt>(p);
    CHECK(f->value->name == "v");
    CHECK(f->sort_column == 0);
    CHECK(f->sort_direction == -1);
  }
  {
    Parsed p("probe begin { foreach (k in a[*, \"x\"]) {} }");
    auto* f = first_stmt<ast::ForeachStmt>(p);
    REQUIRE(f->slice.size() == 2);
    CHECK(f->slice[0] == nullptr);
    CHECK(dynamic_cast<ast::StringLit*>(f->slice[1]));
  }
  {
    Parsed p("probe begin { foreach (x in s @max-) {} }");
    auto* f = first_stmt<ast::ForeachStmt>(p);
    CHECK(f->sort_aggregate_given);
    CHECK(f->sort_aggregate == ast::StatOp::max);
    CHECK(f->sort_direction == -1);
    CHECK(f->sort_column == 0);
  }
  {
    Parsed p("probe begin { foreach (b in @hist_log(s)) {} }");
    auto* f = first_stmt<ast::ForeachStmt>(p);
    CHECK(dynamic_cast<ast::HistExpr*>(f->base));
  }
}

TEST_CASE("parser: foreach errors", "[parser]") {
  CHECK(one_error("probe begin { foreach ([x+,y-] in s) {} }") ==
        "parse error: multiple sort directives\n"
        "        saw: operator '-' at <input>:1:29\n"
        "     source: probe begin { foreach ([x+,y-] in s) {} }\n"
        "                                         ^\n\n");
  CHECK(one_error("probe begin { foreach (x+ in s-) {} }").find("multiple sort directives") !=
        std::string::npos);
  CHECK(one_error("probe begin { foreach (x in s @sum) {} }").find("expected sort directive") !=
        std::string::npos);
  CHECK(one_error("probe begin { foreach (x in s @foo+) {} }").find(
            "expected statistical operation") != std::string::npos);
  CHECK(one_error("probe begin { foreach (x s) {} }").find("expected 'in'") != std::string::npos);
  CHECK(one_error("probe begin { foreach ([x,1] in s) {} }").find("expected identifier") !=
        std::string::npos);
  CHECK(one_error("probe begin { foreach (x in 1) {} }").find(
            "expected identifier or statistical operation") != std::string::npos);
  CHECK(one_error("probe begin { foreach (x in s- @sum) {} }").find("expected ')'") !=
        std::string::npos);
}

TEST_CASE("parser: delete, return, try", "[parser]") {
  Parsed p("function f() { delete a; delete a[1, *]; delete x; return; return 1 + 2;"
           " try { x = 1 } catch (m) { } try { } catch { } }");
  REQUIRE(p.diags.error_count() == 0);
  const auto& ss = p.file->functions[0]->body->statements;
  REQUIRE(ss.size() == 7);
  CHECK(dynamic_cast<ast::Symbol*>(dynamic_cast<ast::DeleteStmt*>(ss[0])->target));
  auto* slice = dynamic_cast<ast::ArrayIndex*>(dynamic_cast<ast::DeleteStmt*>(ss[1])->target);
  REQUIRE(slice);
  CHECK(slice->indexes.size() == 2);
  CHECK(slice->indexes[1] == nullptr);
  CHECK(dynamic_cast<ast::ReturnStmt*>(ss[3])->value == nullptr);
  CHECK(dynamic_cast<ast::BinaryExpr*>(dynamic_cast<ast::ReturnStmt*>(ss[4])->value));
  auto* t = dynamic_cast<ast::TryStmt*>(ss[5]);
  REQUIRE(t);
  CHECK(t->catch_var->name == "m");
  CHECK(t->try_block->statements.size() == 1);
  CHECK(dynamic_cast<ast::TryStmt*>(ss[6])->catch_var == nullptr);
  CHECK(one_error("probe begin { delete 1 }").find("expected identifier") != std::string::npos);
  CHECK(one_error("probe begin { try x = 1 catch { } }").find("expected '{'") != std::string::npos);
}

TEST_CASE("parser: ';' after a statement is optional and absorbed once", "[parser]") {
  Parsed p("probe begin { x = 1 y = 2; if (x) {} ; ; ; z = 3 }");
  REQUIRE(p.diags.error_count() == 0);
  const auto& ss = p.file->probes[0]->body->statements;
  REQUIRE(ss.size() == 5);
  CHECK(dynamic_cast<ast::IfStmt*>(ss[2]));
  CHECK(dynamic_cast<ast::NullStmt*>(ss[3]));
}

// ---------------------------------------------------------------- expressions

TEST_CASE("parser: numbers", "[parser]") {
  auto value = [](const std::string& text) {
    Parsed p("probe begin { " + text + " }");
    return expr_of<ast::NumberLit>(p)->value;
  };
  CHECK(value("42") == 42);
  CHECK(value("0x2a") == 42);
  CHECK(value("0X2A") == 42);
  CHECK(value("052") == 42);
  CHECK(value("0b101010") == 42);  // binary: an extension, stap 4.8 rejects it
  CHECK(value("0B11") == 3);
  CHECK(value("0b" + std::string(64, '1')) == -1);
  CHECK(value("0") == 0);
  CHECK(value("9223372036854775807") == INT64_MAX);
  CHECK(value("-9223372036854775808") == INT64_MIN);
  CHECK(value("0xffffffffffffffff") == -1);
  CHECK(value("18446744073709551615") == -1);
  CHECK(one_error("probe begin { x = 18446744073709551616 }") ==
        "parse error: number invalid or out of range\n"
        "        saw: number '18446744073709551616' at <input>:1:19\n"
        "     source: probe begin { x = 18446744073709551616 }\n"
        "                               ^\n\n");
  CHECK(one_error("probe begin { x = 0x1g }").find("number invalid or out of range") !=
        std::string::npos);
  CHECK(one_error("probe begin { x = 09 }").find("number invalid or out of range") !=
        std::string::npos);
  CHECK(one_error("probe begin { x = 12abc }").find("number invalid or out of range") !=
        std::string::npos);
  for (const char* bad : {"0x", "0b", "0B", "0b102", "0b1a"}) {
    INFO("number: " << bad);
    CHECK(one_error(std::string("probe begin { x = ") + bad + " }")
              .find("number invalid or out of range") != std::string::npos);
  }
  CHECK(one_error("probe begin { x = 0b1" + std::string(64, '0') + " }")
            .find("number invalid or out of range") != std::string::npos);
}

TEST_CASE("parser: operator locations are the operator's", "[parser]") {
  Parsed p("probe begin { x = a / b }");
  auto* assign = expr_of<ast::AssignExpr>(p);
  CHECK(assign->loc.column == 17);
  auto* div = dynamic_cast<ast::BinaryExpr*>(assign->value);
  REQUIRE(div);
  CHECK(div->op == "/");
  CHECK(div->loc.column == 21);
  CHECK(div->left->loc.column == 19);
}

TEST_CASE("parser: in and array indexes", "[parser]") {
  {
    Parsed p("probe begin { [k, *] in a }");
    auto* in = expr_of<ast::InExpr>(p);
    CHECK(dynamic_cast<ast::Symbol*>(in->index->base)->name == "a");
    CHECK(in->index->indexes.size() == 2);
    CHECK(in->index->indexes[1] == nullptr);
  }
  {
    Parsed p("probe begin { k in a }");
    auto* in = expr_of<ast::InExpr>(p);
    CHECK(dynamic_cast<ast::Symbol*>(in->index->indexes[0])->name == "k");
  }
  CHECK(one_error("probe begin { x = a[*] }").find(
            "'*' may only index an array in delete, 'in' and foreach") != std::string::npos);
  CHECK(one_error("probe begin { x = a[1 }").find("expected one of '] ,'") != std::string::npos);
  CHECK(one_error("probe begin { x = a in 1 }").find("expected identifier") != std::string::npos);
  CHECK(one_error("probe begin { x = a =~ b }").find("expected literal string") != std::string::npos);
}

TEST_CASE("parser: calls and the print family", "[parser]") {
  {
    Parsed p("probe begin { f(1, \"a\") }");
    auto* c = expr_of<ast::CallExpr>(p);
    CHECK(c->name == "f");
    CHECK(c->args.size() == 2);
  }
  CHECK(one_error("probe begin { f(1 }").find("expected one of ') ,'") != std::string::npos);
  CHECK(one_error("probe begin { f(1,) }").find("expected literal string or number") !=
        std::string::npos);
  CHECK(one_error("probe begin { printf(x) }") ==
        "parse error: expected literal string\n"
        "        saw: identifier 'x' at <input>:1:22\n"
        "     source: probe begin { printf(x) }\n"
        "                                  ^\n\n");
  CHECK(one_error("probe begin { printf(\"%d\" . \"x\", 1) }").find("expected one of ', )'") !=
        std::string::npos);
  CHECK(one_error("probe begin { printdln(1, 2, 3) }").find("expected literal string") !=
        std::string::npos);
  // Short of two values after the delimiter, stap reads a ')' as a
  // separator and blames what follows it.
  CHECK(one_error("probe begin { printd(\", \", 1) }") ==
        "parse error: expected literal string or number\n"
        "        saw: operator '}' at <input>:1:31\n"
        "     source: probe begin { printd(\", \", 1) }\n"
        "                                           ^\n\n");
  CHECK(one_error("probe begin { printdln(\",\") 5 }").find("expected one of ', )'\n"
                                                          "        saw: operator '}'") !=
        std::string::npos);
  CHECK(one_error("probe begin { print() }").find("expected literal string or number") !=
        std::string::npos);
  CHECK(one_error("probe begin { println(1 }").find("expected one of ', )'") !=
        std::string::npos);
  CHECK(Parsed("probe begin { println() }").diags.error_count() == 0);
  // The print family is syntax: the name alone is not a variable.
  CHECK(one_error("probe begin { x = println + 1 }") ==
        "parse error: expected '('\n"
        "        saw: operator '+' at <input>:1:27\n"
        "     source: probe begin { x = println + 1 }\n"
        "                                       ^\n\n");
  CHECK(Parsed("function print(x) { } probe begin { }").diags.error_count() == 0);
  CHECK(one_error("probe begin { x = @ + 1 }").find("unknown operator @\n"
                                                   "        saw: operator '@'") !=
        std::string::npos);
}

TEST_CASE("parser: target variables", "[parser]") {
  {
    Parsed p("probe begin { $p->a[2]->b[i + 1] }");
    auto* t = expr_of<ast::TargetSymbol>(p);
    CHECK(t->name == "$p");
    REQUIRE(t->components.size() == 4);
    CHECK(t->components[0].field == "a");
    CHECK(t->components[1].kind == ast::TargetComponent::Kind::literal_index);
    CHECK(t->components[1].index == 2);
    CHECK(t->components[3].kind == ast::TargetComponent::Kind::expr_index);
    CHECK(t->components[3].index_expr != nullptr);
    CHECK(t->pretty == 0);
  }
  auto pretty = [](const std::string& text) {
    Parsed p("probe begin { " + text + " }");
    auto* t = expr_of<ast::TargetSymbol>(p);
    return t->name + "/" + std::to_string(t->components.size()) + "/" + std::to_string(t->pretty);
  };
  CHECK(pretty("$var$") == "$var/0/1");
  CHECK(pretty("$var$$") == "$var/0/2");
  CHECK(pretty("$$vars$") == "$$vars/0/1");
  CHECK(pretty("$$parms") == "$$parms/0/0");
  CHECK(pretty("$var->$") == "$var/0/1");
  CHECK(pretty("$var->a$$") == "$var/1/2");
  CHECK(pretty("$var->a->$$") == "$var/1/2");
  CHECK(pretty("$var[1]$") == "$var/1/1");
  {
    Parsed p("probe begin { &$var->f }");
    CHECK(expr_of<ast::TargetSymbol>(p)->address_of);
  }
  CHECK(one_error("probe begin { x = $x-> }").find("expected identifier or keyword") !=
        std::string::npos);
  // stap 2.6's autocast: components on any other value.
  {
    Parsed p("probe begin { t->pid }");
    CHECK(p.diags.error_count() == 0);
    auto* a = expr_of<ast::Autocast>(p);
    REQUIRE(a);
    CHECK(dynamic_cast<ast::Symbol*>(a->operand));
    CHECK(a->components.size() == 1);
    CHECK(!a->address_of);
  }
  {
    Parsed p("probe begin { &f()->a[2]$ }");
    auto* a = expr_of<ast::Autocast>(p);
    REQUIRE(a);
    CHECK(dynamic_cast<ast::CallExpr*>(a->operand));
    CHECK(a->address_of);
    CHECK(a->components.size() == 2);
    CHECK(a->pretty == 1);
  }
  // Before 2.6 (--compatible=2.5) '&' and '->' take target variables only.
  {
    SourceManager sources;
    Diagnostics diags(sources);
    ast::Arena arena;
    FileId id = sources.add("<input>", "probe begin { x = &y }", FileOrigin::command_line);
    parse_tokens(lex(sources, id, diags), "<input>", id, arena, diags, false, nullptr,
                 Dialect{.autocast = false});
    std::ostringstream out;
    diags.flush(out);
    CHECK(out.str().find("expected @cast, @var or $var") != std::string::npos);
  }
}

TEST_CASE("parser: @cast, @var and the @-operators", "[parser]") {
  {
    Parsed p("probe begin { &@cast(p, \"task_struct\", \"kernel\")->pid }");
    auto* c = expr_of<ast::CastExpr>(p);
    CHECK(c->type_name == "task_struct");
    CHECK(c->module == "kernel");
    CHECK(c->address_of);
    CHECK(c->components.size() == 1);
  }
  {
    Parsed p("probe begin { @var(\"n@f.c\")->x }");
    auto* v = expr_of<ast::AtVar>(p);
    CHECK(v->name == "n@f.c");
    CHECK(v->module.empty());
  }
  auto op = [](const std::string& text) {
    Parsed p("probe begin { " + text + " }", false, "<input>", true);
    auto* a = expr_of<ast::AtOp>(p);
    return a->op + "/" + std::to_string(a->operands.size());
  };
  CHECK(op("@entry($x)") == "entry/1");
  CHECK(op("@defined($x->y)") == "defined/1");
  CHECK(op("@choose_defined($x, 0)") == "choose_defined/2");
  CHECK(op("@const(\"X\")") == "const/1");
  CHECK(op("@kregister(0)") == "kregister/1");
  CHECK(op("@uregister(1)") == "uregister/1");
  CHECK(op("@probewrite(v)") == "probewrite/1");
  CHECK(op("@errno") == "errno/0");
  CHECK(one_error("probe begin { x = @foo(1) }") ==
        "parse error: unknown operator @foo\n"
        "        saw: operator '@foo' at <input>:1:19\n"
        "     source: probe begin { x = @foo(1) }\n"
        "                               ^\n\n");
  CHECK(one_error("probe begin { x = @cast(p) }").find("expected ','") != std::string::npos);
  // stap says "expected string" in @cast, @var and @const ...
  CHECK(one_error("probe begin { x = @cast(p, t) }").find("expected string\n") !=
        std::string::npos);
  CHECK(one_error("probe begin { x = @var(v) }").find("expected string\n") !=
        std::string::npos);
  // ... and "expected literal string" after =~ and in printf.
  CHECK(one_error("probe begin { x = a =~ b }").find("expected literal string\n") !=
        std::string::npos);
  CHECK(one_error("probe begin { printf(f) }").find("expected literal string\n") !=
        std::string::npos);
  CHECK(one_error("probe begin { x = @choose_defined(a) }").find("expected ','") !=
        std::string::npos);
}

TEST_CASE("parser: statistics and histograms", "[parser]") {
  {
    Parsed p("probe begin { @variance(s[1], 3) }");
    auto* s = expr_of<ast::StatExpr>(p);
    CHECK(s->op == ast::StatOp::variance);
    CHECK(dynamic_cast<ast::ArrayIndex*>(s->operand));
    CHECK(dynamic_cast<ast::NumberLit*>(s->shift)->value == 3);
  }
  {
    Parsed p("probe begin { @hist_linear(s, -10, 10, 2)[3] }");
    auto* bucket = expr_of<ast::ArrayIndex>(p);
    auto* h = dynamic_cast<ast::HistExpr*>(bucket->base);
    REQUIRE(h);
    CHECK(h->linear);
    CHECK(dynamic_cast<ast::NumberLit*>(h->low)->value == -10);
    CHECK(bucket->indexes.size() == 1);
  }
  CHECK(one_error("probe begin { print(@hist_linear(s, x, 10, 2)) }") ==
        "parse error: expected number\n"
        "        saw: identifier 'x' at <input>:1:37\n"
        "     source: probe begin { print(@hist_linear(s, x, 10, 2)) }\n"
        "                                                 ^\n\n");
  CHECK(one_error("probe begin { x = @variance(s, y) }").find("expected number") !=
        std::string::npos);
}

// ---------------------------------------------------------------- recovery

TEST_CASE("parser: parse_file runs the preprocessor first", "[parser]") {
  Parsed p("probe begin { x = %( 1 == 1 %? 5 %: 6 %) }", true);
  REQUIRE(p.diags.error_count() == 0);
  auto* assign = expr_of<ast::AssignExpr>(p);
  CHECK(dynamic_cast<ast::NumberLit*>(assign->value)->value == 5);
  CHECK_FALSE(p.file->is_tapset);
}
