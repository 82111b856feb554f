// The inside of pass 3's lowering (lower.h): the lowering every probe kind
// shares.  What differs by kind is behind BodyContext (body_context.h) and
// the kinds' own files (kinds/, chosen by the table in kinds/kinds.cpp).
//   lower.cpp          the driver: globals, functions, probes, lower_body
//   context_rules.cpp  what each function needs (user or kernel context,
//                      recursion), and the located errors of the rules
//   lower_expr.cpp     expressions
//   lower_assign.cpp   assignments, ++/--, <<<, delete
//   lower_stmt.cpp     statements
//   lower_print.cpp    the print family -> printf/sprintf formats
//   trace_events.cpp   the target's trace events and formats (LowerOptions), errors located
// Target variables, for the kinds that have them:
//   target_path.cpp    $p->f[i], &, values: one walker over BTF and DWARF
//                      types (target_type.h, target_path.h)
//   target_cast.cpp    @cast, @var
//   target_pretty.cpp  $$parms, $$return, $var$ (pretty printing)
//   entry_values.cpp   @entry and the entry values of .return probes
//   dwarf_vars.cpp     DWARF variables at a site (process probes, kernel
//                      functions placed from DWARF)
//   registers.cpp      register(), u_register(), returnval(), saved registers
//   autocast.cpp       autocasts, and the types values carry to them
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ast/ast.h"
#include "base/tracefs.h"
#include "elaborate/builtins.h"
#include "kernel/kernel_btf.h"
#include "lower/body_context.h"
#include "lower/lower.h"
#include "lower/target_type.h"

namespace stap::lower {

ir::Type ir_type(ast::Type t);

// What a function's body needs, directly or through what it calls.
struct FunctionFacts {
  std::vector<const ast::FunctionDecl*> callees;
  bool recursive = false;  // on a cycle of the call graph
  // The first construct (in the body or a callee's) that only one side
  // can run, described for messages: "foreach at t.stp:3:5".
  std::string needs_user;
  std::string needs_kernel;
  std::string reaches_recursive;  // name of a recursive function it calls, or itself
};

// The body being lowered, as the shared lowering sees it.
struct BodyState {
  ir::Context context = ir::Context::user;
  std::vector<ir::Type>* slots = nullptr;
  std::unordered_map<const ast::VarDecl*, int> slot_of;
  bool in_function = false;
  const ast::FunctionDecl* function = nullptr;  // whose body, in a function
  BodyContext* kind = nullptr;  // what differs by kind (never null while lowering)
};

// Whether a probe's body (or its point's condition) reads the probed
// code's context: a target variable ($x, $$parms, $return) or @entry.
// Such a kernel.function or process probe gets one program per function
// or site.
bool reads_probe_context(const DerivedProbe& dp);
// Whether a failure to resolve the point must stay silent: the point, or
// any point it was derived through, is optional ('?') or sufficient ('!').
bool optional_point(const DerivedProbe& dp);
// A kernel-context probe of point `pp` with `spec`, its body to come.
ir::Probe kernel_probe(ir::ProbeSpec spec, std::string pp);

class TraceEvents;   // trace_events.h
class KindLowering;  // kinds/kinds.h
struct Place;        // target_path.h
class TypePath;

// The type a value carries for autocasts (autocast.cpp): the address of
// an object of `type`, or a value of `type` (a pointer).  `origin` tells
// types from different @cast modules apart, as stap does.
struct ValueType {
  TType type;
  bool address = false;
  std::string origin;
  bool operator==(const ValueType& o) const;
};

struct ValueTypes {
  // What every typed assignment (or return) agreed on; poisoned once two
  // disagreed.
  struct Merged {
    std::optional<ValueType> type;
    bool poisoned = false;
  };
  static void merge(std::optional<ValueType>& slot, bool& poisoned,
                    const std::optional<ValueType>& t);
  // Of the body being lowered: target expressions' values, its locals.
  std::unordered_map<const ast::Expr*, ValueType> exprs;
  std::unordered_map<const ast::VarDecl*, Merged> locals;
  // Return types, kept across bodies.
  std::unordered_map<const ast::FunctionDecl*, Merged> functions;
};

class Lowerer {
 public:
  Lowerer(const Program& program, const LowerOptions& options, const SourceManager& sources,
          Diagnostics& diags, ir::Module& out);
  ~Lowerer();
  bool run();

