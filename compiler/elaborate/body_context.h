// What the code of a probe body may use besides script variables: target
// variables ($x, $$vars, $return) and @entry(), which only some probe
// families offer (providers/provider.h).  Function bodies offer neither:
// a function runs in no particular probe.
//
// Several derived probes can share one body ("probe begin, timer.s(1)
// {...}"); the body then has only what all of them have, and the first
// probe lacking something names it in messages.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ast/ast.h"
#include "elaborate/program.h"

namespace stap {

struct BodyContext {
  bool target_vars = true;
  bool entry_values = true;
  // For a body without target variables: what a $var there is told.
  std::string no_target_vars_message;
  // How stap names the body's (first) probe in "while processing probe
  // X": the point, or for a probe derived through aliases the alias name
  // the user's point matched and "from:" that point as written
  // ("golden.tick from: golden.t*").  Empty for functions.
  std::string probe_name;
  // The body's probes, to ask their providers the types of target
  // variables (ProbeProvider::target_var_type).
  std::vector<const DerivedProbe*> probes;
};

// The context of every probe body of the program.
std::unordered_map<const ast::ProbeDecl*, BodyContext> body_contexts(const Program& program);

// The context of a function body.
BodyContext function_context();

}  // namespace stap
