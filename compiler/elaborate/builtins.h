// The builtin functions: one table, one entry per (name, arity).
//
// Two kinds live here.  The print family (print, printf, sprint ...) is
// part of the stap language.  The rest (pid, execname, strlen, exit ...)
// are tapset functions in SystemTap, mostly embedded C; here the engine
// implements them, so they are builtins, but -p2 lists the used ones under
// "# functions" as stap lists tapset functions (`listed`).  A script or
// tapset function of the same name and arity wins over a builtin, as a
// user function shadows a tapset one in stap.
//
// What a builtin needs from pass 2 is its signature; argument checks that
// depend on the call (the printf format) are a hook of the entry, so the
// type checker never tests names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "base/format_string.h"

namespace stap {

// Where a builtin can run once lowered: in BPF (kernel context), in the
// user-space runtime (begin/end/timer bodies), or both.
enum class BuiltinContext : uint8_t { both, kernel, user };

// How a builtin takes its arguments.
enum class ArgShape : uint8_t {
  fixed,      // exactly `params`
  values,     // print, println, sprint, sprintln: any number of long/string values
  delimited,  // printd, printdln, sprintd, sprintdln: string delimiter, then values
  format,     // printf, sprintf: literal format, then what its conversions take
};

struct BuiltinParam {
  const char* name;
  ast::Type type;
};

struct Builtin;

// Fills `types` with the type each argument must have (Type::unknown: any
// long or string) and returns true, or returns false after reporting a
// located error into diags (null while the type checker iterates quietly).
// Set for shapes whose argument types depend on the call.
using ArgTypesHook = bool (*)(const Builtin& builtin, const ast::CallExpr& call,
                              std::vector<ast::Type>& types, Diagnostics* diags);

struct Builtin {
  const char* name;
  ast::Type return_type;            // Type::unknown: returns nothing
  std::vector<BuiltinParam> params;  // for ArgShape::fixed
  ArgShape shape = ArgShape::fixed;
  BuiltinContext context = BuiltinContext::both;
  bool listed = true;  // shown in -p2 "# functions" (a tapset function in stap)
  bool pure = false;   // no side effect: a call whose value is unused is elided
  ArgTypesHook arg_types = nullptr;  // null: from params / shape
  // The builtin the IR knows this one as, when stap's tapsets give it a
  // second name (print_syms is print_stack); "" when it does nothing
  // here (asmlinkage()); null: its own name.
  const char* lowers_as = nullptr;

  std::string_view ir_name() const { return lowers_as ? lowers_as : name; }

  // "strlen:long (s:string)" as -p2 prints it.
  std::string signature() const;
  bool variadic() const { return shape != ArgShape::fixed; }
  size_t min_args() const;
};

const std::vector<Builtin>& all_builtins();
// The builtin of that name taking `arity` arguments, or null.
const Builtin* find_builtin(std::string_view name, size_t arity);
// Whether any builtin has that name (for arity messages and suggestions).
bool is_builtin_name(std::string_view name);

// The argument types a call to `builtin` needs; reports a located error
// (when diags is non-null) and returns false when the call cannot be
// right (wrong format).
bool builtin_arg_types(const Builtin& builtin, const ast::CallExpr& call,
                       std::vector<ast::Type>& types, Diagnostics* diags);

// ---------------------------------------------------------------- formats

// The types of the arguments a parsed printf format consumes, in order
// ('*' widths and precisions take a long before their value).  Formats are
// read by base/format_string.h.
std::vector<ast::Type> format_arg_types(const std::vector<PrintfPiece>& pieces);

}  // namespace stap