  // ---- shared helpers (lower.cpp)
  ir::Module& module() { return out_; }
  const LowerOptions& options() const { return options_; }
  Diagnostics& diagnostics() { return diags_; }
  ir::Node* make(ir::Op op, ir::Type t = ir::Type::none) { return out_.make(op, t); }
  ir::Node* num(int64_t v);
  ir::Node* str(std::string v);
  ir::Node* nop() { return make(ir::Op::nop); }
  // IR the lowering makes itself (guards, trackers): a long-valued op of
  // two operands, and a builtin's call (`pid`, `ustack` ...) as a long.
  ir::Node* long_op(ir::Op op, ir::Node* x, ir::Node* y);
  ir::Node* builtin_call(const std::string& name, std::vector<ir::Node*> args = {});
  // A located runtime-error site: "operator '/' at <input>:1:30".
  uint32_t location(const ast::Expr& e);
  uint32_t location(SourceLoc loc, const std::string& token);
  std::string where(SourceLoc loc) const { return format_loc(sources_, loc); }
  void error(SourceLoc loc, std::string message, std::string token = {});
  // What this engine cannot do yet, where stap can: an error from pass 3
  // on; pass 2 (LowerOptions::checking) lets it pass, as stap's would.
  void limitation(SourceLoc loc, std::string message, std::string token = {});
  // A trial lowering (a probe that is dropped when it cannot be lowered):
  // from begin_trial() on, errors are kept, not reported; end_trial()
  // returns the first (an empty message when there was none).
  struct TrialError {
    std::string message;
    SourceLoc loc;
  };
  void begin_trial();
  TrialError end_trial();
  int global_index(const ast::VarDecl* d) const;
  int slot(const ast::VarDecl* d);
  int add_temp(ir::Type t);
  static int add_slot(std::vector<ir::Type>& slots, const ast::VarDecl* d);
  int function_index(const ast::FunctionDecl* f) const;
  // A global of the lowering's own (not the script's): entry values, the
  // maps process probes keep.  The script's globals come first.
  int hidden_global(ir::Global g);
  size_t script_globals() const { return globals_.size(); }
  // The target kernel's BTF (LowerOptions::btf); null after reporting at
  // `loc` why there is none (quiet: nothing reported).
  kernel::KernelBtf* btf(SourceLoc loc, const std::string& token, bool quiet);
  TraceEvents& trace_events() { return *trace_events_; }

  // ---- the body being lowered (lower.cpp)
  // Lowers dp's body (and condition) into `probe` with the kind's
  // `context`, guards it as the context says, and appends the probe (after
  // the entry probe of its entry values, if it has any).  The probe is
  // moved into the module only then: `context` may refer to it until.
  void lower_body(const DerivedProbe& dp, ir::Probe&& probe, BodyContext& context);
  BodyState& body() { return *body_; }
  BodyContext& context() { return *body_->kind; }

  // ---- expressions (lower_expr.cpp)
  ir::Node* expr(ast::Expr* e);
  ir::Node* keys(ir::Node* into, const std::vector<ast::Expr*>& indexes);
  // The statistic global a StatExpr/HistExpr/<<< operand names, with its keys
  // appended to `into`.  -1 after an error.
  int stats_operand(ast::Expr* operand, ir::Node* into);

  // ---- assignments (lower_assign.cpp)
  ir::Node* assign(ast::AssignExpr& n, bool statement);
  ir::Node* assign_variable(ast::AssignExpr& n, ast::Symbol& sym, ir::Op op);
  ir::Node* assign_element(ast::AssignExpr& n, ast::ArrayIndex& idx, int g, ir::Op op,
                           bool statement);
  ir::Node* delta(ast::Expr* value, ir::Op op);
  ir::Node* incdec(ast::UnaryExpr& n);
  ir::Node* delete_stmt(ast::DeleteStmt& n);

  // ---- statements (lower_stmt.cpp)
  ir::Node* stmt(ast::Stmt* s);

  // ---- print family (lower_print.cpp)
  bool is_print_family(const Builtin& b) const;
  ir::Node* print_call(ast::CallExpr& call, const Builtin& b);
  std::vector<ir::Node*> lower_values(const std::vector<ast::Expr*>& values);

  // ---- calls and context rules (context_rules.cpp)
  void compute_function_facts();
  const FunctionFacts& facts(const ast::FunctionDecl* f) const { return facts_.at(f); }
  ir::Node* call(ast::CallExpr& call);
  void check_builtin_context(const ast::CallExpr& call, const Builtin& b);
  void check_foreach_context(const ast::ForeachStmt& n);
  void check_regex_context(const ast::BinaryExpr& n);

  // ---- target variables: the body's kind answers (body_context.h)
  // any_type: the value may be a long or a string (print's arguments).
  ir::Node* target(ast::TargetSymbol& n, bool any_type = false) {
    return context().target(n, any_type);
  }
  // @defined($x) (or its negation), when the body's kind knows; nullopt
  // for anything else.
  std::optional<bool> target_defined(const ast::Expr* e);
  std::optional<bool> target_exists(const ast::Expr* e);
  // A builtin whose value is the probed context's (registers, or what the
  // kind says: probefunc(), pp() ...); null for the shared builtins.
  ir::Node* context_builtin(ast::CallExpr& call);
  // A long where the script wants one; `any_type`: print's arguments.
  ir::Node* checked_long(ir::Node* v, const ast::Expr& n, bool any_type);

