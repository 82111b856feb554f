// DWARF variables of process("P").function/.statement probes ($param,
// $local, $p->f, $$parms, $$locals, $$vars, $return, @entry).
//
// Reading them is being built: until then a located error says so.
#include "debuginfo/process_points.h"
#include "elaborate/typecheck.h"
#include "lower/lowerer.h"

namespace stap::lower {

ir::Node* Lowerer::dwarf_target(ast::TargetSymbol& n, bool) {
  error(n.loc, "target variables of process function probes are not readable by this engine yet",
        describe_expr(n));
  return num(0);
}

std::optional<bool> Lowerer::dwarf_exists(const ast::Expr*) { return std::nullopt; }

}  // namespace stap::lower
