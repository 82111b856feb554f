// Pass 2 end to end for the semantic tests: user scripts parsed into a
// Program, elaborate() run over them with the given options, and the -p2
// print and the rendered diagnostics available as strings.
#pragma once

#include <sstream>
#include <string>

#include "elaborate/elaborate.h"
#include "probe_fixture.h"

namespace stap::test {

struct ElaborateFixture : ProbeFixture {
  ElaborateOptions options;

  explicit ElaborateFixture(bool keep_unused = false) { options.keep_unused = keep_unused; }

  // Parses `script` as "<input>" and elaborates; returns elaborate()'s result.
  bool run(const std::string& script) {
    parse(script);
    REQUIRE(diags.error_count() == 0);
    return elaborate(program, library, options, arena, sources, diags);
  }
  std::string printed(int verbose = 0) const {
    std::ostringstream out;
    print_program(program, out, verbose);
    return out.str();
  }
  ast::VarDecl* global(const std::string& name) const {
    for (ast::VarDecl* g : program.globals)
      if (g->name == name) return g;
    return nullptr;
  }
  ast::VarDecl* local(size_t probe, const std::string& name) const {
    for (ast::VarDecl* l : program.probes.at(probe).decl->locals)
      if (l->name == name) return l;
    return nullptr;
  }
  ast::FunctionDecl* function(const std::string& name, size_t arity) const {
    for (ast::FunctionDecl* f : program.functions)
      if (f->name == name && f->params.size() == arity) return f;
    return nullptr;
  }
};

}  // namespace stap::test