  // ---- @cast and @var (target_cast.cpp)
  ir::Node* cast_expr(ast::CastExpr& n);
  std::optional<bool> cast_exists(const ast::CastExpr& n);
  std::optional<TType> cast_type(const ast::CastExpr& n, bool quiet);
  ir::Node* at_var(ast::AtVar& n);

  // ---- autocasts and value types (autocast.cpp)
  ir::Node* autocast(ast::Autocast& n);
  std::optional<bool> autocast_exists(const ast::Autocast& n);
  // @defined of an expression naming no target: true; else nullopt.
  std::optional<bool> untargeted_exists(const ast::Expr* e);
  std::optional<ValueType> value_type(const ast::Expr& e);
  std::optional<ValueType> builtin_type(const ast::CallExpr& c);
  // A target path's result (finish_path), a value standing for another
  // (@entry, @choose_defined), a local's "=", a function's return.
  void note_path_type(const ast::Expr& n, const Place& p, bool address_of);
  void note_same_type(const ast::Expr& n, const ast::Expr& from);
  void note_local_assign(const ast::VarDecl* local, const ast::Expr& value);
  void note_return(const ast::Expr& value);
  // `out` unchanged, or 0 after an error when it reads a process's memory
  // in a probe that has no probed process (begin, end, timers).
  ir::Node* refuse_process_read(const ast::Expr& n, ir::Node* out,
                                const std::string& what = "@cast of a user-space type");
  // @kderef(SIZE, ADDR), @uderef(SIZE, ADDR)
  ir::Node* deref(ast::AtOp& n);

  // ---- entry values (entry_values.cpp)
  // @entry(e) in a .return body; null elsewhere.
  ir::Node* at_entry(ast::AtOp& n);
  ir::Node* entry_value(ast::Expr& e, bool any_type);
  // A value computed by `make_value` in the entry probe of the .return
  // body being lowered, read here.
  ir::Node* entry_node(const std::function<ir::Node*()>& make_value);

  // ---- pretty printing (target_pretty.cpp)
  ir::Node* pretty_place(TypePath& path, const Place& p, bool full);
  int quoted_string_function(bool user = false);
  int quoted_char_function();

  // ---- registers (registers.cpp)
  ir::Node* register_value(ast::CallExpr& call);
  ir::Node* narrow_register(ir::Node* v, uint32_t size, bool is_signed);
  // A saved user register (DWARF numbering) of the probed thread.
  ir::Node* user_register(int dwarf_reg, uint32_t size, uint32_t shift, bool is_signed,
                          SourceLoc loc, const std::string& token);

 private:
  void lower_globals();
  void collect_histograms();
  void lower_functions();
  void lower_probe(const DerivedProbe& dp);
  void describe_origin(const DerivedProbe& dp, ir::Probe& probe);
  void finish_entry_values(ir::Probe& probe);

  const Program& program_;
  const LowerOptions& options_;
  const SourceManager& sources_;
  Diagnostics& diags_;
  ir::Module& out_;
  std::unordered_map<const ast::VarDecl*, int> globals_;
  std::unordered_map<const ast::FunctionDecl*, int> functions_;
  std::unordered_map<const ast::FunctionDecl*, FunctionFacts> facts_;
  BodyState* body_ = nullptr;
  const ir::Probe* current_probe_ = nullptr;  // whose body lower_body is lowering
  bool trial_ = false;
  TrialError trial_error_;
  std::unique_ptr<TraceEvents> trace_events_;
  bool btf_asked_ = false;  // LowerOptions::btf, asked once
  kernel::KernelBtf* btf_ = nullptr;
  std::string btf_error_;
  // Each probe kind's lowering, made when its first probe comes
  // (kinds/kinds.cpp): some keep state across probes.
  std::vector<std::unique_ptr<KindLowering>> kinds_;
  std::unique_ptr<EntryProbe> entry_;  // of the .return body being lowered
  BodyState entry_state_;              // its body, while entry values are lowered
  struct EntrySave {
    int global;  // the hidden array, keyed by tid()
    int slot;    // the return body's local it is moved into
    ir::Node* value;
  };
  std::vector<EntrySave> entry_saves_;
  ValueTypes value_types_;
  std::string type_origin(const ast::Expr& n);
  int quoted_string_fn_ = -1;
  int quoted_user_string_fn_ = -1;
  int quoted_char_fn_ = -1;
};

}  // namespace stap::lower
