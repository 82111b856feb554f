// Pass 1b: the driver loop and %( %? %: %) conditionals.  Macros and
// command-line arguments are in macros.cpp.
#include "parse/preprocessor.h"

#include <fnmatch.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>

#include "parse/preprocessor_impl.h"

namespace stap {

// ---------------------------------------------------------------- MacroTable

void MacroTable::define(MacroDef def) {
  auto& table = def.from_library ? library_ : local_;
  std::string name = def.name;
  table.insert_or_assign(std::move(name), std::move(def));
}

const MacroDef* MacroTable::find(const std::string& name) const {
  if (const MacroDef* d = find_local(name)) return d;
  return find_library(name);
}

const MacroDef* MacroTable::find_local(const std::string& name) const {
  auto it = local_.find(name);
  return it == local_.end() ? nullptr : &it->second;
}

const MacroDef* MacroTable::find_library(const std::string& name) const {
  auto it = library_.find(name);
  return it == library_.end() ? nullptr : &it->second;
}

void MacroTable::begin_file() { local_.clear(); }

// strverscmp(3) is what stap compares kernel and systemtap versions with:
// digit runs compare as numbers, so "6.10" > "6.9".
int compare_versions(const std::string& a, const std::string& b) {
  int r = strverscmp(a.c_str(), b.c_str());
  return r < 0 ? -1 : r > 0 ? 1 : 0;
}

std::vector<Token> preprocess(std::vector<Token> tokens, const PreprocessorEnv& env,
                              MacroTable& macros, SourceManager& sources,
                              Diagnostics& diags, StreamOrder* order) {
  pp::Preprocessor p(env, macros, sources, diags);
  p.set_stream_order(order);
  return p.run(std::move(tokens));
}

namespace pp {

namespace {

bool is_op(const std::optional<Token>& t, std::string_view text) {
  return t && t->is_op(text);
}

bool glob_matches(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), FNM_NOESCAPE) == 0;
}

// strtoll with base 0, as stap reads CONFIG values and literals; the whole
// text must be a number ("" reads as 0, as in stap).
std::optional<int64_t> to_number(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (errno == ERANGE || errno == EINVAL || *end != '\0') return std::nullopt;
  return v;
}

}  // namespace

// ------------------------------------------------------------------ errors

void Preprocessor::report(const Token& at, const std::string& message) {
  Diagnostic d;
  d.category = "parse error";
  d.message = message;
  d.token = describe(at);
  std::string bad_arg = bad_arg_message(at);
  if (!bad_arg.empty()) {
    d.message = bad_arg;
    d.token = "junk ''";
  }
  d.saw_line = true;
  d.saw_label = "at";
  d.loc = at.loc;
  if (at.kind == TokenKind::end_of_input) {
    // As the parser words it: "saw: <file> EOF", no position.
    d.saw_label = "saw";
    d.token = sources_.name(at.loc.file) + " EOF";
    d.loc = SourceLoc{};
  }
  diags_.report(std::move(d));
}

void Preprocessor::fail(const Token& at, const std::string& message) {
  // A junk token with no text stands for an error already reported.
  if (!(at.kind == TokenKind::junk && at.text.empty())) report(at, message);
  throw Abort{at.loc};
}

// ------------------------------------------------------------- driver loop

void Preprocessor::set_stream_order(StreamOrder* order) {
  order_ = order;
  if (!order_) return;
  // The lexer's diagnostics wait for their junk token (see StreamOrder).
  lexer_diags_ = diags_.all().size();
  order_->position.assign(lexer_diags_, StreamOrder::kUnsaid);
  order_->junk.clear();
}

void Preprocessor::note_positions() {
  if (!order_) return;
  while (order_->position.size() < diags_.all().size()) order_->position.push_back(out_size_);
}

// An empty junk token about to be emitted at out_size_: if it is the
// lexer's next one, its diagnostic waits for the parser there.  A lexer
// junk token passed over without being emitted (untaken branch, macro
// body never closed) is never said.
void Preprocessor::note_emitted(const Token& t) {
  if (!order_ || t.kind != TokenKind::junk || !t.text.empty()) return;
  auto before = [&](const SourceLoc& a) {
    return a.line < t.loc.line || (a.line == t.loc.line && a.column < t.loc.column);
  };
  while (lexer_read_ < lexer_diags_ && before(diags_.all()[lexer_read_].loc)) ++lexer_read_;
  if (lexer_read_ < lexer_diags_ && diags_.all()[lexer_read_].loc == t.loc)
    order_->junk[out_size_] = lexer_read_++;
}

