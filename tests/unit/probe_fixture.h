// A small pass-1/pass-2 harness for the probe-side tests: a tapset library
// loaded from a directory, user scripts parsed into a Program, and alias
// expansion run over them, with the diagnostics rendered to a string.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "elaborate/alias_expansion.h"
#include "elaborate/program.h"
#include "elaborate/tapset_library.h"
#include "parse/parser.h"
#include "parse/preprocessor.h"

namespace stap::test {

inline std::string test_tapset_dir() { return std::string(STAP_TEST_DATA_DIR) + "/data/tapsets"; }

struct ProbeFixture {
  SourceManager sources;
  Diagnostics diags{sources};
  ast::Arena arena;
  MacroTable macros;
  PreprocessorEnv env;
  TapsetLibrary library;
  Program program;

  void load(const std::vector<std::string>& dirs) {
    library.load(dirs, env, macros, sources, arena, diags);
  }
  ast::File& parse(const std::string& text) {
    FileId id = sources.add("<input>", text, FileOrigin::user_script);
    macros.begin_file();
    program.files.push_back(parse_file(sources, id, env, macros, arena, diags));
    return *program.files.back();
  }
  bool expand() { return expand_aliases(program, library, arena, sources, diags); }
  // The derived points as stap prints them, in order.
  std::vector<std::string> points() const {
    std::vector<std::string> out;
    for (const DerivedProbe& p : program.probes) out.push_back(point_text(*p.point));
    return out;
  }
  std::string messages() {
    std::ostringstream out;
    for (const Diagnostic& d : diags.all()) diags.render(d, out);
    return out.str();
  }
};

// The first probe point of a one-probe script, for provider tests.
inline ast::ProbePoint& first_point(ProbeFixture& f, const std::string& point) {
  ast::File& file = f.parse("probe " + point + " {}");
  return *file.probes.at(0)->points.at(0);
}

}  // namespace stap::test
