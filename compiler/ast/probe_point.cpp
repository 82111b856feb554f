#include "ast/ast.h"

#include "parse/printer.h"

namespace stap::ast {

// Components only: the '?' / '!' marks and the condition are printed by
// whoever prints the whole point (-p1, -p2), from the flags.
std::string ProbePoint::to_string() const {
  std::string out;
  for (size_t i = 0; i < components.size(); ++i) {
    const ProbePointComponent& c = components[i];
    if (i > 0) out += '.';
    out += c.functor;
    if (!c.arg) continue;
    out += '(';
    if (auto* n = dynamic_cast<const NumberLit*>(c.arg)) out += number_text(*n);
    else if (auto* s = dynamic_cast<const StringLit*>(c.arg)) out += quote_string(s->value);
    out += ')';
  }
  return out;
}

}  // namespace stap::ast