// A $N/@N that cannot be substituted reaching the output: reported now,
// said only if the parser reaches its junk token (see StreamOrder).
Token Preprocessor::defer_bad_arg(const Token& t) {
  size_t before = diags_.all().size();
  report(t, "");
  if (diags_.all().size() > before) {
    order_->position.push_back(StreamOrder::kUnsaid);
    order_->junk[out_size_] = before;
  }
  return Token{TokenKind::junk, "", t.loc};
}

std::vector<Token> Preprocessor::run(std::vector<Token> tokens) {
  macros_.begin_file();
  if (tokens.empty() || tokens.back().kind != TokenKind::end_of_input)
    tokens.push_back(Token{TokenKind::end_of_input, "", tokens.empty() ? SourceLoc{} : tokens.back().loc});
  eof_ = tokens.back();
  library_file_ = eof_.loc.file != kNoFile && eof_.loc.file < sources_.size() &&
                  sources_.file(eof_.loc.file).origin == FileOrigin::macro_library;
  substitute_args(tokens);
  input_ = std::move(tokens);

  size_t errors_before = diags_.error_count();
  std::vector<Token> out;
  for (;;) {
    out_size_ = out.size();
    try {
      std::optional<Token> t = next_output();
      if (!t) break;
      if (!bad_arg_message(*t).empty()) {
        if (!order_ || library_file_) fail(*t, "");
        note_positions();
        t = defer_bad_arg(*t);
      }
      if (library_file_)
        fail(*t, "unexpected token in library macro file '" + sources_.name(eof_.loc.file) + "'");
      note_positions();
      note_emitted(*t);
      out.push_back(std::move(*t));
    } catch (const Abort& abort) {
      if (abort.discard_from) discard_output(out, *abort.discard_from);
      note_positions();
      Token junk{TokenKind::junk, "", abort.loc};
      note_emitted(junk);
      // stap gives up on a macro file at its first error.
      if (library_file_) break;
      out.push_back(std::move(junk));
    }
  }
  out_size_ = out.size();
  note_positions();
  out.push_back(eof_);
  if (library_file_ && diags_.error_count() == errors_before) commit_library_macros();
  if (library_file_) macros_.begin_file();
  return out;
}

// Drops out[from...]; what was noted at a dropped position moves to
// `from`, and a dropped junk token's diagnostic is never said.
void Preprocessor::discard_output(std::vector<Token>& out, size_t from) {
  if (from >= out.size()) return;
  out.resize(from);
  out_size_ = from;
  if (!order_) return;
  for (size_t& p : order_->position)
    if (p != StreamOrder::kUnsaid && p > from) p = from;
  order_->junk.erase(order_->junk.lower_bound(from), order_->junk.end());
}

// ------------------------------------------------------------ conditionals

// The next token of the rewritten stream: conditionals are resolved here,
// on top of macro expansion, so macros may produce or contain them.
std::optional<Token> Preprocessor::next_output() {
  for (;;) {
    bool skipping = !conditionals_.empty() &&
                    (conditionals_.back().branch == Branch::skip_then ||
                     conditionals_.back().branch == Branch::skip_else);
    std::optional<Token> t = skipping ? skip_branch() : scan_macros(false);
    if (!t) {
      if (conditionals_.empty()) return std::nullopt;
      Token open = conditionals_.back().open;
      conditionals_.pop_back();
      fail(open, "incomplete conditional at end of file");
    }
    if (t->is_op("%?")) fail(*t, "incomplete conditional - missing '%('");
    if (t->is_op("%:")) {
      if (conditionals_.empty()) fail(*t, "incomplete conditional - missing '%('");
      Branch& b = conditionals_.back().branch;
      if (b == Branch::keep_else || b == Branch::skip_else)
        fail(*t, "invalid conditional - duplicate '%:'");
      b = b == Branch::keep_then ? Branch::skip_else : Branch::keep_else;
      continue;
    }
    if (t->is_op("%)")) {
      if (conditionals_.empty()) fail(*t, "incomplete conditional - missing '%('");
      conditionals_.pop_back();
      continue;
    }
    if (!t->is_op("%(")) return t;
    bool taken = eval_condition(*t);
    conditionals_.push_back({*t, taken ? Branch::keep_then : Branch::skip_then});
  }
}

