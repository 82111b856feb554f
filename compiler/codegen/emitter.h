// The code generator proper: ir::Node trees -> LLVM IR, one BPF program per
// kernel-context probe.  Private to compiler/codegen.
//
// Value model (see README.md):
//  - a long is an i64; a string is a pointer to a buffer of at least
//    MAXSTRINGLEN readable bytes (a scratch slot, a map value, or a padded
//    literal in .rodata), so helpers may always be given MAXSTRINGLEN;
//  - long locals are allocas (promoted to registers); string locals and
//    every string temporary are slots in the per-CPU scratch map, handed
//    out by a bump allocator that is rewound after each statement;
//  - functions are inlined here, at each call (recursion never reaches
//    kernel context), so errors raised in a callee reach the caller's try
//    by plain control flow.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/bpf_module.h"
#include "ir/ir.h"
#include "ir/memory_readers.h"

namespace stap::codegen {

// A construct kernel context cannot run: becomes CodegenResult::error.
struct CodegenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `emit` (which builds probe p's programs); on success names p's
// program `name`, on a CodegenError sets `error` ("... in probe PP").
template <typename Emit>
bool emit_probe_programs(ir::Probe& p, const std::string& name, std::string& error, Emit emit) {
  try {
    emit();
  } catch (const CodegenError& e) {
    error = std::string(e.what()) + " in probe " + p.pp;
    return false;
  }
  p.program_name = name;
  return true;
}

// What every program of the module shares.
struct ModuleState {
  ir::Module& ir;
  BpfModule& bpf;
  int64_t maxlen;            // MAXSTRINGLEN
  llvm::GlobalVariable* nr_cpus = nullptr;  // STAP_NR_CPUS_VAR
  llvm::GlobalVariable* globals_map = nullptr;
  llvm::GlobalVariable* events_map = nullptr;
  llvm::GlobalVariable* scratch_map = nullptr;  // placeholder until sized
  llvm::GlobalVariable* rodata = nullptr;       // placeholder until filled
  std::vector<llvm::GlobalVariable*> global_maps;  // per ir global, or null
  std::string rodata_bytes;
  std::map<std::string, uint32_t> rodata_index;
  uint32_t scratch_size = 8;  // high-water mark over programs
  int callbacks = 0;          // names of generated callbacks
  llvm::GlobalVariable* tokenize_map = nullptr;  // tokenize()'s state, made on first use
  llvm::GlobalVariable* stack_map = nullptr;       // stacks (emit_stack.cpp), made on first use
  llvm::GlobalVariable* stack_lost_map = nullptr;
  llvm::GlobalVariable* upids_map = nullptr;
  llvm::GlobalVariable* timing_map = nullptr;      // STAP_TIMING_MAP, under -t only
  llvm::GlobalVariable* deferred_map = nullptr;    // STAP_DEFERRED_MAP, made on first use
  // The second runs of entry bodies (emit_deferral.cpp): the index of the
  // probe whose program keeps the run, and the body that reads it back.
  std::vector<std::pair<uint32_t, llvm::Function*>> deferred_bodies;
  // Each probe's place in a task's list of kept runs (deferral_slot), by
  // probe index, made on first use.
  std::vector<int> deferral_slots;
  // verifier_weight of each function asked about (emit_syscall.cpp).
  std::map<const llvm::Function*, size_t> verifier_weights;

  // Offset in .rodata of `s`, NUL padded to `size` bytes (at least
  // MAXSTRINGLEN for a string value, so it can be read like any other).
  uint32_t literal(const std::string& s, bool as_value = true);
  // Offset of `size` zero bytes (a fresh statistic's value).
  uint32_t zeros(uint32_t size);
};

// What a program's context holds, as the code shared by every kind reads
// it: set by the kind's emit function (emit_<kind>.cpp), so nothing below
// asks which kind of probe it serves.
struct ProgramContext {
  // How fn_arg/fn_ret/reg read the probed code's registers: none (no such
  // context), from a struct pt_regs (kprobe, uprobe), or from a BPF
  // trampoline's argument slots (fentry/fexit).
  enum class Registers : uint8_t { none, pt_regs, trampoline };
  Registers registers = Registers::none;
  // fn_name's tables, indexed by the attach cookie: each site's function
  // (b = 0) and probe point (b = 1).
  const std::vector<std::string>* functions = nullptr;
  const std::vector<std::string>* site_points = nullptr;
  bool at_return = false;   // fn_ret is readable (a .return probe)
  int64_t arg_count = -1;   // the probed function's parameters (trampolines)
  bool syscall_exit = false;  // sys_nr/sys_ret of the raw sys_exit context
  // The context is struct bpf_perf_event_data: the sampled registers give
  // addr(), user_mode(), a sampled symname() and probefunc().
  bool perf_sample = false;
  // Whether the program's return value is a verdict, which set_verdict
  // changes and every exit returns: none (the program returns 0); an LSM
  // hook's, starting as the trampoline's slot `verdict_slot` (the one
  // after the arguments: the previous BPF LSM program's), kept in
  // [-MAX_ERRNO, 0]; a netfilter hook's, starting as NF_ACCEPT, returned as
  // NF_DROP or NF_ACCEPT (the only two a BPF netfilter program may return).
  enum class Verdict : uint8_t { none, lsm, netfilter };
  Verdict verdict = Verdict::none;
  int64_t verdict_slot = -1;
  // A system call's entry body that runs again at the call's exit when a
  // user read faults before it has done anything visible
  // (emit_deferral.cpp): what it keeps of its context for that run, the
  // raw sys_enter's number and argument registers, or the first bytes of
  // a syscalls:sys_enter_* record.  deferred_run: this is the second run,
  // which reads them back from its second argument.
  enum class Deferral : uint8_t { none, syscall_regs, trace_record };
  Deferral deferral = Deferral::none;
  bool deferred_run = false;
};

// How probe p's entry body may wait for its system call's exit
// (emit_deferral.cpp): none unless it reads user memory in a syscall's
// entry context whose arguments can be kept.
ProgramContext::Deferral deferral_of(const ir::Module& m, const ir::Probe& p);
// Where a program that calls bodies[first..] as subprograms (the syscall
// dispatchers, the deferred runs) ends (emit_syscall.cpp): past 200
// distinct bodies (the verifier takes 256 functions per program, the
// runtime's included), or past half the verifier's million instructions
// by verifier_weight, an estimate from the IR.
size_t program_end(ModuleState& ms, const std::vector<llvm::Function*>& bodies, size_t first);

// Where probe p (index `index`) keeps its run: its rank among the
// probes that may wait on the same system call, or -1 when it may not
// wait (past STAP_DEFERRED_SLOTS such probes, its read faults take
// stap's fallback).  A place per probe, not the next free one: the exit's
// program then finds each body's run at a fixed offset.
int deferral_slot(ModuleState& ms, size_t index);
// Builds p's second-run body (after its first, `name`), for the programs
// emit_deferred_runs makes.
void emit_deferred_body(ModuleState& ms, const ir::Probe& p, size_t index, ProgramContext context,
                        const std::string& name);
// The raw sys_exit programs that run the kept bodies, attached before
// every other program there (loader/attach/attach_syscall.cpp).
bool emit_deferred_runs(ModuleState& ms, std::string& error);

// Kernel-context programs, one function per kind (emit_<kind>.cpp), chosen
// by the table in codegen.cpp.  Each builds the probe's programs and sets
// Probe::program_name; false with `error` set.
bool emit_tracepoint_program(ModuleState& ms, ir::Probe& p, const ir::TracepointSpec& tp,
                             size_t index, std::string& error);
bool emit_btf_tracepoint_program(ModuleState& ms, ir::Probe& p, const ir::BtfTracepointSpec& tp,
                                 size_t index, std::string& error);
bool emit_lsm_program(ModuleState& ms, ir::Probe& p, const ir::LsmSpec& lsm, size_t index,
                      std::string& error);
bool emit_netfilter_program(ModuleState& ms, ir::Probe& p, const ir::NetfilterSpec& nf,
                            size_t index, std::string& error);
// A syscall probe's body, a subprogram; the dispatching programs of both
// directions come after every body (emit_syscall_dispatchers).
bool emit_syscall_body(ModuleState& ms, ir::Probe& p, const ir::SyscallSpec& sc, size_t index,
                       std::string& error);
bool emit_syscall_dispatchers(ModuleState& ms, std::string& error);
bool emit_kfunc_programs(ModuleState& ms, ir::Probe& p, const ir::KfuncSpec& kfunc, size_t index,
                         std::string& error);
bool emit_uprobe_program(ModuleState& ms, ir::Probe& p, const ir::UprobeSpec& uprobe,
                         size_t index, std::string& error);
// Perf events and hardware watchpoints (a breakpoint is a perf event).
bool emit_perf_program(ModuleState& ms, ir::Probe& p, size_t index, std::string& error);

// An earlier kernel probe whose program `p` can share (same body, same
// locals, same kind and direction, and no pp() telling them apart), or
// null (codegen.cpp).
const ir::Probe* shared_program(const ir::Module& m, size_t index);

class ProgramEmitter {
 public:
  ProgramEmitter(ModuleState& ms, const ir::Probe& probe, ProgramContext context = {});
  // Builds the program; throws CodegenError.  An empty section builds the
  // body as a static subprogram instead, for a dispatching program to call.
  void emit(const std::string& name, const std::string& section);
  // The raw sys_enter (or sys_exit) program of syscall probes
  // (emit_syscall.cpp): in order, each body runs when the call's number is
  // its number, or for every call when that is -1.
  void emit_syscall_dispatch(const std::string& name, bool exit,
                             const std::vector<std::pair<int64_t, llvm::Function*>>& bodies);
  // One STAP_DEFERRED_PROG program (emit_deferral.cpp): the kept runs of
  // the calling task whose bodies are among `bodies`; `last` also counts
  // the runs no program took and empties the task's list.
  void emit_deferred_dispatch(const std::string& name,
                              const std::vector<std::pair<uint32_t, llvm::Function*>>& bodies,
                              bool last);

 private:
  // How a printf/log/warn argument travels (emit_builtins.cpp): its value,
  // or a stack code, address or text the runtime names.
  enum class PrintfCoded { none, stack, usymname, usymdata, ustack_code, ustack_text };
  struct Frame {
    std::vector<llvm::Value*> slots;  // alloca (long) or scratch pointer (string)
    std::vector<ir::Type> types;
    llvm::BasicBlock* ret_bb = nullptr;
    llvm::AllocaInst* ret_val = nullptr;
    size_t loop_base = 0;
  };
  struct Loop { llvm::BasicBlock *brk, *cont; };
  struct Try { llvm::BasicBlock* catch_bb; llvm::Value* slot; };

  // emit_stmt.cpp: statements, control flow, errors, calls
  void prologue();
  void record_run_time();
  void stmt(const ir::Node* n);
  void stmt_loop(const ir::Node* n);
  void stmt_try(const ir::Node* n);
  llvm::Value* call(const ir::Node* n);
  // catchable = false: straight to the error block (MAXACTION, as stap).
  void raise(uint32_t loc, llvm::Value* msg, bool catchable = true);
  void raise_fault(uint32_t loc, const std::string& what, llvm::Value* addr);
  void raise_number(uint32_t loc, const std::string& fmt, llvm::Value* number);
  void raise_number_if(llvm::Value* failed, uint32_t loc, const std::string& fmt,
                       llvm::Value* number);
  void raise_literal(uint32_t loc, const std::string& msg, bool catchable = true);
  void emit_error_block();
  void after_terminator();
  bool open() const;
  llvm::Value* slot_value(const Frame& f, size_t i);

  // emit_deferral.cpp: entry bodies that wait for the system call's exit
  bool may_defer() const;
  void note_effect(const ir::Node* n);
  void note_loop_effects(const ir::Node* loop);
  void defer_if_faulted(llvm::Value* failed, llvm::Value* addr);
  llvm::Value* keep_deferred_run();
  llvm::Value* deferred_map();

  // emit_expr.cpp: values and operators
  llvm::Value* expr(const ir::Node* n);
  llvm::Value* expr_of(const ir::Node* n);
  llvm::Value* binary(const ir::Node* n);
  llvm::Value* divide(const ir::Node* n, llvm::Value* a, llvm::Value* b);
  llvm::Value* logical(const ir::Node* n);
  llvm::Value* conditional(const ir::Node* n);
  llvm::Value* tp_read(const ir::Node* n);
  // emit_syscall.cpp: sys_arg, sys_nr, sys_ret
  llvm::Value* sys_read(const ir::Node* n);
  llvm::Value* saved_register(llvm::Value* regs, int64_t offset);
  llvm::Value* truth(llvm::Value* v);
  // emit_kfunc.cpp: fn_arg, fn_ret, fn_name, reg (kprobe and uprobe
  // programs), kread, uread
  llvm::Value* kfunc_read(const ir::Node* n);
  llvm::Value* memory_read(const ir::Node* n, bool user);
  llvm::Value* trampoline_slot(int64_t i);
  // What the program returns at every exit: 0, or the verdict.
  llvm::Value* program_result();
  llvm::Value* narrow(llvm::Value* v, int64_t size, bool is_signed);
  // emit_stack.cpp: stacks and symbols (captured here, named by the runtime)
  llvm::Value* stack_builtin(const ir::Node* n, bool& handled);
  llvm::Value* stack_code(const ir::Node* n);
  llvm::Value* capture_stack(llvm::Value* in_user, llvm::Value* form);
  llvm::Value* address_code(llvm::Value* address, llvm::Value* form);
  llvm::Value* user_mode_value();
  llvm::Value* sample_ip();
  void stack_record(uint32_t flags, llvm::Value* code, llvm::Value* text);
  void ensure_stack_maps();
  void announce_process(llvm::Value* tgid, llvm::Value* id);
  // emit_stack_text.cpp: backtrace() & co as a string value
  llvm::Value* stack_text_value(const ir::Node* n);
  llvm::Value* kernel_symbol_value(const ir::Node* n);
  llvm::Value* stack_frame_value(const ir::Node* n);
  llvm::Value* probe_module_value(const ir::Node* n);
  llvm::Value* kernel_symbol_text(llvm::Value* work, llvm::Value* mask, int64_t form);
  llvm::Value* user_frame(llvm::Value* level);
  llvm::Value* stack_glue_map();
  llvm::Value* ksym_work(llvm::Value*& mask);
  void capture_kernel_frames(llvm::Value* work, int64_t depth);
  // emit_regex.cpp: =~ and !~ by the pattern's DFA (compiler/ir/regex_dfa.h)
  llvm::Value* regex_match(const ir::Node* n);

  // emit_globals.cpp: scalars, arrays, statistics
  llvm::Value* global_ptr(const ir::Global& g);
  // any_ok: an `any` key ('*') stays zero (a slice pattern).
  llvm::Value* pack_key(const ir::Global& g, const ir::Node* n, size_t nkeys, bool any_ok = false);
  llvm::Value* key_code(const ir::Node* key);  // a coded string key (ir/key_codes.h)
  llvm::Value* slice_op(const ir::Node* n, const ir::Global& g, llvm::Value* map);
  llvm::Function* slice_callback(const ir::Global& g, const ir::Node* n, bool remove);
  llvm::Value* array_op(const ir::Node* n);
  llvm::Value* scalar_op(const ir::Node* n, const ir::Global& g);
  llvm::Value* elem(const ir::Global& g, llvm::Value* map, llvm::Value* key);
  llvm::Value* set_elem(const ir::Node* n, const ir::Global& g, llvm::Value* map, llvm::Value* key);
  void print_hist(const ir::Node* n, const ir::Global& g);
  llvm::Value* add_elem(const ir::Node* n, const ir::Global& g, llvm::Value* map,
                        llvm::Value* key);
  llvm::Value* update_result(llvm::Value* r);  // a map update's error, as i32
  // The element of key, inserted zeroed when missing; branches to `gone`
  // when a concurrent delete took it first.
  llvm::Value* element_or_insert(const ir::Node* n, const ir::Global& g, llvm::Value* map,
                                 llvm::Value* key, llvm::BasicBlock* gone);
  void stat_add(const ir::Node* n);
  llvm::Value* stat_get(const ir::Node* n);
  void clear_global(const ir::Node* n);

  // emit_builtins.cpp: context functions, printing, exit
  llvm::Value* builtin(const ir::Node* n);
  llvm::Value* memory_builtin(const ir::Node* n);
  llvm::Value* text_builtin(const ir::Node* n);
  llvm::Value* clock_builtin(const ir::Node* n);
  llvm::Value* read_string(const ir::Node* n, bool user, llvm::Value* addr, llvm::Value* limit,
                           llvm::Value* err_msg);
  llvm::Value* read_kernel_number(const ir::Node* n, llvm::Value* addr, const ir::NumberReader& r);
  // emit_library.cpp: tables, conversions, the rest of the tapset library
  llvm::Value* library_builtin(const ir::Node* n);
  llvm::Value* table_entry(const std::vector<std::string>& names, llvm::Value* index);
  llvm::Value* number_reader(const ir::Node* n);
  llvm::Value* utf_string(const ir::Node* n);
  void message_record(uint32_t kind, llvm::Value* msg, PrintfCoded how = PrintfCoded::none);
  llvm::Value* string_library(const ir::Node* n);  // bpf_runtime/strings.c
  llvm::Value* ctime_value(const ir::Node* n);      // bpf_runtime/time.c
  llvm::Value* string_warn_reader(const ir::Node* n);
  // emit_quote.cpp: text_str and the *_quoted readers (bpf_runtime/text.c)
  llvm::Value* quote_builtin(const ir::Node* n);
  llvm::Value* escape_text(llvm::Value* slot, llvm::Value* inlen, llvm::Value* outlen,
                           llvm::Value* quoted, bool buffer);
  void printf_record(const ir::Node* n);
  llvm::Value* sprintf_value(const ir::Node* n);
  void exit_record();
  // Reserves a ring-buffer record and writes its header, leaving the
  // builder where it is filled; finish_record() submits it and joins the
  // path where the reservation failed (counted in header.lost_records).
  llvm::Value* begin_record(int64_t size, uint32_t kind, llvm::Value* id, llvm::BasicBlock*& done);
  void finish_record(llvm::Value* rec, llvm::BasicBlock* done, bool urgent = false);
  // dumps[i] > 0: after argument i (an address), that many bytes read
  // there (%m/%M; negative: from user memory).
  PrintfCoded printf_coding(const ir::Node* k) const;
  llvm::Value* user_symbol_address(const ir::Node* k);
  llvm::Value* coded_value(const ir::Node* k, PrintfCoded how);
  void store_coded_slot(llvm::Value* slot, PrintfCoded how, llvm::Value* value, bool aligned);
  void submit_record(uint32_t kind, llvm::Value* id, const std::vector<const ir::Node*>& args,
                     const std::vector<llvm::Value*>& values,
                     const std::vector<int64_t>& dumps = {},
                     const std::vector<PrintfCoded>* coded = nullptr);

  // Small helpers (emit_expr.cpp)
  llvm::Value* i64c(int64_t v);
  llvm::Value* byte_ptr(llvm::Value* base, llvm::Value* offset);
  llvm::Value* byte_ptr(llvm::Value* base, int64_t offset);
  llvm::Value* rodata_ptr(uint32_t offset);
  llvm::Value* scratch_slot(uint32_t size);
  llvm::Value* string_temp();
  void copy_string(llvm::Value* dst, llvm::Value* src, int64_t size);
  void clear_string(llvm::Value* dst);
  llvm::Value* helper(int id, llvm::Type* ret, llvm::ArrayRef<llvm::Value*> args);
  llvm::Value* runtime_call(const char* name, llvm::Type* ret, llvm::ArrayRef<llvm::Value*> args);
  llvm::Value* header_field(size_t offset);
  void atomic_inc(llvm::Value* p);
  llvm::BasicBlock* block(const char* name);
  [[noreturn]] void unsupported(const ir::Node* n, const std::string& what);

  ModuleState& ms_;
  BpfModule& m_;
  llvm::IRBuilder<>& b_;
  const ir::Probe& probe_;
  ProgramContext context_;
  llvm::AllocaInst* reg_slot_ = nullptr;  // saved_register()'s read buffer
  llvm::Function* fn_ = nullptr;
  llvm::Value* ctx_ = nullptr;
  llvm::Value* kept_ = nullptr;  // a deferred run's kept context (stap_deferred_run.data)
  // Whether code emitted so far may have done something visible: a user
  // read that faults after it cannot wait for the call's exit.
  bool effects_begun_ = false;
  llvm::Value* globals_ = nullptr;  // stap_globals[0]
  llvm::Value* scratch_ = nullptr;  // stap_scratch[0] (this CPU's)
  llvm::BasicBlock* exit_bb_ = nullptr;
  llvm::Value* start_ns_ = nullptr;  // -t: when the body began
  llvm::BasicBlock* error_bb_ = nullptr;
  llvm::AllocaInst* err_loc_ = nullptr;
  llvm::AllocaInst* verdict_ = nullptr;  // ProgramContext::verdict
  llvm::AllocaInst* err_msg_ = nullptr;
  llvm::AllocaInst* actions_ = nullptr;
  std::deque<Frame> frames_;  // references stay valid while calls nest
  std::vector<Loop> loops_;
  std::vector<Try> tries_;
  uint32_t scratch_top_ = 8;  // offset 0: the nesting guard
  int call_depth_ = 0;
};

}  // namespace stap::codegen
