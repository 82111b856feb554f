// Pass 1c: tokens -> AST.
//
// A recursive-descent parser for the whole stap language (see
// ../shared/REFERENCE.md): probes and aliases with every probe-point form,
// functions, globals, all statements and operators with stap's precedence,
// target variables and @-operators.  On an error it reports, skips to the
// next statement or top-level declaration and goes on, so one run shows
// several errors.  Embedded C (%{ %}) anywhere is a located error: the BPF
// runtime cannot run it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "parse/preprocessor.h"
#include "parse/token.h"

namespace stap {

// Parses preprocessed tokens.  Never returns null; on errors the file holds
// what could be parsed.  Without guru_mode (-g) @const and @kregister are
// parse errors, as in stap.  order (see StreamOrder) gets, for each
// diagnostic this adds to diags, the index of its token, and the junk
// tokens' diagnostics the parser reaches.  dialect: what the SystemTap
// version of --compatible parses.
struct Dialect {
  bool autocast = true;              // 2.6+; before, '&' and '->' take target variables only
  bool glue_across_comments = true;  // 2.0+: "a" /* c */ "b" is "ab"; before, two literals
  static Dialect of_version(const std::string& systemtap_v);
};
std::unique_ptr<ast::File> parse_tokens(const std::vector<Token>& tokens,
                                        const std::string& file_name, FileId file,
                                        ast::Arena& arena, Diagnostics& diags,
                                        bool guru_mode = false,
                                        StreamOrder* order = nullptr, Dialect dialect = {});


// lex + preprocess + parse one file of the SourceManager; guru mode is
// env.guru_mode, or always for a tapset file.
std::unique_ptr<ast::File> parse_file(SourceManager& sources, FileId file,
                                      const PreprocessorEnv& env, MacroTable& macros,
                                      ast::Arena& arena, Diagnostics& diags);

}  // namespace stap
