// Pass 1b: token rewriting before parsing.
//
//  - %( COND %? THEN [%: ELSE] %) conditionals, nestable, anywhere in the
//    token stream (around whole probes or inside expressions).  COND is
//    "kernel_v OP \"ver\"", "kernel_vr OP \"ver\"", "arch OP \"x86_64\"",
//    "CONFIG_X OP \"y\"|NUM", "systemtap_v OP \"5.0\"", "runtime OP
//    \"bpf\"", "$# OP N", "@# OP N", literal comparisons, combined with
//    && and || (&& binds tighter; no parentheses, as in stap).  Versions
//    compare with strverscmp(3), as stap's do; a right side holding a
//    glob (* ? [) is matched with fnmatch(3), allowed with == and != only.
//    arch, runtime and CONFIG_X == "str" match globs too.  CONFIG values
//    are compared as stored (an unset one is "", or 0 against a number).
//  - @define NAME(a, b) %( body %) definitions and @NAME(x, y) uses, with
//    parameters referenced as @a in the body; macros from .stpm library
//    files are visible everywhere, a script's own only in that script.
//  - $1..$N (raw token text re-lexed) and @1..@N (a string), $# and @#;
//    a missing argument is an error at its use.
//
// Tokens from a macro body carry an expansion id in their SourceLoc, so
// errors inside them show "in expansion of macro ..." back to the script.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "base/source.h"
#include "parse/token.h"

namespace stap {

// What %( %) conditions can test.  Filled by the driver from uname(2),
// /proc/config.gz (or /boot/config-*) and the command line.
struct PreprocessorEnv {
  std::string kernel_v;   // "6.18.44"            (release without extra)
  std::string kernel_vr;  // "6.18.44-fc-v509"    (full release)
  std::string arch = "x86_64";
  std::string systemtap_v = "5.0";
  std::string runtime = "bpf";
  // CONFIG_X -> y, m, 42, "str": the value as .config writes it, quotes
  // kept (stap compares them: CONFIG_DEFAULT_HOSTNAME == "(none)" is false).
  std::map<std::string, std::string> kernel_config;
  std::vector<std::string> args;                     // $1.. / @1..
  std::string privilege = "stapdev";                 // systemtap_privilege
  bool guru_mode = false;                            // guru_mode (-g)
};

// stap lexes and preprocesses lazily, as its parser asks for tokens, so
// its pass-1 diagnostics come in stream order; pass 1 here runs its stages
// one after the other and records where each diagnostic arose instead
// (parse_file() then says them in that order).
struct StreamOrder {
  static constexpr size_t kUnsaid = SIZE_MAX;
  // Per diagnostic of the Diagnostics the stages report to: the index of
  // the output token at (before) which it arose, or kUnsaid.
  std::vector<size_t> position;
  // Errors stap keeps in a junk token and says only when its parser
  // reaches that token while parsing, not while skipping after an error
  // or in an untaken branch: the lexer's, and $N/@N that cannot be
  // substituted.  Output index of the empty junk token -> diagnostic,
  // whose position stays kUnsaid until the parser gets there.
  std::map<size_t, size_t> junk;
};

struct MacroDef {
  std::string name;
  std::vector<std::string> params;
  std::vector<Token> body;
  SourceLoc loc;
  bool from_library = false;  // defined in a .stpm file: visible everywhere
};

// Library macros persist across files; script-local ones are dropped by
// begin_file().
class MacroTable {
 public:
  void define(MacroDef def);
  const MacroDef* find(const std::string& name) const;  // local first
  const MacroDef* find_local(const std::string& name) const;
  const MacroDef* find_library(const std::string& name) const;
  const std::map<std::string, MacroDef>& locals() const { return local_; }
  void begin_file();  // forget the previous file's local macros

 private:
  std::map<std::string, MacroDef> library_;
  std::map<std::string, MacroDef> local_;
};

// Rewrites the tokens of one file (it starts with macros.begin_file()).
// For a .stpm file (FileOrigin::macro_library) only @define is allowed
// and, if the file has no error, its macros become library macros.
//
// As in stap: macro uses in the taken text expand (an unknown @name is
// left for the parser); untaken branches are skipped unexpanded, errors
// in them included; $N/@N are substituted as stap's lexer does, so a
// missing argument is only an error where the text is used.  Substituted
// argument tokens take the location of the $N (stap shows no chain for
// them); macro tokens get an expansion whose text is stap's
// "\tin expansion of macro: operator '@foo'".  After an error the
// stream holds an empty junk token (see token.h) and goes on.
//
// order (when given) records where each diagnostic arose in the stream,
// see StreamOrder.  Diagnostics already in diags on entry must be the
// lexer's of `tokens`, one per empty junk token.
std::vector<Token> preprocess(std::vector<Token> tokens, const PreprocessorEnv& env,
                              MacroTable& macros, SourceManager& sources,
                              Diagnostics& diags, StreamOrder* order = nullptr);

// Compares two dotted versions as stap does: -1, 0, 1.
int compare_versions(const std::string& a, const std::string& b);

}  // namespace stap
