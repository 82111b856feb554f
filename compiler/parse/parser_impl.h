// Private to the parser: the Parser class shared by parser.cpp (top level,
// declarations, error recovery), parse_probe.cpp (probe points and
// aliases), parse_stmt.cpp (statements) and parse_expr.cpp / parse_target.cpp
// (expressions, target variables and @-operators).
//
// Errors are reported once and then thrown as ParseAbort; as in stap, only
// the top-level loop catches it: it skips to the next declaration keyword
// (or %{) and goes on, so one run shows one error per declaration.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "parse/preprocessor.h"
#include "parse/parser.h"
#include "parse/token.h"

namespace stap::parse_detail {

// Thrown after a parse error has been reported (or deliberately not
// reported, when it would repeat one at the same place).  skip false:
// resume at the very next token as if it began a declaration (stap does
// so after "need stap -g", reporting whatever follows as a second error).
struct ParseAbort {
  bool skip = true;
};

// Deeper nesting than this (blocks, parentheses, unary chains ...) is an
// error rather than a stack overflow.
constexpr int kMaxNesting = 1000;

// Brace expansion of probe points stops with an error beyond this many.
constexpr size_t kMaxExpandedPoints = 10000;

// What an error says when the input ends where a token was needed.  stap
// mostly says "unexpected end-of-file" (saw: <file> EOF); where a value
// was needed "expected value"; a few checks keep their own words; and
// after some keywords and operators it blames that token instead.
enum class AtEof { unexpected, value, keep, blame_previous };

class Parser {
 public:
  // order: see parse_tokens().
  Parser(const std::vector<Token>& tokens, ast::Arena& arena, Diagnostics& diags,
         bool guru_mode, StreamOrder* order, Dialect dialect);

  void parse_file(ast::File& file);

 private:
  // ---- tokens (parser.cpp)
  const Token& peek(size_t ahead = 0) const;
  const Token& advance();
  bool at_op(std::string_view op, size_t ahead = 0) const { return peek(ahead).is_op(op); }
  bool at_keyword(std::string_view kw, size_t ahead = 0) const {
    return peek(ahead).is_keyword(kw);
  }
  bool accept_op(std::string_view op);
  bool accept_keyword(std::string_view kw);
  // "expected ')'" ...
  const Token& expect_op(std::string_view op, AtEof eof = AtEof::unexpected);
  const Token& expect_keyword(std::string_view kw);
  const Token& expect_identifier(AtEof eof = AtEof::unexpected);
  bool at_top_level_keyword() const;
  // Whether b follows a with no space between (for "vfs_*" in probe points).
  static bool adjacent(const Token& a, const Token& b);

  // ---- errors and recovery (parser.cpp)
  void report(const Token& at, std::string message, std::string_view label = "saw");
  [[noreturn]] void fail(const Token& at, std::string message, AtEof eof = AtEof::unexpected);
  [[noreturn]] void fail_here(std::string message, AtEof eof = AtEof::unexpected) {
    fail(peek(), std::move(message), eof);
  }
  // stap reads (consumes) the token it blames, and its recovery starts
  // after it; a few errors are found on a token it has only looked at,
  // and recovery starts at that token (a 'probe' that ends a block left
  // open begins the next probe).  This is the second kind.
  [[noreturn]] void fail_unread(std::string message);
  void skip_to_top_level(size_t decl_start);
  // "using @const operator not permitted; need stap -g" unless guru mode.
  void require_guru(const Token& op);

  // RAII nesting counter; throws past kMaxNesting.
  class Nest {
   public:
    explicit Nest(Parser& p);
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser& p_;
  };
  // A left-associative chain (a + b + c ...) is parsed in a loop but
  // nests its tree one level per operator; each counts as a level, so the
  // passes after this one, which recurse over the tree, never meet more
  // than kMaxNesting.
  class ChainNest {
   public:
    explicit ChainNest(Parser& p) : p_(p) {}
    ~ChainNest() { p_.depth_ -= levels_; }
    ChainNest(const ChainNest&) = delete;
    ChainNest& operator=(const ChainNest&) = delete;
    void add();  // one more level; throws past kMaxNesting

   private:
    Parser& p_;
    int levels_ = 0;
  };

  // ---- declarations (parser.cpp)
  void parse_declaration(ast::File& file);
  void parse_private(ast::File& file);
  void parse_globals(ast::File& file, bool is_private);
  ast::VarDecl* parse_global_decl(bool is_private);
  void check_duplicate_global(ast::File& file, ast::VarDecl& var, const Token& name);
  void parse_function(ast::File& file, bool is_private);
  ast::Type parse_type_suffix();  // after ':'
  ast::Expr* parse_literal(AtEof eof = AtEof::unexpected);  // string, number or -number
  ast::NumberLit* make_number(const Token& t, bool negated);
  // Adjacent strings concatenate.  stap words the error "expected string"
  // in @cast, @var and @const, "expected literal string" elsewhere.
  ast::StringLit* parse_string(const char* error = "expected literal string",
                               AtEof eof = AtEof::unexpected);

