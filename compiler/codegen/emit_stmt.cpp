// Statements, control flow, runtime errors and (inlined) function calls.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>

#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"

using namespace llvm;

namespace stap::codegen {

ProgramEmitter::ProgramEmitter(ModuleState& ms, const ir::Probe& probe, ProgramContext context)
    : ms_(ms), m_(ms.bpf), b_(ms.bpf.b()), probe_(probe), context_(context) {}

void ProgramEmitter::emit(const std::string& name, const std::string& section) {
  fn_ = section.empty() ? m_.begin_subprogram(name, context_.deferred_run)
                        : m_.begin_program(name, section);
  ctx_ = fn_->getArg(0);
  if (context_.deferred_run) kept_ = fn_->getArg(1);
  prologue();
  Frame f;
  for (ir::Type t : probe_.slots) {
    f.types.push_back(t);
    if (t == ir::Type::string) {
      Value* p = scratch_slot(uint32_t(ms_.maxlen));
      clear_string(p);
      f.slots.push_back(p);
    } else {
      AllocaInst* a = m_.entry_alloca(m_.i64, "local");
      b_.CreateStore(i64c(0), a);
      f.slots.push_back(a);
    }
  }
  f.ret_bb = exit_bb_;
  frames_.push_back(std::move(f));
  stmt(probe_.body);
  if (open()) b_.CreateBr(exit_bb_);
  emit_error_block();
  // Blocks opened after a terminator (code after return, break ...) are
  // unreachable; LLVM drops them.
  for (BasicBlock& bb : *fn_)
    if (!bb.getTerminator()) new UnreachableInst(bb.getContext(), &bb);
  ms_.scratch_size = std::max(ms_.scratch_size, scratch_top_);
}

// What the verifier lets each kind of verdict return.  An LSM verdict is
// kept in [-MAX_ERRNO, 0] (0 is also in the range of the hooks that return
// 0 or 1): a positive value allows.  A netfilter verdict is NF_DROP when
// its low byte is (as the kernel reads verdicts: NF_DROP_ERR's too), else
// NF_ACCEPT: NF_STOLEN, NF_QUEUE, NF_REPEAT and NF_STOP accept.
Value* ProgramEmitter::program_result() {
  if (!verdict_) return b_.getInt32(0);
  Value* v = b_.CreateLoad(m_.i64, verdict_);
  if (context_.verdict == ProgramContext::Verdict::netfilter) {
    Value* drop = b_.CreateICmpEQ(b_.CreateAnd(v, i64c(0xff)), i64c(0));
    return b_.CreateSelect(drop, b_.getInt32(0), b_.getInt32(1));
  }
  v = b_.CreateSelect(b_.CreateICmpSGT(v, i64c(0)), i64c(0), v);
  v = b_.CreateSelect(b_.CreateICmpSLT(v, i64c(-4095)), i64c(-4095), v);
  return b_.CreateTrunc(v, m_.i32);
}

// Looks up the globals and scratch values, runs the body only while the
// session is RUNNING and not already inside a probe on this CPU.
void ProgramEmitter::prologue() {
  AllocaInst* zero = m_.entry_alloca(m_.i32, "zero");
  b_.CreateStore(b_.getInt32(0), zero);
  if (context_.verdict != ProgramContext::Verdict::none) {
    verdict_ = m_.entry_alloca(m_.i64, "verdict");
    bool lsm = context_.verdict == ProgramContext::Verdict::lsm;
    b_.CreateStore(lsm ? trampoline_slot(context_.verdict_slot) : i64c(1 /* NF_ACCEPT */),
                   verdict_);
  }
  BasicBlock* bail = block("bail");
  BasicBlock* have_g = block("have_globals");
  globals_ = helper(kMapLookupElem, m_.ptr, {ms_.globals_map, zero});
  b_.CreateCondBr(b_.CreateIsNull(globals_), bail, have_g);
  b_.SetInsertPoint(bail);
  b_.CreateRet(program_result());

  b_.SetInsertPoint(have_g);
  Value* state = b_.CreateLoad(m_.i64, header_field(offsetof(stap_globals_header, state)));
  BasicBlock* running = block("running");
  b_.CreateCondBr(b_.CreateICmpEQ(state, i64c(STAP_STATE_RUNNING)), running, bail);

  b_.SetInsertPoint(running);
  scratch_ = helper(kMapLookupElem, m_.ptr, {ms_.scratch_map, zero});
  BasicBlock* have_s = block("have_scratch");
  b_.CreateCondBr(b_.CreateIsNull(scratch_), bail, have_s);

  b_.SetInsertPoint(have_s);
  BasicBlock* nested = block("nested");
  BasicBlock* body = block("body");
  Value* busy = b_.CreateLoad(m_.i64, scratch_);
  b_.CreateCondBr(b_.CreateICmpNE(busy, i64c(0)), nested, body);
  b_.SetInsertPoint(nested);
  atomic_inc(header_field(offsetof(stap_globals_header, skipped)));
  b_.CreateRet(program_result());

  b_.SetInsertPoint(body);
  b_.CreateStore(i64c(1), scratch_);
  if (ms_.timing_map) {
    start_ns_ = m_.entry_alloca(m_.i64, "start_ns");
    b_.CreateStore(helper(kKtimeGetNs, m_.i64, {}), start_ns_);
  }
  err_loc_ = m_.entry_alloca(m_.i64, "err_loc");
  err_msg_ = m_.entry_alloca(m_.ptr, "err_msg");
  actions_ = m_.entry_alloca(m_.i64, "actions");
  b_.CreateStore(i64c(0), actions_);
  exit_bb_ = block("exit");
  error_bb_ = block("error");
  IRBuilderBase::InsertPointGuard guard(b_);
  b_.SetInsertPoint(exit_bb_);
  if (ms_.timing_map) record_run_time();
  b_.CreateStore(i64c(0), scratch_);
  b_.CreateRet(program_result());
}

// -t: this run's time (ns, the body only) into this CPU's statistic of the
// probe, which the runtime merges into the probe hit report.
void ProgramEmitter::record_run_time() {
  Value* elapsed = b_.CreateSub(helper(kKtimeGetNs, m_.i64, {}), b_.CreateLoad(m_.i64, start_ns_));
  AllocaInst* index = m_.entry_alloca(m_.i32, "probe_index");
  b_.CreateStore(b_.getInt32(uint32_t(&probe_ - ms_.ir.probes.data())), index);
  Value* stat = helper(kMapLookupElem, m_.ptr, {ms_.timing_map, index});
  BasicBlock* have = block("have_timing");
  BasicBlock* done = block("timing_done");
  b_.CreateCondBr(b_.CreateIsNull(stat), done, have);
  b_.SetInsertPoint(have);
  runtime_call("stp_stat_add", Type::getVoidTy(m_.module().getContext()),
               {stat, elapsed, i64c(0), i64c(0), i64c(0), i64c(0)});
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

// An uncaught error: one STAP_REC_ERROR record (a lost one is counted),
// ++header.errors, and the probe ends.
void ProgramEmitter::emit_error_block() {
  b_.SetInsertPoint(error_bb_);
  Value* loc = b_.CreateLoad(m_.i64, err_loc_);
  Value* msg = b_.CreateLoad(m_.ptr, err_msg_);
  BasicBlock* done = nullptr;
  Value* rec = begin_record(int64_t(sizeof(stap_record)) + ms_.maxlen, STAP_REC_ERROR,
                            b_.CreateTrunc(loc, m_.i32), done);
  copy_string(byte_ptr(rec, int64_t(sizeof(stap_record))), msg, ms_.maxlen);
  finish_record(rec, done, /*urgent=*/true);
  atomic_inc(header_field(offsetof(stap_globals_header, errors)));
  b_.CreateBr(exit_bb_);
}

// Inside a try (of this frame or a caller's, all inlined): the message goes
// to the catch variable and control to the catch block.  Else to the
// error block.
void ProgramEmitter::raise(uint32_t loc, Value* msg, bool catchable) {
  if (catchable && !tries_.empty()) {
    const Try& t = tries_.back();
    if (t.slot) copy_string(t.slot, msg, ms_.maxlen);
    b_.CreateBr(t.catch_bb);
  } else {
    b_.CreateStore(i64c(loc), err_loc_);
    b_.CreateStore(msg, err_msg_);
    b_.CreateBr(error_bb_);
  }
  after_terminator();
}

void ProgramEmitter::raise_literal(uint32_t loc, const std::string& msg, bool catchable) {
  raise(loc, rodata_ptr(ms_.literal(msg)), catchable);
}

// Code after a branch, return, break ... is unreachable; it goes into a
// block of its own that LLVM drops.
void ProgramEmitter::after_terminator() { b_.SetInsertPoint(block("dead")); }

bool ProgramEmitter::open() const { return b_.GetInsertBlock()->getTerminator() == nullptr; }

void ProgramEmitter::stmt(const ir::Node* n) {
  if (n->loc) m_.set_line(n->loc);
  switch (n->op) {
    case ir::Op::block:
      for (const ir::Node* k : n->kids) {
        uint32_t mark = scratch_top_;
        stmt(k);
        ms_.scratch_size = std::max(ms_.scratch_size, scratch_top_);
        scratch_top_ = mark;  // a statement's temporaries die with it
      }
      return;
    case ir::Op::nop: return;
    case ir::Op::expr: expr(n->kids.at(0)); return;
    case ir::Op::if_: {
      Value* c = truth(expr(n->kids.at(0)));
      BasicBlock* then_bb = block("then");
      BasicBlock* else_bb = block("else");
      BasicBlock* done = block("endif");
      b_.CreateCondBr(c, then_bb, else_bb);
      b_.SetInsertPoint(then_bb);
      stmt(n->kids.at(1));
      if (open()) b_.CreateBr(done);
      b_.SetInsertPoint(else_bb);
      if (n->kids.size() > 2) stmt(n->kids[2]);
      if (open()) b_.CreateBr(done);
      b_.SetInsertPoint(done);
      return;
    }
    case ir::Op::loop: stmt_loop(n); return;
    case ir::Op::try_: stmt_try(n); return;
    case ir::Op::ret: {
      Value* v = n->kids.empty() ? nullptr : expr(n->kids[0]);
      Frame& f = frames_.back();
      if (f.ret_val && v) b_.CreateStore(v, f.ret_val);
      b_.CreateBr(f.ret_bb);
      after_terminator();
      return;
    }
    case ir::Op::brk:
    case ir::Op::cont:
      if (loops_.size() <= frames_.back().loop_base)
        throw CodegenError("break or continue outside a loop");
      b_.CreateBr(n->op == ir::Op::brk ? loops_.back().brk : loops_.back().cont);
      after_terminator();
      return;
    case ir::Op::next:
      b_.CreateBr(exit_bb_);
      after_terminator();
      return;
    case ir::Op::foreach:
      unsupported(n, "foreach needs user context (begin, end or timer probes)");
    default:
      expr(n);  // an expression used as a statement
      return;
  }
}

// while/for: each iteration counts against MAXACTION, which is also what
// lets the verifier see that the loop ends.  As in stap, try/catch cannot
// catch "MAXACTION exceeded".
void ProgramEmitter::stmt_loop(const ir::Node* n) {
  note_loop_effects(n);  // a later pass through the loop follows them
  BasicBlock* head = block("loop");
  BasicBlock* body = block("loop_body");
  BasicBlock* inc = block("loop_next");
  BasicBlock* done = block("loop_end");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  Value* count = b_.CreateAdd(b_.CreateLoad(m_.i64, actions_), i64c(1));
  b_.CreateStore(count, actions_);
  BasicBlock* ok = block("loop_ok");
  BasicBlock* over = block("loop_maxaction");
  b_.CreateCondBr(b_.CreateICmpUGT(count, i64c(ms_.ir.limits.maxaction)), over, ok);
  b_.SetInsertPoint(over);
  raise_literal(n->loc, "MAXACTION exceeded", false);
  b_.SetInsertPoint(ok);
  const ir::Node* cond = n->kids.at(0);
  if (cond->op == ir::Op::nop) {
    b_.CreateBr(body);
  } else {
    uint32_t mark = scratch_top_;
    b_.CreateCondBr(truth(expr(cond)), body, done);
    scratch_top_ = mark;
  }
  b_.SetInsertPoint(body);
  loops_.push_back({done, inc});
  stmt(n->kids.at(1));
  loops_.pop_back();
  if (open()) b_.CreateBr(inc);
  b_.SetInsertPoint(inc);
  if (n->kids.size() > 2) stmt(n->kids[2]);
  if (open()) b_.CreateBr(head);
  b_.SetInsertPoint(done);
}

void ProgramEmitter::stmt_try(const ir::Node* n) {
  BasicBlock* catch_bb = block("catch");
  BasicBlock* done = block("try_end");
  Value* slot = n->a >= 0 ? frames_.back().slots.at(size_t(n->a)) : nullptr;
  tries_.push_back({catch_bb, slot});
  stmt(n->kids.at(0));
  tries_.pop_back();
  if (open()) b_.CreateBr(done);
  b_.SetInsertPoint(catch_bb);
  if (n->kids.size() > 1) stmt(n->kids[1]);
  if (open()) b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

// A call, inlined: arguments are evaluated in the caller, copied into the
// callee's own slots, the body emitted with a return block, and a string
// result copied into a temporary of the caller (the callee's slots are
// reused once the statement ends).
Value* ProgramEmitter::call(const ir::Node* n) {
  const ir::Function& fn = ms_.ir.functions.at(size_t(n->a));
  if (fn.recursive || ++call_depth_ > 32)
    throw CodegenError("function " + fn.name + " is recursive: kernel context cannot run it");
  std::vector<Value*> args;
  for (const ir::Node* k : n->kids) args.push_back(expr(k));
  Frame f;
  f.loop_base = loops_.size();
  for (size_t i = 0; i < fn.slots.size(); ++i) {
    ir::Type t = fn.slots[i];
    f.types.push_back(t);
    if (t == ir::Type::string) {
      Value* p = scratch_slot(uint32_t(ms_.maxlen));
      if (i < fn.param_count) copy_string(p, args.at(i), ms_.maxlen);
      else clear_string(p);
      f.slots.push_back(p);
    } else {
      AllocaInst* a = m_.entry_alloca(m_.i64, fn.name + ".local");
      b_.CreateStore(i < fn.param_count ? args.at(i) : i64c(0), a);
      f.slots.push_back(a);
    }
  }
  f.ret_bb = block("return");
  if (fn.ret == ir::Type::long_) {
    f.ret_val = m_.entry_alloca(m_.i64, fn.name + ".ret");
    b_.CreateStore(i64c(0), f.ret_val);
  } else if (fn.ret == ir::Type::string) {
    f.ret_val = m_.entry_alloca(m_.ptr, fn.name + ".ret");
    b_.CreateStore(rodata_ptr(ms_.literal("")), f.ret_val);
  }
  frames_.push_back(std::move(f));
  stmt(fn.body);
  Frame done = std::move(frames_.back());
  frames_.pop_back();
  if (open()) b_.CreateBr(done.ret_bb);
  b_.SetInsertPoint(done.ret_bb);
  --call_depth_;
  if (fn.ret == ir::Type::long_) return b_.CreateLoad(m_.i64, done.ret_val);
  if (fn.ret == ir::Type::string) {
    Value* tmp = string_temp();
    copy_string(tmp, b_.CreateLoad(m_.ptr, done.ret_val), ms_.maxlen);
    return tmp;
  }
  return nullptr;
}

Value* ProgramEmitter::slot_value(const Frame& f, size_t i) {
  if (f.types.at(i) == ir::Type::string) return f.slots[i];
  return b_.CreateLoad(m_.i64, f.slots[i]);
}

}  // namespace stap::codegen
