// The inside of pass 3's lowering (lower.h), shared by the files of this
// directory:
//   lower.cpp         the driver: globals, functions, probes, body setup
//   context_rules.cpp what each function needs (user or kernel context,
//                     recursion), and the located errors of the rules
//   lower_expr.cpp    expressions
//   lower_assign.cpp  assignments, ++/--, <<<, delete
//   lower_stmt.cpp    statements
//   lower_print.cpp   the print family -> printf/sprintf formats
//   lower_target.cpp  tracepoint target variables -> record reads
//   lower_probe.cpp   probe points -> ir::Probe specs (timers, tracefs)
//   lower_kfunc.cpp   kernel function points -> kfunc probes
//   lower_target_path.cpp   $p->f[i], &, values: one walker over BTF and
//                           DWARF types (target_type.h, kfunc_target.h)
//   lower_kfunc_target.cpp  kernel functions' target variables, @cast, @var
//   lower_kfunc_pretty.cpp  $$parms, $$return, $var$ (pretty printing), both
//   lower_kfunc_entry.cpp   @entry and entry values of .return probes, both
//   lower_uprobe.cpp  process("P") code points -> uprobe probes, marks' $argN
//   lower_uprobe_target.cpp  DWARF variables of process functions and statements
//   lower_process.cpp process life events and system calls (begin, end,
//                     thread.*, syscall[.return]), scoped by pid, path, -c tree
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
#include "lower/lower.h"

namespace stap::debuginfo {
struct ResolvedPoint;  // debuginfo/process_points.h
struct Binary;         // debuginfo/process_points.h
struct ProbeSite;
struct SdtMark;        // debuginfo/sdt_notes.h
}  // namespace stap::debuginfo

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

// Everything known about the body being lowered.
struct BodyState {
  ir::Context context = ir::Context::user;
  std::vector<ir::Type>* slots = nullptr;
  std::unordered_map<const ast::VarDecl*, int> slot_of;
  const tracefs::Format* event = nullptr;  // kernel.trace probes
  // A system call probe (ProbeKind::syscall, or a syscalls:* tracepoint
  // whose number is unknown): its direction, and for an exit the entry
  // event's format, whose arguments stay readable there.
  bool syscall_raw = false;                // read through the saved registers
  bool syscall_exit = false;
  const tracefs::Format* entry_event = nullptr;
  // A kernel function probe (ProbeKind::kfunc): the function whose
  // parameters $name reads (null for a probe over many functions, or one
  // without BTF), and whether the body runs at its return.
  const kernel::Function* kfunc = nullptr;
  bool kfunc_return = false;
  // The kfunc probe being lowered and the point it came from
  // (lower_kfunc.cpp: probefunc(), pp()).
  const ir::Probe* kfunc_probe = nullptr;
  const ast::ProbePoint* kfunc_point = nullptr;
  // A user-space probe (ProbeKind::uprobe; lower_uprobe.cpp): the probe,
  // the point pass 2 resolved, and the one site whose context the body
  // reads (null for a probe over many sites).
  // A kernel function probe placed from DWARF (lower_kfunc_dwarf.cpp)
  // sets uprobe_point and uprobe_site too (not uprobe_probe): its
  // variables are DWARF's, read from kernel memory.
  const ir::Probe* uprobe_probe = nullptr;
  const debuginfo::ResolvedPoint* uprobe_point = nullptr;
  const debuginfo::ProbeSite* uprobe_site = nullptr;
  bool in_function = false;
};

// Whether a probe's body (or its point's condition) reads the probed
// code's context: a target variable ($x, $$parms, $return) or @entry.
// Such a kernel.function or process probe gets one program per function
// or site (lower_kfunc.cpp).
bool reads_probe_context(const DerivedProbe& dp);

struct Place;     // kfunc_target.h
// process.begin/.end/.thread.*/.syscall[.return] (lower_process.cpp).
enum class ProcessEvent : uint8_t { none, begin, end, thread_begin, thread_end, syscall, syscall_return };
struct ProcessPoint;
class ProcessLowering;
class TypePath;
struct TType;     // target_type.h

// The entry probe a kernel-function .return body's entry values need
// (lower_kfunc_entry.cpp).
struct EntryValues {
  struct Save {
    int global;  // the hidden array, keyed by tid()
    int slot;    // the return body's local it is moved into
    ir::Node* value;
  };
  ir::Probe probe;
  BodyState state;
  std::vector<Save> saves;
  // A process function's entry probe: its own site, after the prologue
  // (the .return site is the function's first instruction).
  std::shared_ptr<debuginfo::ProbeSite> site;
};

class Lowerer {
 public:
  Lowerer(const Program& program, const LowerOptions& options, const SourceManager& sources,
          Diagnostics& diags, ir::Module& out)
      : program_(program), options_(options), sources_(sources), diags_(diags), out_(out) {}
  bool run();