// Skips an untaken branch without interpreting it: only nested %( %) are
// counted.  Returns the %: %? or %) that ends it, or nothing at the end.
std::optional<Token> Preprocessor::skip_branch() {
  int nesting = 0;
  for (;;) {
    std::optional<Token> t = scan_macros(true);
    if (!t) return t;
    if (t->is_op("%(")) {
      ++nesting;
    } else if (nesting > 0 && t->is_op("%)")) {
      --nesting;
    } else if (nesting == 0 && (t->is_op("%:") || t->is_op("%?") || t->is_op("%)"))) {
      return t;
    }
  }
}

// COND after "%(", up to and including "%?": tests joined by && and ||,
// && binding tighter.  Every test is evaluated (and may fail), as in stap.
bool Preprocessor::eval_condition(const Token& open) {
  bool result = false;
  bool and_result = true;
  for (;;) {
    std::optional<Token> l = scan_macros(false);
    std::optional<Token> op = l ? scan_macros(false) : std::nullopt;
    std::optional<Token> r = op ? scan_macros(false) : std::nullopt;
    if (!r) fail(open, "incomplete condition after '%('");
    bool test = eval_test(*l, *op, *r);
    and_result = and_result && test;
    std::optional<Token> next = scan_macros(false);
    if (is_op(next, "&&")) continue;
    result = result || and_result;
    and_result = true;
    if (is_op(next, "||")) continue;
    if (!is_op(next, "%?")) fail(open, "expected '%?' marker for conditional");
    return result;
  }
}

namespace {

// Outcome of "lhs OP rhs" for the six comparison operators; nullopt for
// any other operator.
template <typename T>
std::optional<bool> compare(const T& lhs, const std::string& op, const T& rhs) {
  if (op == "<=") return lhs <= rhs;
  if (op == ">=") return lhs >= rhs;
  if (op == "<") return lhs < rhs;
  if (op == ">") return lhs > rhs;
  if (op == "==") return lhs == rhs;
  if (op == "!=") return lhs != rhs;
  return std::nullopt;
}

bool is_eq_op(const Token& op) { return op.is_op("==") || op.is_op("!="); }

}  // namespace

