// The stap abstract syntax tree, shared by every phase.
//
// Nodes are allocated in an Arena owned by the compilation and referenced by
// raw pointers; nothing is freed until the compilation ends.  A pass walks
// the tree with a Visitor (ast/visitor.h); alias expansion and function
// inlining copy subtrees with clone() (ast/clone.h).
//
// The parser fills in syntax only.  Fields marked "elaborate:" are set in
// pass 2 (symbol resolution and type inference) and are null/unknown before.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/source.h"

namespace stap::ast {

// ---------------------------------------------------------------- types

enum class Type : uint8_t { unknown, long_, string, stats };
const char* type_name(Type t);  // "unknown", "long", "string", "stats"

// ---------------------------------------------------------------- nodes

struct Visitor;
struct VarDecl;
struct FunctionDecl;
struct AliasDecl;

struct Node {
  SourceLoc loc;
  virtual ~Node() = default;
};

struct Expr : Node {
  Type type = Type::unknown;  // elaborate:
  virtual void accept(Visitor& v) = 0;
};

struct Stmt : Node {
  virtual void accept(Visitor& v) = 0;
};

#define STAP_VISITABLE void accept(Visitor& v) override;

// 42, 0x2a: the value, and the text as written (for -p1 round trips).
struct NumberLit : Expr {
  int64_t value = 0;
  std::string text;
  STAP_VISITABLE
};

struct StringLit : Expr {
  std::string value;  // decoded
  STAP_VISITABLE
};

// A script variable: local, global, function parameter or array name.
struct Symbol : Expr {
  std::string name;
  VarDecl* decl = nullptr;  // elaborate:
  STAP_VISITABLE
};

// One step after a target variable or @cast: ->field, [index], or [expr].
struct TargetComponent {
  enum class Kind : uint8_t { field, literal_index, expr_index } kind = Kind::field;
  std::string field;            // field
  int64_t index = 0;            // literal_index
  Expr* index_expr = nullptr;   // expr_index
  SourceLoc loc;
};

// $var, $var->f[2], &$var->f, $var$, $var$$, $$vars, $$parms$, $return.
struct TargetSymbol : Expr {
  std::string name;  // with its leading '$' or '$$'
  std::vector<TargetComponent> components;
  bool address_of = false;  // &$var
  int pretty = 0;           // 1 for a trailing '$', 2 for '$$'
  STAP_VISITABLE
};

// @cast(expr, "type"[, "module"])->f, and @var("name[@file]"[, "module"])->f.
struct CastExpr : Expr {
  Expr* operand = nullptr;
  std::string type_name;
  std::string module;  // empty when not given
  std::vector<TargetComponent> components;
  bool address_of = false;
  int pretty = 0;
  STAP_VISITABLE
};

// stap's autocast: ->field, [index], & or $ on any other value, whose
// type comes from what the value was computed from (a target variable,
// @cast, a local assigned such a value, a function returning one).
// Typed at lowering (lowerer.h: value types); untyped, it is refused.
struct Autocast : Expr {
  Expr* operand = nullptr;
  std::vector<TargetComponent> components;
  bool address_of = false;
  int pretty = 0;
  std::string token;  // what stap blames: "&", "->", "[", "$" or "$$"
  STAP_VISITABLE
};

// %{ code %} as a value (guru mode and tapsets): kept through passes 1
// and 2 as stap keeps it; pass 3 refuses it, as BPF cannot run C.  A
// "/* string */" in the code makes it a string, as in stap.
struct EmbeddedExpr : Expr {
  std::string code;
  STAP_VISITABLE
};

struct AtVar : Expr {
  std::string name;    // "jiffies", "x@file.c"
  std::string module;  // empty when not given
  std::vector<TargetComponent> components;
  bool address_of = false;
  int pretty = 0;
  STAP_VISITABLE
};

// @defined(expr), @entry(expr), @const("X"), @kregister(n), @uregister(n),
// @errno, @choose_defined(a, b), @probewrite(v): the @-operators that are
// not aggregates.  Operands as written.
struct AtOp : Expr {
  std::string op;  // "defined", "entry", "const", "kregister", ...
  std::vector<Expr*> operands;
  STAP_VISITABLE
};

enum class StatOp : uint8_t { count, sum, min, max, avg, variance };
const char* stat_op_name(StatOp op);  // "count", ...

// @count(x), @avg(a[k]), @variance(x, 3)
struct StatExpr : Expr {
  StatOp op = StatOp::count;
  Expr* operand = nullptr;      // Symbol or ArrayIndex of a statistic
  Expr* shift = nullptr;        // @variance's optional bit shift
  STAP_VISITABLE
};

// @hist_linear(x, lo, hi, step), @hist_log(x)
struct HistExpr : Expr {
  bool linear = false;
  Expr* operand = nullptr;
  Expr* low = nullptr;
  Expr* high = nullptr;
  Expr* step = nullptr;
  STAP_VISITABLE
};

enum class UnaryOp : uint8_t { neg, plus, logical_not, bit_not, pre_inc, pre_dec, post_inc, post_dec };
const char* unary_op_text(UnaryOp op);  // "-", "+", "!", "~", "++", "--"

struct UnaryExpr : Expr {
  UnaryOp op = UnaryOp::neg;
  Expr* operand = nullptr;
  STAP_VISITABLE
};

// Arithmetic, bitwise, comparison, logical, string concatenation ".",
// regex match "=~"/"!~": op is the operator's text.
struct BinaryExpr : Expr {
  std::string op;
  Expr* left = nullptr;
  Expr* right = nullptr;
  STAP_VISITABLE
};

struct TernaryExpr : Expr {
  Expr* cond = nullptr;
  Expr* then_expr = nullptr;
  Expr* else_expr = nullptr;
  STAP_VISITABLE
};

// "=", "+=", ..., ".=", and "<<<" (statistic accumulation).
struct AssignExpr : Expr {
  std::string op;
  Expr* target = nullptr;  // Symbol, ArrayIndex or TargetSymbol
  Expr* value = nullptr;
  STAP_VISITABLE
};

// a[k1, k2] or @hist_log(x)[3].  A null index is the wildcard '*', allowed
// only in delete, membership tests and foreach slices.
struct ArrayIndex : Expr {
  Expr* base = nullptr;  // Symbol or HistExpr
  std::vector<Expr*> indexes;
  STAP_VISITABLE
};

// k in a, [k1, k2] in a, [k, *] in a.
struct InExpr : Expr {
  ArrayIndex* index = nullptr;
  STAP_VISITABLE
};

// f(a, b), including the builtins printf, sprint, println ...
struct CallExpr : Expr {
  std::string name;
  std::vector<Expr*> args;
  FunctionDecl* decl = nullptr;  // elaborate: user/tapset function, or null for a builtin
  STAP_VISITABLE
};

// ---------------------------------------------------------------- statements

struct Block : Stmt {
  std::vector<Stmt*> statements;
  STAP_VISITABLE
};

struct ExprStmt : Stmt {
  Expr* expr = nullptr;
  STAP_VISITABLE
};

struct NullStmt : Stmt {  // ";"
  STAP_VISITABLE
};

struct IfStmt : Stmt {
  Expr* cond = nullptr;
  Stmt* then_stmt = nullptr;
  Stmt* else_stmt = nullptr;  // may be null
  STAP_VISITABLE
};

// for (init; cond; incr) body, and while (cond) body (is_while, no init/incr).
struct ForStmt : Stmt {
  bool is_while = false;
  Expr* init = nullptr;  // each may be null
  Expr* cond = nullptr;
  Expr* incr = nullptr;
  Stmt* body = nullptr;
  STAP_VISITABLE
};

// foreach ([k1, k2-] in a[k, *]+ limit N) / foreach (v = [k] in a) /
// foreach (k in stats @sum-) / foreach (x in @hist_log(s)).
struct ForeachStmt : Stmt {
  Symbol* value = nullptr;          // "v =", may be null
  std::vector<Symbol*> keys;        // loop variables
  bool keys_bracketed = false;      // written as [k] rather than k
  Expr* base = nullptr;             // Symbol of an array, or HistExpr
  std::vector<Expr*> slice;         // a[k, *]: null entries are '*'; empty when no slice
  // Sorting: column 0 sorts by value, 1..n by that key; direction +1/-1,
  // 0 for unsorted.
  int sort_column = 0;
  int sort_direction = 0;
  StatOp sort_aggregate = StatOp::count;  // for statistic arrays
  bool sort_aggregate_given = false;
  Expr* limit = nullptr;
  Stmt* body = nullptr;
  STAP_VISITABLE
};

struct ReturnStmt : Stmt {
  Expr* value = nullptr;  // may be null
  STAP_VISITABLE
};

// delete x / delete a / delete a[k] / delete a[k, *].
struct DeleteStmt : Stmt {
  Expr* target = nullptr;  // Symbol or ArrayIndex
  STAP_VISITABLE
};

struct JumpStmt : Stmt {  // next / break / continue
  enum class Kind : uint8_t { next, break_, continue_ } kind = Kind::next;
  STAP_VISITABLE
};

struct TryStmt : Stmt {
  Block* try_block = nullptr;
  Symbol* catch_var = nullptr;  // catch (msg), may be null
  Block* catch_block = nullptr;
  STAP_VISITABLE
};

#undef STAP_VISITABLE

// ---------------------------------------------------------------- declarations

// A variable of any scope.  Arrays have index_types; statistics have
// type == Type::stats.
struct VarDecl : Node {
  enum class Scope : uint8_t { global, local, param } scope = Scope::local;
  std::string name;
  Type type = Type::unknown;          // declared (":long") or elaborate:
  bool type_declared = false;
  std::vector<Type> index_types;      // non-empty for arrays (elaborate:)
  bool is_array = false;              // "global a[N]" or used as an array
  int64_t max_entries = 0;            // "global a[N]", 0 when not given
  bool wrap = false;                  // "global a%"
  bool is_private = false;
  Expr* init = nullptr;               // "global x = 1": a literal, or null
  std::string file_of_private;        // private globals are per-file
  // elaborate: set on globals the script reads / writes, for elision and
  // for the end-of-run display of written-but-unread globals.
  bool read = false;
  bool written = false;
  bool synthetic = false;             // made up by the compiler (__idx0 ...)
};

// One component of a probe point: name, name(literal) or a wildcard name.
struct ProbePointComponent {
  std::string functor;   // "kernel", "function", "vfs_*", "**"
  Expr* arg = nullptr;   // NumberLit or StringLit, or null
  SourceLoc loc;
};

struct ProbePoint : Node {
  std::vector<ProbePointComponent> components;
  bool optional = false;     // '?'
  bool sufficient = false;   // '!' (implies optional)
  Expr* condition = nullptr; // "if (cond)", may be null
  // "kernel.function(\"foo\").return", as stap prints it.
  std::string to_string() const;
};

struct ProbeDecl : Node {
  std::vector<ProbePoint*> points;
  Block* body = nullptr;
  bool is_private = false;
  // elaborate: the locals of the probe's body (and inlined alias parts).
  std::vector<VarDecl*> locals;
  // elaborate: the chain of alias points this probe was derived from,
  // innermost last, for the "/* <- ... */" annotation of -p2.
  std::vector<const ProbePoint*> derived_from;
  // elaborate: for a derived probe, the alias declarations it went through
  // (innermost first) and the user's probe it came from, for -p2's
  // "/* <- a = begin <- a */" (alias_expansion.h: derivation_note()).
  std::vector<const AliasDecl*> via_aliases;
  const ProbeDecl* origin = nullptr;
  // elaborate: the unread global a synthesized end probe prints at exit
  // (global_display.h), else null.
  const VarDecl* displays = nullptr;
};

// probe a.b = pp1, pp2 { prologue }  /  probe a.b += pp { epilogue }
struct AliasDecl : Node {
  std::vector<ProbePoint*> names;    // alias points; components may hold args
  std::vector<ProbePoint*> points;   // what they expand to
  Block* body = nullptr;
  bool epilogue = false;             // "+="
  bool is_private = false;
};

struct FunctionParam {
  std::string name;
  Type type = Type::unknown;
  bool type_declared = false;
  SourceLoc loc;
};

struct FunctionDecl : Node {
  std::string name;
  std::vector<FunctionParam> params;
  Type return_type = Type::unknown;
  bool return_type_declared = false;
  bool is_private = false;
  Block* body = nullptr;            // null for builtins
  // A body of embedded C (%{ %}): parsed and typed as stap does, refused
  // in pass 3 where a call reaches it.
  bool embedded_c = false;
  std::string embedded_code;
  // stap's /* guru */ tag: a call from the user's files needs -g.
  bool guru_only = false;
  // elaborate: parameter and local declarations.
  std::vector<VarDecl*> param_decls;
  std::vector<VarDecl*> locals;
};

// One parsed file: the user's script, a tapset, or a macro library.
struct File {
  std::string name;
  FileId id = kNoFile;
  bool is_tapset = false;
  // Whether the parser started on any declaration.  False when the
  // preprocessor left it nothing but its own errors (or nothing at all):
  // stap then says "Input file '...' is empty after preprocessing." in
  // place of the parse-error count.
  bool parser_saw_input = false;
  std::vector<VarDecl*> globals;
  std::vector<FunctionDecl*> functions;
  std::vector<ProbeDecl*> probes;
  std::vector<AliasDecl*> aliases;
  // Top-level %{ %} blocks (C declarations for embedded code).
  struct EmbeddedBlock {
    std::string code;
    SourceLoc loc;
  };
  std::vector<EmbeddedBlock> embedded_blocks;
};

// ---------------------------------------------------------------- arena

class Arena {
 public:
  template <typename T, typename... Args>
  T* make(Args&&... args) {
    auto owned = std::make_unique<T>(std::forward<Args>(args)...);
    T* raw = owned.get();
    nodes_.push_back(std::move(owned));
    return raw;
  }
  size_t size() const { return nodes_.size(); }

 private:
  std::deque<std::unique_ptr<Node>> nodes_;
};

}  // namespace stap::ast