  // ---- shared helpers (lower.cpp)
  ir::Module& module() { return out_; }
  ir::Node* make(ir::Op op, ir::Type t = ir::Type::none) { return out_.make(op, t); }
  ir::Node* num(int64_t v);
  ir::Node* str(std::string v);
  ir::Node* nop() { return make(ir::Op::nop); }
  // A located runtime-error site: "operator '/' at <input>:1:30".
  uint32_t location(const ast::Expr& e);
  uint32_t location(SourceLoc loc, const std::string& token);
  std::string where(SourceLoc loc) const { return format_loc(sources_, loc); }
  void error(SourceLoc loc, std::string message, std::string token = {});
  int global_index(const ast::VarDecl* d) const;
  int slot(const ast::VarDecl* d);
  int add_temp(ir::Type t);
  static int add_slot(std::vector<ir::Type>& slots, const ast::VarDecl* d);
  int function_index(const ast::FunctionDecl* f) const;
  BodyState& body() { return *body_; }

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

  // ---- target variables (lower_target.cpp)
  // any_type: the value may be a long or a string (print's arguments).
  ir::Node* target(ast::TargetSymbol& n, bool any_type = false);
  // @defined($f) (or its negation) in a tracepoint probe: whether the field
  // exists; nullopt for anything else.
  std::optional<bool> target_defined(const ast::Expr* e);
  std::optional<bool> target_exists(const ast::Expr* e);
  ir::Node* field_read(const tracefs::Field& f, const ast::TargetSymbol& n);
  ir::Node* pretty(ir::Node* read);
  ir::Node* all_fields(const tracefs::Format& event, const ast::TargetSymbol& n);
  // System call fields (lower_syscall.cpp).
  void syscall_context(BodyState& state, const ir::Probe& probe, SourceLoc loc);
  const tracefs::Field* syscall_field(const std::string& name, const tracefs::Format*& owner);
  ir::Node* syscall_read(ir::Node* read, const tracefs::Field& f, const tracefs::Format& owner,
                         const ast::TargetSymbol& n);

  // ---- kernel functions' target variables, @cast, @var, @entry
  // (lower_kfunc_target.cpp, lower_kfunc_pretty.cpp, lower_kfunc_entry.cpp)
  bool kfunc_body() const;
  ir::Node* kfunc_target(ast::TargetSymbol& n, bool any_type);
  std::optional<bool> kfunc_exists(const ast::Expr* e);
  bool kfunc_base(const ast::TargetSymbol& n, Place& p, bool quiet);
  ir::Node* kfunc_all_vars(ast::TargetSymbol& n);
  ir::Node* checked_long(ir::Node* v, const ast::Expr& n, bool any_type);
  ir::Node* cast_expr(ast::CastExpr& n);
  std::optional<bool> cast_exists(const ast::CastExpr& n);
  std::optional<TType> cast_type(const ast::CastExpr& n, bool quiet);
  kernel::KernelBtf* cast_btf(SourceLoc loc, const std::string& token, bool quiet);
  ir::Node* at_var(ast::AtVar& n);
  // @entry(e) in a kfunc .return body; null elsewhere.
  ir::Node* at_entry(ast::AtOp& n);
  ir::Node* entry_value(ast::Expr& e, bool any_type);
  // A value computed by `make_value` in the entry probe of the .return
  // body being lowered (return_body()), read here.
  ir::Node* entry_node(const std::function<ir::Node*()>& make_value);
  bool return_body() const;
  void finish_entry_values(ir::Probe& probe);
  ir::Node* pretty_place(TypePath& path, const Place& p, bool full);
  int quoted_string_function(bool user = false);
  int quoted_char_function();
  // A global of the lowering's own (not the script's): entry values.
  int hidden_global(ir::Global g);

  // ---- probe points (lower_probe.cpp)
  void lower_probe(const DerivedProbe& dp);

  // ---- kernel functions (lower_kfunc.cpp)
  // probefunc(), probemod(), pp() in a kfunc probe's body; null elsewhere.
  ir::Node* kfunc_builtin(const std::string& name);

  // ---- user-space probes (lower_uprobe.cpp: points, marks' arguments;
  // lower_uprobe_target.cpp: DWARF variables)
  bool uprobe_body() const;
  // probefunc(), probemod(), pp(), register(), u_register(), returnval()
  // in a uprobe's body; null elsewhere.
  ir::Node* uprobe_builtin(ast::CallExpr& call);
  ir::Node* register_value(ast::CallExpr& call);
  ir::Node* narrow_register(ir::Node* v, uint32_t size, bool is_signed);
  ir::Node* uprobe_target(ast::TargetSymbol& n, bool any_type);
  std::optional<bool> uprobe_exists(const ast::Expr* e);
  ir::Node* mark_target(ast::TargetSymbol& n, bool any_type);
  ir::Node* mark_argument(const debuginfo::SdtMark& mark, size_t argno, const ast::TargetSymbol& n);
  // A saved user register (DWARF numbering) of the probed thread.
  ir::Node* user_register(int dwarf_reg, uint32_t size, uint32_t shift, bool is_signed,
                          SourceLoc loc, const std::string& token);
  ir::Node* dwarf_target(ast::TargetSymbol& n, bool any_type);
  std::optional<bool> dwarf_exists(const ast::Expr* e);
  // The DWARF site a body's variables are read at: a uprobe's, or a kernel
  // function probe's placed from DWARF (null: none); whether the body is
  // that of a .return; whether the site is kernel code.
  const debuginfo::ProbeSite* dwarf_site() const;
  bool dwarf_return() const;
  bool dwarf_kernel() const;
  // A kernel DWARF address (DW_OP_addr) where the running kernel has it
  // (lower_kfunc_dwarf.cpp); null after reporting why at `loc`.
  ir::Node* kernel_dwarf_address(const debuginfo::Binary& bin, const std::string& module,
                                 uint64_t address, SourceLoc loc, const std::string& token);