bool Preprocessor::eval_test(const Token& l, const Token& op, const Token& r) {
  static const char kExpectedTest[] =
      "expected 'arch', 'kernel_v', 'kernel_vr', 'systemtap_v',\n"
      "             'runtime', 'systemtap_privilege', 'CONFIG_...', or\n"
      "             comparison between strings or integers";
  // A bad $N (or an error's junk) is blamed where stap looks at it: the
  // left side first, which must be a known name or a literal, then the
  // operator, then a known name's right side.
  auto bad = [this](const Token& t) {
    return !bad_arg_message(t).empty() || (t.kind == TokenKind::junk && t.text.empty());
  };
  if (bad(l)) fail(l, "");
  static const std::set<std::string> kNames = {"kernel_v", "kernel_vr", "systemtap_v",
                                               "systemtap_privilege", "guru_mode", "arch",
                                               "runtime"};
  bool known = l.kind == TokenKind::identifier &&
               (kNames.count(l.text) || l.text.rfind("CONFIG_", 0) == 0);
  bool literal = l.kind == TokenKind::number || l.kind == TokenKind::string;
  if (!known && !literal) fail(l, kExpectedTest);
  if (bad(op)) fail(op, "");
  if (known && bad(r)) fail(r, "");
  auto cmp_op = [&](auto lhs, auto rhs) {
    std::optional<bool> v = op.kind == TokenKind::op ? compare(lhs, op.text, rhs) : std::nullopt;
    if (!v) fail(op, "expected comparison operator");
    return *v;
  };
  // ==/!= against a glob, the only forms arch, runtime ... allow.
  auto glob_op = [&](const std::string& target) {
    if (!is_eq_op(op)) fail(op, "expected '==' or '!='");
    return glob_matches(r.text, target) == op.is_op("==");
  };
  bool l_ident = l.kind == TokenKind::identifier;
  if (l_ident && (l.text == "kernel_v" || l.text == "kernel_vr" || l.text == "systemtap_v")) {
    if (r.kind != TokenKind::string) fail(r, "expected string literal");
    const std::string& target = l.text == "kernel_v"    ? env_.kernel_v
                                : l.text == "kernel_vr" ? env_.kernel_vr
                                                        : env_.systemtap_v;
    bool wildcard = r.text.find_first_of("*?[") != std::string::npos;
    if (wildcard) {
      if (op.kind != TokenKind::op || !compare(0, op.text, 0)) fail(op, "expected comparison operator");
      if (!is_eq_op(op)) fail(op, "wildcard not allowed with order comparison operators");
      return glob_op(target);
    }
    return cmp_op(compare_versions(target, r.text), 0);
  }
  if (l_ident && l.text == "systemtap_privilege") {
    if (r.kind != TokenKind::string) fail(r, "expected string literal");
    if (!is_eq_op(op)) fail(op, "expected '==' or '!='");
    return (env_.privilege == r.text) == op.is_op("==");
  }
  if (l_ident && l.text == "guru_mode") {
    if (r.kind != TokenKind::number) fail(r, "expected number");
    std::optional<int64_t> v = to_number(r.text);
    if (!v || (*v != 0 && *v != 1)) fail(op, "expected 0 or 1");
    if (!is_eq_op(op)) fail(op, "expected '==' or '!='");
    return cmp_op(int64_t{env_.guru_mode}, *v);
  }
  if (l_ident && (l.text == "arch" || l.text == "runtime")) {
    if (r.kind != TokenKind::string) fail(r, "expected string literal");
    return glob_op(l.text == "arch" ? env_.arch : env_.runtime);
  }
  if (l_ident && l.text.rfind("CONFIG_", 0) == 0) return eval_config(l, op, r);
  if (l.kind == TokenKind::string && r.kind == TokenKind::string) return cmp_op(l.text, r.text);
  if (l.kind == TokenKind::number && r.kind == TokenKind::number) {
    std::optional<int64_t> lv = to_number(l.text), rv = to_number(r.text);
    if (!lv) fail(l, "number invalid or out of range");
    if (!rv) fail(r, "number invalid or out of range");
    return cmp_op(*lv, *rv);
  }
  if (op.kind == TokenKind::op && l.kind == TokenKind::string && r.kind == TokenKind::number)
    fail(r, "expected string literal as right value");
  if (op.kind == TokenKind::op && l.kind == TokenKind::number && r.kind == TokenKind::string)
    fail(r, "expected number literal as right value");
  fail(l, kExpectedTest);
}

// CONFIG_X against a string (a glob), a number, or another CONFIG_Y.
bool Preprocessor::eval_config(const Token& l, const Token& op, const Token& r) {
  auto value = [&](const std::string& name) {
    auto it = env_.kernel_config.find(name);
    return it == env_.kernel_config.end() ? std::string() : it->second;
  };
  auto cmp_op = [&](auto lhs, auto rhs) {
    std::optional<bool> v = op.kind == TokenKind::op ? compare(lhs, op.text, rhs) : std::nullopt;
    if (!v) fail(op, "expected comparison operator");
    return *v;
  };
  std::string lhs = value(l.text);
  if (r.kind == TokenKind::string) {
    if (!is_eq_op(op)) fail(op, "expected '==' or '!='");
    return glob_matches(r.text, lhs) == op.is_op("==");
  }
  if (r.kind == TokenKind::number) {
    std::optional<int64_t> lv = to_number(lhs);
    if (!lv) fail(l, "Config option value not a number");
    std::optional<int64_t> rv = to_number(r.text);
    if (!rv) fail(r, "number invalid or out of range");
    return cmp_op(*lv, *rv);
  }
  if (r.kind == TokenKind::identifier && r.text.rfind("CONFIG_", 0) == 0) {
    std::string rhs = value(r.text);
    std::optional<int64_t> lv = to_number(lhs), rv = to_number(rhs);
    if (lv && rv) return cmp_op(*lv, *rv);
    return cmp_op(lhs, rhs);
  }
  fail(r, "expected string, number literal or other CONFIG_... as right side operand");
}

}  // namespace pp
}  // namespace stap
