// Entry bodies of system calls that wait for the call's exit when a user
// read faults (the contract: bpf_runtime/stap_layout.h, STAP_DEFERRED_MAP).
//
// A BPF program cannot sleep, so it cannot fault a page in: a path the
// task has not touched yet (a constant in a binary's read-only data, the
// first open of a run) cannot be read at sys_enter, and stap's user_string
// fails there ("user string copy fault").  The system call copies that
// memory itself, so at its exit the page is there.  So an entry body whose
// user read faults before the body has done anything visible (output, a
// global written, a warning: none of it can be taken back) keeps its
// context in the task's storage and ends; a program first on the raw
// sys_exit tracepoint runs a second build of the body with what was kept.
// A fault after something visible takes stap's path (the error, err_msg,
// 0) and is counted, as are runs that could not be kept.
//
// Two contexts can be kept: the raw sys_enter's (SyscallSpec: the number
// and the six argument registers) and a syscalls:sys_enter_* tracepoint's
// record (its first STAP_DEFERRED_DATA bytes hold the number and every
// argument).  Bounded by the 256 functions a program may call, the exit
// side is split like the syscall dispatchers.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>

#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"
#include "codegen/pt_regs.h"
#include "ir/kernel_builtins.h"

namespace stap::codegen {

using namespace llvm;
using Deferral = ProgramContext::Deferral;

namespace {

// x86_64 execve and execveat: once they succeed, the memory the kept
// arguments point into is gone.
constexpr int64_t kNrExecve = 59, kNrExecveat = 322;
// x86_64 user addresses: from mmap_min_addr's default (64 KiB) to the
// end of a 47-bit address space (a 5-level-paging task may map above it
// only when it asks for such an address).
constexpr int64_t kLowestUserAddress = 0x10000, kUserAddressEnd = 0x800000000000;

// What a body's tree (with the functions it calls, which are inlined)
// holds that matters here.
struct BodyScan {
  const ir::Module& m;
  bool user_reads = false;
  bool effects = false;
  bool fields_kept = true;  // every record field within the kept bytes, past the common ones
  int64_t fields_end = 8;   // where the last field read ends
  std::set<int64_t> seen;   // functions walked

  void walk(const ir::Node* n) {
    if (!n) return;
    if (n->op == ir::Op::uread || (n->op == ir::Op::builtin && n->s.starts_with("user_")))
      user_reads = true;
    if (n->op == ir::Op::tp_chars || n->op == ir::Op::tp_dataloc ||
        (n->op == ir::Op::tp_field && (n->a < 8 || n->a + n->b > STAP_DEFERRED_DATA)))
      fields_kept = false;
    if (n->op == ir::Op::tp_field) fields_end = std::max(fields_end, n->a + n->b);
    if (node_has_effect(*n)) effects = true;
    if (n->op == ir::Op::call && seen.insert(n->a).second) walk(m.functions.at(size_t(n->a)).body);
    for (const ir::Node* k : n->kids) walk(k);
  }