  // ---- probes (parse_probe.cpp)
  void parse_probe(ast::File& file);
  std::vector<ast::ProbePoint*> parse_probe_points();
  // A point from brace expansion, before it becomes an ast::ProbePoint.
  struct ExpandedPoint {
    std::vector<ast::ProbePointComponent> components;
    size_t first_token = 0;      // its first component's token
    bool optional = false;       // '?' or '!'
    bool sufficient = false;     // '!'
    size_t condition_start = 0;  // token after "if (", or 0
  };
  std::vector<ast::ProbePoint*> parse_point_spec();
  std::vector<ExpandedPoint> parse_expanded_spec(size_t& budget);
  std::vector<ExpandedPoint> parse_point_sequence(size_t& budget);
  ast::ProbePointComponent parse_point_component();
  std::string parse_point_name();
  void check_alias_names(const std::vector<ast::ProbePoint*>& names);  // just one

  // ---- statements (parse_stmt.cpp)
  ast::Block* parse_block();
  ast::Stmt* parse_statement();
  ast::Stmt* parse_statement_body();
  ast::Stmt* parse_if();
  ast::Stmt* parse_while();
  ast::Stmt* parse_for();
  ast::Stmt* parse_foreach();
  void parse_foreach_vars(ast::ForeachStmt& s);
  void parse_foreach_source(ast::ForeachStmt& s);
  void set_sort(ast::ForeachStmt& s, int column, const Token& mark);
  ast::Stmt* parse_return();
  ast::Stmt* parse_delete();
  ast::Stmt* parse_try();
  ast::Block* parse_try_part();

  // ---- expressions (parse_expr.cpp)
  ast::Expr* parse_expr();
  ast::Expr* parse_ternary();
  ast::Expr* parse_binary(int min_prec);
  ast::Expr* parse_in_list();  // [k1, k2] in a
  ast::ArrayIndex* parse_in_operand(std::vector<ast::Expr*> keys);  // after "in"
  ast::Expr* parse_unary();
  ast::Expr* parse_crement_operand();
  ast::Expr* parse_postfix();
  ast::Expr* parse_primary();
  ast::Expr* parse_identifier_expr();
  ast::Expr* parse_call(const Token& name);
  static bool is_print_family(const std::string& name);  // print ... sprintdln
  ast::Expr* parse_print(const Token& name);
  void check_format(const std::string& format);  // printf/sprintf, in pass 1 as stap
  std::vector<ast::Expr*> parse_index_list(bool allow_wildcard);  // after '['
  ast::ArrayIndex* make_index(const Token& name, std::vector<ast::Expr*> indexes);

  // ---- target variables and @-operators (parse_target.cpp)
  ast::Expr* parse_target_symbol();
  void parse_components(std::vector<ast::TargetComponent>& out, int& pretty);
  bool at_autocast_component() const;
  ast::Expr* parse_autocast(ast::Expr* operand, const Token& first, bool address_of);
  ast::Expr* parse_at_operator();
  ast::Expr* parse_cast();
  ast::Expr* parse_at_var();
  ast::Expr* parse_stat(ast::StatOp op);
  ast::Expr* parse_hist(bool linear);
  ast::NumberLit* parse_number_literal();
  ast::Expr* parse_at_op(const std::string& name, size_t min_args, size_t max_args);
  ast::Expr* parse_guru_op();
  ast::Expr* parse_deref();  // @const, @kregister, @uregister
  ast::Expr* parse_address_of();

  template <typename T>
  T* make(const SourceLoc& loc) {
    T* node = arena_.make<T>();
    node->loc = loc;
    return node;
  }

  const std::vector<Token>& tokens_;
  ast::Arena& arena_;
  Diagnostics& diags_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool in_function_ = false;  // "return" is only valid in functions
  bool guru_mode_ = false;    // -g, or a tapset file (always privileged)
  bool autocast_ = true;      // stap 2.6's: '->', '[', '&', '$' on any value
  bool glue_across_comments_ = true;
  bool base_hist_allowed_ = false;  // print(@hist_log(s)): see parse_print
  StreamOrder* order_ = nullptr;
  size_t error_at_ = SIZE_MAX;  // index of the token the last error blamed
  bool error_unread_ = false;   // ... and stap had not consumed it
  std::string file_name_;
  std::unordered_set<size_t> reported_;  // indexes of tokens already blamed
};

}  // namespace stap::parse_detail
