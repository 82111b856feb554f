// Deep copies of AST subtrees into an Arena, for alias expansion (each
// derived probe gets its own copy of the alias prologue/epilogue and of
// the user's body) and for function inlining.
//
// Every node is new; elaborate: fields (Symbol::decl, CallExpr::decl,
// types) are copied as they are, so clone before resolving, or re-resolve
// the copy.  An optional hook rewrites each location as it is copied: alias
// expansion uses it to chain the copied code's locations back to the user's
// probe (see alias_expansion.cpp).
#pragma once

#include <functional>

#include "ast/ast.h"

namespace stap::ast {

using LocMap = std::function<SourceLoc(SourceLoc)>;

Expr* clone(const Expr* e, Arena& arena, const LocMap& map_loc = {});
Stmt* clone(const Stmt* s, Arena& arena, const LocMap& map_loc = {});
Block* clone(const Block* b, Arena& arena, const LocMap& map_loc = {});
ProbePoint* clone(const ProbePoint* p, Arena& arena, const LocMap& map_loc = {});

}  // namespace stap::ast