  // ---- process life events and system calls (lower_process.cpp):
  // $syscall, $argN, $$parms, $return in process.syscall[.return]
  bool process_body() const;
  // Whether the current task runs the program at `path` (canonical): a
  // long 0/1 using temporaries of `slots`; null when `path` cannot be
  // stat'ed.  Scopes process("P").library("L") uprobes to P's processes.
  ir::Node* runs_image(const std::string& path, std::vector<ir::Type>& slots, SourceLoc loc);
  ir::Node* process_target(ast::TargetSymbol& n, bool any_type);
  std::optional<bool> process_exists(const ast::Expr* e);
  bool dwarf_base(const ast::TargetSymbol& n, Place& p, bool quiet);
  ir::Node* dwarf_all_vars(ast::TargetSymbol& n);
  // @cast of a user binary's type (a path, or the probed binary's when a
  // process probe names no module); @var of a process probe.
  bool user_cast(const ast::CastExpr& n) const;
  std::optional<TType> dwarf_cast_type(const ast::CastExpr& n, bool quiet);
  ir::Node* dwarf_at_var(ast::AtVar& n);

 private:
  void lower_globals();
  void collect_histograms();
  void lower_functions();
  void lower_body(const DerivedProbe& dp, ir::Probe probe);
  bool tracefs_events(std::vector<tracefs::Event>*& out, SourceLoc loc, bool quiet);
  const tracefs::Format* event_format(const tracefs::Event& e, SourceLoc loc);
  void unsupported_point(const DerivedProbe& dp);
  void lower_trace_points(const DerivedProbe& dp);
  void lower_perf_point(const DerivedProbe& dp);  // lower_perf.cpp: timer.profile.tick, perf.*
  void syscall_probe(ir::Probe& probe, const tracefs::Event& e);
  void lower_kfunc_points(const DerivedProbe& dp);
  void lower_kfunc_dwarf_points(const DerivedProbe& dp);  // lower_kfunc_dwarf.cpp
  // A function named without a file whose body reads what BTF lacks (a
  // local, $$locals): lowered as a DWARF site when the kernel's DWARF is
  // installed (true), else left to BTF (false).
  bool lower_kfunc_by_dwarf(const DerivedProbe& dp, const KernelFunctionRef& f);
  void lower_uprobe_points(const DerivedProbe& dp);
  void lower_uprobe_body(const DerivedProbe& dp, ir::Probe probe, const debuginfo::ProbeSite* site);
  friend class ProcessLowering;
  void lower_process_points(const DerivedProbe& dp);
  void lower_process_body(const DerivedProbe& dp, ir::Probe probe, const ProcessPoint& pp,
                          bool at_exec);
  void kfunc_context(BodyState& state, const ir::Probe& probe,
                     std::optional<kernel::Function>& holder);

  const Program& program_;
  const LowerOptions& options_;
  const SourceManager& sources_;
  Diagnostics& diags_;
  ir::Module& out_;
  std::unordered_map<const ast::VarDecl*, int> globals_;
  std::unordered_map<const ast::FunctionDecl*, int> functions_;
  std::unordered_map<const ast::FunctionDecl*, FunctionFacts> facts_;
  BodyState* body_ = nullptr;
  // tracefs, read once per compilation.
  std::string tracefs_root_;
  bool tracefs_read_ = false;
  std::string tracefs_error_;
  std::vector<tracefs::Event> events_;
  std::map<std::pair<std::string, std::string>, tracefs::Format> formats_;
  // Kernel functions' target variables.
  std::unique_ptr<kernel::KernelBtf> cast_btf_;  // @cast's types, loaded on first use
  std::string cast_btf_error_;
  std::optional<EntryValues> entry_;  // of the .return body being lowered
  int quoted_string_fn_ = -1;
  int quoted_user_string_fn_ = -1;
  int quoted_char_fn_ = -1;
  // The uprobe point and site lower_body is lowering (lower_uprobe_body).
  const debuginfo::ResolvedPoint* uprobe_point_ = nullptr;
  const debuginfo::ProbeSite* uprobe_site_ = nullptr;
  // The process event whose body lower_body is lowering, and the hidden
  // maps of the -c tree and of each process's image (-1: none yet).
  ProcessEvent process_event_ = ProcessEvent::none;
  int proc_tree_ = -1, proc_images_ = -1;
};

}  // namespace stap::lower
