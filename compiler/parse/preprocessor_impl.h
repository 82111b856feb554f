// Internals of pass 1b, shared by preprocessor.cpp (conditionals, the
// driver loop) and macros.cpp (command-line arguments, @define, macro
// expansion).  Not for use outside those two files.
//
// Layers, each pulling tokens from the one below, as stap's are:
//   input tokens, with $N/@N/$#/@# already substituted (substitute_args)
//   -> scan_macros(): @define recorded, macro uses expanded
//   -> next_output(): %( %? %: %) conditionals evaluated, branches skipped
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parse/preprocessor.h"

namespace stap::pp {

// Thrown after an error has been reported: the driver loop leaves an
// empty junk token where the error was and goes on, as stap's parser
// resumes after a preprocessor exception.
struct Abort {
  SourceLoc loc;
  // Set when the whole expansion of a macro use is abandoned: the output
  // from this index on (what the use gave before the error) is dropped.
  std::optional<size_t> discard_from;
};

// A macro parameter's actual text, expanded where @param is used, in the
// context (the parameters) of the invocation that supplied it.
struct Closure;
using ParamMap = std::map<std::string, std::shared_ptr<const Closure>>;
struct Closure {
  std::vector<Token> body;
  std::shared_ptr<const ParamMap> env;
};

// One macro (or parameter) being expanded.
struct Activation {
  Token use;  // the @name being expanded
  const std::vector<Token>* body = nullptr;
  std::shared_ptr<const Closure> closure;  // keeps a parameter's body alive
  std::shared_ptr<const ParamMap> params;  // what @name means inside
  size_t cursor = 0;
  uint32_t expansion = 0;   // stamped on every token of the body
  bool library = false;     // a library macro sees only library macros
};

class Preprocessor {
 public:
  Preprocessor(const PreprocessorEnv& env, MacroTable& macros, SourceManager& sources,
               Diagnostics& diags)
      : env_(env), macros_(macros), sources_(sources), diags_(diags) {}

  std::vector<Token> run(std::vector<Token> tokens);
  void set_stream_order(StreamOrder* order);  // see preprocess()

 private:
  // --- errors (preprocessor.cpp) ---
  // Reports "parse error: MESSAGE / at: TOKEN" and throws Abort.  A token
  // standing for a bad argument reports the argument's problem instead,
  // as stap's junk tokens do.
  [[noreturn]] void fail(const Token& at, const std::string& message);
  void report(const Token& at, const std::string& message);
  // Stream order: diagnostics reported since the last call arose at
  // out_size_; junk tokens hold the lexer's and bad arguments'.
  void note_positions();
  void note_emitted(const Token& t);
  Token defer_bad_arg(const Token& t);

  // --- conditionals (preprocessor.cpp) ---
  enum class Branch { keep_then, skip_then, keep_else, skip_else };
  struct Conditional {
    Token open;  // the %( token
    Branch branch;
  };
  std::optional<Token> next_output();
  std::optional<Token> skip_branch();
  void discard_output(std::vector<Token>& out, size_t from);
  bool eval_condition(const Token& open);
  bool eval_test(const Token& l, const Token& op, const Token& r);
  bool eval_config(const Token& l, const Token& op, const Token& r);
  const Token& or_eof(const std::optional<Token>& t) const { return t ? *t : eof_; }

  // --- command-line arguments (macros.cpp) ---
  struct ArgText {
    bool lexed = false;
    std::vector<Token> tokens;
    std::string error;  // why $N cannot be substituted
  };
  void substitute_args(std::vector<Token>& tokens);
  const ArgText& arg_text(size_t index);  // 1-based
  // Message for a $N/@N left in the stream because it cannot be
  // substituted; empty for any other token.
  std::string bad_arg_message(const Token& t);

  // --- macros (macros.cpp) ---
  std::optional<Token> next_in_source();  // current body or input; no pop
  std::optional<Token> scan_macros(bool skipping);
  void define_macro(const Token& at_define);
  void read_macro_header(MacroDef& def);
  std::vector<Token> read_macro_body(const Token& name);
  bool invoke_macro(const Token& use);
  std::shared_ptr<ParamMap> read_macro_args(const Token& use, const MacroDef& def);
  void commit_library_macros();

  const PreprocessorEnv& env_;
  MacroTable& macros_;
  SourceManager& sources_;
  Diagnostics& diags_;

  std::vector<Token> input_;
  size_t input_pos_ = 0;
  Token eof_;
  bool library_file_ = false;
  std::vector<Activation> stack_;
  size_t expanded_tokens_ = 0;  // taken from macro bodies in this file
  size_t expansion_start_ = 0;  // output index where the outermost use began
  // "\tin expansion of macro: operator '@name'" per @name, interned.
  std::unordered_map<std::string, std::string_view> expansion_texts_;
  std::vector<Conditional> conditionals_;
  std::map<size_t, ArgText> args_;

  StreamOrder* order_ = nullptr;
  size_t out_size_ = 0;      // tokens emitted so far
  size_t lexer_diags_ = 0;   // diagnostics of the lexer, first in diags_
  size_t lexer_read_ = 0;    // how many of them have been placed
};

}  // namespace stap::pp
