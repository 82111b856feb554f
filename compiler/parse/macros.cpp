// Pass 1b: command-line arguments ($1 @1 $# @#), @define and macro
// expansion.  See preprocessor_impl.h for how the layers fit.
#include <algorithm>
#include <set>

#include "parse/lexer.h"
#include "parse/preprocessor_impl.h"

namespace stap::pp {

namespace {

// A use nested deeper than this is taken for a recursive macro (stap
// itself loops forever on one).
constexpr size_t kMaxExpansionDepth = 200;

// Macro expansion may take at most this many tokens from macro bodies in
// one file.  Macros that use each other twice over grow exponentially
// (twenty levels: a million copies): past the limit the expansion is
// abandoned with an error, rather than the run taking minutes and
// gigabytes (stap has no limit).  Real scripts and tapsets stay far
// below; 10,000 uses of a macro nested 50 deep take 2.5 million, in about
// 0.4 s here (tests/bench/run_bench.sh).
constexpr size_t kMaxExpandedTokens = 4'000'000;

// @words of the language; a macro of that name gets a warning, as in stap.
const std::set<std::string, std::less<>> kBuiltinAtWords = {
    "cast", "defined", "probewrite", "entry", "perf", "var", "avg", "count",
    "sum", "min", "max", "hist_linear", "hist_log", "const", "variance"};

bool is_ident(const Token& t) { return t.kind == TokenKind::identifier; }
bool is_op_token(const std::optional<Token>& t, std::string_view text) {
  return t && t->is_op(text);
}

// "$12" / "@3" -> 12 / 3; 0 for anything else.
size_t arg_index(const Token& t) {
  if (!is_ident(t) || t.text.size() < 2 || (t.text[0] != '$' && t.text[0] != '@')) return 0;
  size_t n = 0;
  for (size_t i = 1; i < t.text.size(); ++i) {
    char c = t.text[i];
    if (c < '0' || c > '9') return 0;
    n = std::min<size_t>(n * 10 + (c - '0'), 1000000);
  }
  return n == 0 ? SIZE_MAX : n;  // "$0" is out of range, not "not an argument"
}

bool is_arg_ref(const Token& t) {
  return arg_index(t) != 0 || (is_ident(t) && (t.text == "$#" || t.text == "@#"));
}

}  // namespace

// ------------------------------------------------------------- arguments

// stap pastes an argument's text into the input where $N stands, so its
// tokens all sit at the $N; @N becomes one string token.  $N/@N that
// cannot be substituted stay in the stream and are reported only if they
// reach the parser or a condition (bad_arg_message).
void Preprocessor::substitute_args(std::vector<Token>& tokens) {
  std::vector<Token> out;
  out.reserve(tokens.size());
  std::string count = std::to_string(env_.args.size());
  for (Token& t : tokens) {
    if (t.kind != TokenKind::identifier || t.text.size() < 2) {
      out.push_back(std::move(t));
    } else if (t.text == "$#") {
      out.push_back(Token{TokenKind::number, count, t.loc});
    } else if (t.text == "@#") {
      out.push_back(Token{TokenKind::string, count, t.loc});
    } else if (size_t n = arg_index(t); n != 0 && n <= env_.args.size()) {
      if (t.text[0] == '@') {
        out.push_back(Token{TokenKind::string, env_.args[n - 1], t.loc});
      } else if (const ArgText& a = arg_text(n); a.error.empty()) {
        for (Token arg : a.tokens) {
          arg.loc = t.loc;
          out.push_back(std::move(arg));
        }
      } else {
        out.push_back(std::move(t));
      }
    } else {
      out.push_back(std::move(t));
    }
  }
  tokens = std::move(out);
}

const Preprocessor::ArgText& Preprocessor::arg_text(size_t index) {
  ArgText& a = args_[index];
  if (a.lexed) return a;
  a.lexed = true;
  SourceManager scratch;
  Diagnostics errors(scratch);
  FileId f = scratch.add("<argument>", env_.args[index - 1], FileOrigin::command_line);
  a.tokens = lex(scratch, f, errors);
  a.tokens.pop_back();  // end_of_input
  if (!errors.all().empty()) {
    a.error = errors.all().front().message;
  } else if (std::any_of(a.tokens.begin(), a.tokens.end(), is_arg_ref)) {
    a.error = "invalid nested substitution of command line arguments";
  }
  return a;
}

std::string Preprocessor::bad_arg_message(const Token& t) {
  size_t n = arg_index(t);
  if (n == 0) return {};
  if (n > env_.args.size())
    return "command line argument out of range [1-" + std::to_string(env_.args.size()) + "]";
  if (t.text[0] == '@') return {};  // cannot happen: @N is always a string
  return arg_text(n).error;
}

// ---------------------------------------------------------------- sources

std::optional<Token> Preprocessor::next_in_source() {
  if (!stack_.empty()) {
    Activation& act = stack_.back();
    if (act.cursor == act.body->size()) return std::nullopt;
    if (++expanded_tokens_ > kMaxExpandedTokens) {
      // The outermost use gives nothing: its output so far (up to the
      // limit's worth of tokens) would only cost the parser seconds.
      Token outer = stack_.front().use;
      stack_.clear();
      report(outer, "macro expansion too large: the macros used here give more than " +
                        std::to_string(kMaxExpandedTokens) + " tokens in this file");
      throw Abort{outer.loc, expansion_start_};
    }
    Token t = (*act.body)[act.cursor++];
    t.loc.expansion = act.expansion;
    return t;
  }
  if (input_pos_ + 1 >= input_.size()) return std::nullopt;  // end_of_input
  return input_[input_pos_++];
}

// The next token after @define handling and macro expansion.  While
// skipping an untaken branch nothing is defined or expanded.
std::optional<Token> Preprocessor::scan_macros(bool skipping) {
  for (;;) {
    std::optional<Token> t = next_in_source();
    if (!t) {
      if (stack_.empty()) return t;
      stack_.pop_back();  // end of a macro body: back to its caller
      continue;
    }
    if (skipping || !is_ident(*t) || t->text.size() < 2 || t->text[0] != '@') return t;
    if (t->text == "@define") {
      define_macro(*t);
      continue;
    }
    if (!invoke_macro(*t)) return t;  // @cast, @var ...: for the parser
  }
}

// ------------------------------------------------------------- @define

void Preprocessor::define_macro(const Token& at_define) {
  if (!stack_.empty()) fail(at_define, "'@define' forbidden inside macro body");
  std::optional<Token> name = next_in_source();
  if (!name || !is_ident(*name) || name->text[0] == '@') fail(or_eof(name), "expected identifier");
  if (const MacroDef* first = macros_.find_local(name->text)) {
    report(*name, "attempt to redefine macro '@" + name->text + "' in the same file");
    Token first_name{TokenKind::identifier, first->name, first->loc};
    fail(first_name, "macro '@" + name->text + "' first defined here");
  }
  if (name->text == "define") fail(*name, "attempt to redefine '@define'");
  if (kBuiltinAtWords.count(name->text))
    diags_.warning(name->loc, "macro redefines built-in operator '@" + name->text + "'",
                   describe(*name));

  MacroDef def;
  def.name = name->text;
  def.loc = name->loc;
  def.from_library = false;  // a .stpm's macros are committed at its end
  try {
    read_macro_header(def);
  } catch (const Abort&) {
    // As in stap, a header that goes wrong still defines the macro, with
    // the parameters read so far and an empty body: its uses expand to
    // nothing (or fail for a wrong argument count) rather than being
    // unknown operators.
    macros_.define(std::move(def));
    throw;
  }
  def.body = read_macro_body(*name);
  macros_.define(std::move(def));
}

// "(a, b) %(" or "%(" after the name.
void Preprocessor::read_macro_header(MacroDef& def) {
  std::optional<Token> t = next_in_source();
  bool saw_params = is_op_token(t, "(");
  if (saw_params) {
    for (;;) {
      t = next_in_source();
      if (!t || !is_ident(*t) || t->text[0] == '@') fail(or_eof(t), "expected identifier");
      def.params.push_back(t->text);
      t = next_in_source();
      if (t && t->is_op(",")) continue;
      if (t && t->is_op(")")) break;
      fail(or_eof(t), "expected ',' or ')'");
    }
    t = next_in_source();
  }
  if (!is_op_token(t, "%("))
    fail(or_eof(t), saw_params ? "expected '%('" : "expected '%(' or '('");
}

// The body up to the %) matching the opening %(, nested %( %) included.
std::vector<Token> Preprocessor::read_macro_body(const Token& name) {
  std::vector<Token> body;
  int nesting = 0;
  for (;;) {
    std::optional<Token> t = next_in_source();
    if (!t) fail(name, "incomplete macro definition - missing '%)'");
    if (t->is_op("%(")) {
      ++nesting;
    } else if (t->is_op("%)")) {
      if (nesting == 0) return body;
      --nesting;
    }
    body.push_back(std::move(*t));
  }
}

// ------------------------------------------------------------ expansion

// Expands @name if it names a parameter of the macro being expanded, a
// macro of this file (not from inside a library macro) or a library
// macro.  Returns false for any other @word.
bool Preprocessor::invoke_macro(const Token& use) {
  std::string name = use.text.substr(1);
  const Activation* caller = stack_.empty() ? nullptr : &stack_.back();
  std::shared_ptr<const Closure> param;
  const MacroDef* def = nullptr;
  if (caller && caller->params && caller->params->count(name)) {
    param = caller->params->at(name);
  } else if (!(caller && caller->library) && (def = macros_.find_local(name))) {
  } else if (!(def = macros_.find_library(name))) {
    return false;
  }
  if (stack_.size() >= kMaxExpansionDepth) {
    // Reported at the outermost use, to spare a chain 200 deep, and the
    // whole expansion abandoned: resuming the outer levels would recurse
    // again from each of them.
    Token outer = stack_.front().use;
    stack_.clear();
    fail(outer, "macro '" + use.text + "' nested more than " + std::to_string(kMaxExpansionDepth) +
                    " deep: a macro cannot use itself");
  }

  if (stack_.empty()) expansion_start_ = out_size_;
  Activation act;
  act.use = use;
  std::string_view& what = expansion_texts_[use.text];
  if (what.empty()) what = sources_.intern("\tin expansion of macro: " + describe(use));
  act.expansion = sources_.add_expansion(what, use.loc);
  if (param) {
    act.body = &param->body;
    act.closure = param;
    act.params = param->env;
    act.library = false;
  } else {
    act.body = &def->body;
    act.library = def->from_library;
    if (!def->params.empty()) act.params = read_macro_args(use, *def);
  }
  stack_.push_back(std::move(act));
  return true;
}

// "(a, b)" after a use of a macro with parameters, read from the same
// source as the use; nested () and [] may hold commas.
std::shared_ptr<ParamMap> Preprocessor::read_macro_args(const Token& use, const MacroDef& def) {
  size_t want = def.params.size();
  std::optional<Token> t = next_in_source();
  if (!is_op_token(t, "("))
    fail(or_eof(t), "expected '(' in invocation of macro '" + use.text + "' taking " +
                        std::to_string(want) + (want == 1 ? " parameter" : " parameters"));
  auto params = std::make_shared<ParamMap>();
  std::shared_ptr<const ParamMap> env = stack_.empty() ? nullptr : stack_.back().params;
  std::string expected = " for macro '" + use.text + "' (expected " + std::to_string(want) + ")";
  for (size_t i = 0; i < want; ++i) {
    auto closure = std::make_shared<Closure>();
    closure->env = env;
    int nesting = 0;
    for (;;) {
      t = next_in_source();
      if (!t) fail(use, "could not find end of macro invocation");
      if (t->is_op("(") || t->is_op("[")) {
        ++nesting;
      } else if (nesting > 0 && (t->is_op(")") || t->is_op("]"))) {
        --nesting;
      } else if (nesting == 0 && (t->is_op(")") || t->is_op(","))) {
        break;
      }
      closure->body.push_back(std::move(*t));
    }
    if (t->is_op(",") && i + 1 == want) fail(*t, "too many parameters" + expected);
    if (t->is_op(")") && i + 1 != want) fail(*t, "too few parameters" + expected);
    (*params)[def.params[i]] = std::move(closure);
  }
  return params;
}

// A .stpm file's macros become library macros only if none of them is
// one already (then none are taken, as stap does).
void Preprocessor::commit_library_macros() {
  for (const auto& [name, def] : macros_.locals()) {
    if (const MacroDef* first = macros_.find_library(name)) {
      report(Token{TokenKind::identifier, name, def.loc},
             "duplicate definition of library macro '@" + name + "'");
      report(Token{TokenKind::identifier, name, first->loc},
             "macro '@" + name + "' first defined here");
      return;
    }
  }
  std::vector<MacroDef> defs;
  for (const auto& [name, def] : macros_.locals()) defs.push_back(def);
  for (MacroDef& def : defs) {
    def.from_library = true;
    macros_.define(std::move(def));
  }
}

}  // namespace stap::pp
