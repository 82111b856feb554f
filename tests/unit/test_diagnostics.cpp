// Diagnostics render in SystemTap's layout.
#include <catch2/catch.hpp>

#include <sstream>

#include "base/diagnostics.h"

namespace {
std::string render_all(stap::Diagnostics& d) {
  std::ostringstream out;
  d.flush(out);
  return out.str();
}
}  // namespace

TEST_CASE("parse errors name the token on a saw: line with a caret under it") {
  stap::SourceManager sm;
  stap::FileId f = sm.add("<input>", "probe begin { x = }", stap::FileOrigin::user_script);
  stap::Diagnostics d(sm);
  d.parse_error({f, 1, 19}, "expected literal string or number", "operator '}'");
  CHECK(render_all(d) ==
        "parse error: expected literal string or number\n"
        "        saw: operator '}' at <input>:1:19\n"
        "     source: probe begin { x = }\n"
        "                               ^\n"
        "\n");
  CHECK(d.error_count() == 1);
}

TEST_CASE("semantic errors and warnings align labels to their category") {
  stap::SourceManager sm;
  stap::FileId f = sm.add("t.stp", "probe begin {\n\tx = 1; x = \"s\" }\n", stap::FileOrigin::user_script);
  stap::Diagnostics d(sm);
  d.semantic_error({f, 2, 9}, "type mismatch (string)", "identifier 'x'");
  d.warning({f, 2, 2}, "Eliding assignment to 'x'", "operator '='");
  CHECK(render_all(d) ==
        "semantic error: type mismatch (string): identifier 'x' at t.stp:2:9\n"
        "        source: \tx = 1; x = \"s\" }\n"
        "                \t       ^\n"
        "\n"
        "WARNING: Eliding assignment to 'x': operator '=' at t.stp:2:2\n"
        " source: \tx = 1; x = \"s\" }\n"
        "         \t^\n");
  CHECK(d.warning_count() == 1);
}

TEST_CASE("-w drops warnings, -W turns them into errors") {
  stap::SourceManager sm;
  stap::FileId f = sm.add("t.stp", "x", stap::FileOrigin::user_script);
  stap::Diagnostics quiet(sm);
  quiet.set_suppress_warnings(true);
  quiet.warning({f, 1, 1}, "w");
  CHECK(render_all(quiet).empty());
  stap::Diagnostics strict(sm);
  strict.set_warnings_are_errors(true);
  strict.warning({f, 1, 1}, "w");
  CHECK(strict.error_count() == 1);
  CHECK(render_all(strict).rfind("semantic error: w at t.stp:1:1\n", 0) == 0);
}

TEST_CASE("errors inside an expansion show the chain back to the script") {
  stap::SourceManager sm;
  stap::FileId script = sm.add("s.stp", "probe begin { @twice(1) }", stap::FileOrigin::user_script);
  stap::FileId lib = sm.add("m.stpm", "@define twice(x) %( @x * * 2 %)", stap::FileOrigin::macro_library);
  uint32_t exp = sm.add_expansion("in expansion of macro: operator '@twice'", {script, 1, 15});
  stap::Diagnostics d(sm);
  d.parse_error({lib, 1, 26, exp}, "expected expression", "operator '*'");
  std::string text = render_all(d);
  CHECK(text.find("saw: operator '*' at m.stpm:1:26\n") != std::string::npos);
  CHECK(text.find("in expansion of macro: operator '@twice' at s.stp:1:15\n"
                  "     source: probe begin { @twice(1) }\n"
                  "                           ^\n") != std::string::npos);
}

TEST_CASE("line_text copes with out-of-range lines and a missing final newline") {
  stap::SourceManager sm;
  stap::FileId f = sm.add("t", "a\nbc", stap::FileOrigin::user_script);
  CHECK(sm.line_text(f, 1) == "a");
  CHECK(sm.line_text(f, 2) == "bc");
  CHECK(sm.line_text(f, 3).empty());
  CHECK(sm.line_text(f, 0).empty());
}

TEST_CASE("the same message at the same place is reported once") {
  stap::SourceManager sm;
  stap::FileId f = sm.add("t", "x y", stap::FileOrigin::user_script);
  stap::Diagnostics d(sm);
  d.semantic_error({f, 1, 1}, "bad");
  d.semantic_error({f, 1, 1}, "bad");
  d.semantic_error({f, 1, 3}, "bad");
  CHECK(d.error_count() == 2);
  CHECK(d.all().size() == 2);
}

TEST_CASE("errors inside a tapset say where the script needed it") {
  stap::SourceManager sm;
  stap::FileId script = sm.add("s.stp", "probe begin { f() }", stap::FileOrigin::user_script);
  stap::FileId lib = sm.add("lib.stp", "function f() { g() }", stap::FileOrigin::tapset);
  sm.set_needed_at(lib, {script, 1, 15});
  stap::Diagnostics d(sm);
  d.semantic_error({lib, 1, 16}, "unresolved function g", "identifier 'g'");
  CHECK(render_all(d) ==
        "semantic error: unresolved function g: identifier 'g' at lib.stp:1:16\n"
        "        source: function f() { g() }\n"
        "                               ^\n"
        "in tapset lib.stp, needed at s.stp:1:15\n"
        "        source: probe begin { f() }\n"
        "                              ^\n"
        "\n");
}