  // What can be seen outside the body once the node has run.  A call is
  // its callee's nodes (walked where it is inlined).
  static bool node_has_effect(const ir::Node& n) {
    switch (n.op) {
      case ir::Op::set_global: case ir::Op::add_global: case ir::Op::set_elem:
      case ir::Op::add_elem: case ir::Op::delete_elem: case ir::Op::clear_global:
      case ir::Op::stat_add: case ir::Op::print_hist: case ir::Op::printf: case ir::Op::error:
      case ir::Op::exit: case ir::Op::set_verdict: case ir::Op::set_procfs_value:
        return true;
      case ir::Op::builtin: return ir::builtin_has_effect(n.s);
      default: return false;
    }
  }
};

}  // namespace

Deferral deferral_of(const ir::Module& m, const ir::Probe& p) {
  if (p.context != ir::Context::kernel) return Deferral::none;
  Deferral kind = Deferral::none;
  if (const auto* sc = p.as<ir::SyscallSpec>()) {
    if (!sc->is_exit()) kind = Deferral::syscall_regs;
  } else if (const auto* tp = p.as<ir::TracepointSpec>()) {
    if (tp->system == "syscalls" && tp->event.starts_with("sys_enter_"))
      kind = Deferral::trace_record;
  }
  if (kind == Deferral::none) return kind;
  BodyScan scan{m};
  scan.walk(p.body);
  if (!scan.user_reads || (kind == Deferral::trace_record && !scan.fields_kept))
    return Deferral::none;
  return kind;
}

int deferral_slot(ModuleState& ms, size_t index) {
  if (ms.deferral_slots.empty()) {
    // Probes that may wait on the same call: the same sys_enter_NAME
    // (a raw dispatch's SyscallSpec or the syscalls: tracepoint).
    std::map<std::string, int> taken;
    for (const ir::Probe& p : ms.ir.probes) {
      int slot = -1;
      if (deferral_of(ms.ir, p) != Deferral::none) {
        const auto* sc = p.as<ir::SyscallSpec>();
        const auto* tp = p.as<ir::TracepointSpec>();
        int& next = taken[sc ? sc->event : tp->event];
        if (next < STAP_DEFERRED_SLOTS) slot = next++;
      }
      ms.deferral_slots.push_back(slot);
    }
  }
  return ms.deferral_slots.at(index);
}

void emit_deferred_body(ModuleState& ms, const ir::Probe& p, size_t index, ProgramContext context,
                        const std::string& name) {
  if (context.deferral == Deferral::none || deferral_slot(ms, index) < 0) return;
  context.deferred_run = true;
  std::string body = name + "_deferred";
  ProgramEmitter(ms, p, context).emit(body, "");
  ms.deferred_bodies.emplace_back(uint32_t(index), ms.bpf.module().getFunction(body));
}

bool emit_deferred_runs(ModuleState& ms, std::string& error) {
  const auto& all = ms.deferred_bodies;
  std::vector<Function*> fns;
  for (const auto& b : all) fns.push_back(b.second);
  for (size_t first = 0, end = 0, part = 0; first < all.size(); first = end, ++part) {
    end = program_end(ms, fns, first);
    std::string name = std::string(STAP_DEFERRED_PROG) + (part ? "_" + std::to_string(part) : "");
    std::vector<std::pair<uint32_t, Function*>> chunk(all.begin() + long(first),
                                                      all.begin() + long(end));
    try {
      ProgramEmitter(ms, ms.ir.probes.at(chunk[0].first))
          .emit_deferred_dispatch(name, chunk, end == all.size());
    } catch (const CodegenError& e) {
      error = e.what();
      return false;
    }
  }
  return true;
}

bool ProgramEmitter::may_defer() const {
  return context_.deferral != Deferral::none && !context_.deferred_run;
}

void ProgramEmitter::note_effect(const ir::Node* n) {
  if (may_defer() && !effects_begun_ && BodyScan::node_has_effect(*n)) effects_begun_ = true;
}

// A loop's later passes follow whatever its earlier ones did.
void ProgramEmitter::note_loop_effects(const ir::Node* loop) {
  if (!may_defer() || effects_begun_) return;
  BodyScan scan{ms_.ir};
  scan.walk(loop);
  if (scan.effects) effects_begun_ = true;
}

Value* ProgramEmitter::deferred_map() {
  if (!ms_.deferred_map)
    ms_.deferred_map = m_.add_map({STAP_DEFERRED_MAP, kMapTaskStorage, 0, kMapFlagNoPrealloc, 4,
                                   unsigned(sizeof(stap_deferred))});
  return ms_.deferred_map;
}

// Before a user read's fault path: when `failed`, the run is kept for the
// call's exit and the body ends; else (or when it cannot be kept) the
// code after this goes on to the fault path.  A fault after something
// visible is counted, unless no mapping can have its address (NULL, the
// first 64 KiB, a kernel address): that is the script's or the traced
// program's mistake, which waiting would not mend.  (Kept runs are not
// told apart so: a branch on the address at every read multiplies the
// states the verifier walks, past its limit for syscall.* with argstr;
// such a run simply fails again at the exit.)
void ProgramEmitter::defer_if_faulted(Value* failed, Value* addr) {
  if (!may_defer()) return;
  BasicBlock* faulted = block("user_fault");
  BasicBlock* go_on = block("user_read_on");
  b_.CreateCondBr(failed, faulted, go_on);
  b_.SetInsertPoint(faulted);
  if (effects_begun_) {
    BasicBlock* count = block("count_fault");
    Value* mappable = b_.CreateAnd(b_.CreateICmpUGE(addr, i64c(kLowestUserAddress)),
                                   b_.CreateICmpULT(addr, i64c(kUserAddressEnd)));
    b_.CreateCondBr(mappable, count, go_on);
    b_.SetInsertPoint(count);
    atomic_inc(header_field(offsetof(stap_globals_header, deferred_failed)));
    b_.CreateBr(go_on);
  } else {
    BasicBlock* leave = block("deferred");
    b_.CreateCondBr(keep_deferred_run(), leave, go_on);
    b_.SetInsertPoint(leave);
    b_.CreateStore(i64c(0), scratch_);  // the nesting guard, as every exit clears it
    b_.CreateRet(program_result());
  }
  b_.SetInsertPoint(go_on);
}

// Keeps this run in the probe's place of the task's list (deferral_slot):
// the probe, the call's number and the context kept.  An i1: whether it
// was kept (counted either way).
Value* ProgramEmitter::keep_deferred_run() {
  Value* task = helper(kGetCurrentTaskBtf, m_.ptr, {});
  Value* store = helper(kTaskStorageGet, m_.ptr,
                        {deferred_map(), task, ConstantPointerNull::get(cast<PointerType>(m_.ptr)),
                         i64c(kStorageCreate)});
  BasicBlock* have = block("have_runs");
  BasicBlock* room = block("run_room");
  BasicBlock* full = block("runs_full");
  BasicBlock* done = block("run_kept");
  b_.CreateCondBr(b_.CreateIsNull(store), full, have);

  b_.SetInsertPoint(have);
  Value* count = b_.CreateLoad(m_.i32, store);
  int slot = deferral_slot(ms_, size_t(&probe_ - ms_.ir.probes.data()));
  b_.CreateBr(slot < 0 ? full : room);

  b_.SetInsertPoint(room);
  Value* run = byte_ptr(store, int64_t(offsetof(stap_deferred, runs) +
                                       size_t(std::max(slot, 0)) * sizeof(stap_deferred_run)));
  Value* data = byte_ptr(run, int64_t(offsetof(stap_deferred_run, data)));
  auto keep_word = [&](int64_t i, Value* v) {
    b_.CreateAlignedStore(v, byte_ptr(data, i * 8), MaybeAlign(8));
  };
  Value* nr;
  if (context_.deferral == Deferral::syscall_regs) {
    // sys_enter(struct pt_regs *regs, long id)
    nr = b_.CreateLoad(m_.i64, byte_ptr(ctx_, int64_t(8)));
    Value* regs = b_.CreateIntToPtr(b_.CreateLoad(m_.i64, ctx_), m_.ptr);
    keep_word(0, nr);
    for (int64_t i = 0; i < 6; ++i)
      keep_word(1 + i, saved_register(regs, pt_regs::kSyscallArgs[i]));
  } else {
    // The record: the common fields, int __syscall_nr at 8, the arguments.
    // Only as far as the body reads (the kernel refuses to attach a
    // program that reads past an event's record), and not the common
    // fields, which a tracepoint program may not read (nor, so, the kept
    // body: deferral_of).
    BodyScan scan{ms_.ir};
    scan.walk(probe_.body);
    keep_word(0, i64c(0));
    for (int64_t i = 1; i * 8 < scan.fields_end; ++i)
      keep_word(i, b_.CreateLoad(m_.i64, byte_ptr(ctx_, i * 8)));
    nr = b_.CreateSExt(b_.CreateLoad(m_.i32, byte_ptr(ctx_, int64_t(8))), m_.i64);
  }
  b_.CreateStore(b_.getInt32(uint32_t(&probe_ - ms_.ir.probes.data()) + 1), run);
  b_.CreateStore(b_.CreateTrunc(nr, m_.i32),
                 byte_ptr(run, int64_t(offsetof(stap_deferred_run, nr))));
  b_.CreateStore(b_.CreateAdd(count, b_.getInt32(1)), store);
  atomic_inc(header_field(offsetof(stap_globals_header, deferred_runs)));
  b_.CreateBr(done);

  b_.SetInsertPoint(full);
  atomic_inc(header_field(offsetof(stap_globals_header, deferred_failed)));
  b_.CreateBr(done);

  b_.SetInsertPoint(done);
  PHINode* kept = b_.CreatePHI(b_.getInt1Ty(), 2);
  kept->addIncoming(b_.getTrue(), room);
  kept->addIncoming(b_.getFalse(), full);
  return kept;
}

// The exit's programs: each body with a run is called from one place, with
// its run at a fixed offset (its probe's slot), so the verifier walks each
// body once.  (A bpf_loop callback over the slots walked them once too,
// but Linux 6.18 marks every value precise at a callback's entry and
// prunes nothing there: syscall.openat's argstr, 21,000 instructions
// walked at the entry, passed a million in the callback.)
void ProgramEmitter::emit_deferred_dispatch(
    const std::string& name, const std::vector<std::pair<uint32_t, Function*>>& bodies, bool last) {
  fn_ = m_.begin_program(name, "raw_tp/sys_exit");
  ctx_ = fn_->getArg(0);
  BasicBlock* done = block("done");
  Value* task = helper(kGetCurrentTaskBtf, m_.ptr, {});
  auto* null = ConstantPointerNull::get(cast<PointerType>(m_.ptr));
  Value* store = helper(kTaskStorageGet, m_.ptr, {deferred_map(), task, null, i64c(0)});
  BasicBlock* have = block("have_runs");
  b_.CreateCondBr(b_.CreateIsNull(store), done, have);

  b_.SetInsertPoint(have);
  BasicBlock* some = block("some_runs");
  b_.CreateCondBr(b_.CreateICmpEQ(b_.CreateLoad(m_.i32, store), b_.getInt32(0)), done, some);

  b_.SetInsertPoint(some);
  // sys_exit(struct pt_regs *regs, long ret)
  Value* regs = b_.CreateIntToPtr(b_.CreateLoad(m_.i64, ctx_), m_.ptr);
  Value* nr = b_.CreateTrunc(saved_register(regs, pt_regs::kOrigAx), m_.i32);
  Value* ret = b_.CreateLoad(m_.i64, byte_ptr(ctx_, int64_t(8)));
  Value* exec = b_.CreateOr(b_.CreateICmpEQ(nr, b_.getInt32(kNrExecve)),
                            b_.CreateICmpEQ(nr, b_.getInt32(kNrExecveat)));
  // After a successful exec the kept addresses are the old image's.
  BasicBlock* runnable = block("runnable");
  BasicBlock* taken = block("runs_taken");
  b_.CreateCondBr(b_.CreateAnd(exec, b_.CreateICmpEQ(ret, i64c(0))), taken, runnable);
  b_.SetInsertPoint(runnable);
  auto run_at = [&](int slot) {
    return byte_ptr(store, int64_t(offsetof(stap_deferred, runs) +
                                   size_t(slot) * sizeof(stap_deferred_run)));
  };
  std::set<uint32_t> cased;
  for (const auto& [probe, body] : bodies) {
    if (!cased.insert(probe).second) continue;
    Value* run = run_at(deferral_slot(ms_, probe));
    Value* mine = b_.CreateAnd(
        b_.CreateICmpEQ(b_.CreateLoad(m_.i32, run), b_.getInt32(probe + 1)),
        b_.CreateICmpEQ(b_.CreateLoad(m_.i32, byte_ptr(run, int64_t(offsetof(stap_deferred_run, nr)))),
                        nr));
    BasicBlock* call = block("deferred_body");
    BasicBlock* next = block("next_body");
    b_.CreateCondBr(mine, call, next);
    b_.SetInsertPoint(call);
    b_.CreateCall(body, {ctx_, byte_ptr(run, int64_t(offsetof(stap_deferred_run, data)))});
    b_.CreateStore(b_.getInt32(STAP_DEFERRED_DONE), run);
    b_.CreateBr(next);
    b_.SetInsertPoint(next);
  }
  b_.CreateBr(taken);
  b_.SetInsertPoint(taken);
  if (last) {
    // What no program ran (a stale run, or one after a successful exec)
    // is counted; then the list is empty.
    AllocaInst* zero = m_.entry_alloca(m_.i32, "zero");
    b_.CreateStore(b_.getInt32(0), zero);
    Value* globals = helper(kMapLookupElem, m_.ptr, {ms_.globals_map, zero});
    for (int slot = 0; slot < STAP_DEFERRED_SLOTS; ++slot) {
      Value* run = run_at(slot);
      Value* kept = b_.CreateLoad(m_.i32, run);
      Value* left = b_.CreateAnd(b_.CreateICmpNE(kept, b_.getInt32(STAP_DEFERRED_DONE)),
                                 b_.CreateICmpNE(kept, b_.getInt32(0)));
      BasicBlock* lost = block("run_lost");
      BasicBlock* counted = block("run_counted");
      b_.CreateCondBr(b_.CreateAnd(left, b_.CreateIsNotNull(globals)), lost, counted);
      b_.SetInsertPoint(lost);
      atomic_inc(byte_ptr(globals, int64_t(offsetof(stap_globals_header, deferred_failed))));
      b_.CreateBr(counted);
      b_.SetInsertPoint(counted);
      b_.CreateStore(b_.getInt32(0), run);
    }
    b_.CreateStore(b_.getInt32(0), store);
  }
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  b_.CreateRet(b_.getInt32(0));
}

}  // namespace stap::codegen
