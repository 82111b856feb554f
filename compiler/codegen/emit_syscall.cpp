// System call probes (ir::SyscallSpec): each body a subprogram, then the
// raw sys_enter/sys_exit programs that dispatch on the call's number to
// them, and the reads of the thread's saved user registers.
//
// A raw tracepoint's context is its arguments as u64s:
//   sys_enter(struct pt_regs *regs, long id)
//   sys_exit(struct pt_regs *regs, long ret)
// The registers are kernel memory, read with bpf_probe_read_kernel; their
// layout is x86_64's struct pt_regs (ABI, fixed since the syscall entry
// code was written in C), so the offsets are constants here.
#include "codegen/emitter.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>

#include <map>
#include <set>
#include <vector>

#include "bpf_runtime/stap_layout.h"
#include "codegen/pt_regs.h"

namespace stap::codegen {

using namespace llvm;

namespace {

using pt_regs::kCs, pt_regs::kOrigAx, pt_regs::kSyscallArgs;
// The code segment of a 32-bit task (__USER32_CS): its numbers are the
// i386 table's, which the syscalls:* events ignore, and so do we.
constexpr int64_t kUser32Cs = 0x23;

}  // namespace

Value* ProgramEmitter::saved_register(Value* regs, int64_t offset) {
  // One slot per function: the dispatcher reads a register in each of
  // hundreds of cases, and a slot each would overflow the stack.
  if (!reg_slot_ || reg_slot_->getFunction() != fn_) reg_slot_ = m_.entry_alloca(m_.i64, "reg");
  AllocaInst* tmp = reg_slot_;
  b_.CreateStore(i64c(0), tmp);
  helper(kProbeReadKernel, m_.i64, {tmp, i64c(8), byte_ptr(regs, offset)});
  return b_.CreateLoad(m_.i64, tmp);
}

Value* ProgramEmitter::sys_read(const ir::Node* n) {
  bool exit = context_.syscall_exit;
  auto context_word = [&](int64_t index) {
    return b_.CreateLoad(m_.i64, byte_ptr(ctx_, index * 8));
  };
  auto regs = [&]() { return b_.CreateIntToPtr(context_word(0), m_.ptr); };
  // A deferred run's number and arguments are those kept at entry
  // (stap_deferred_run.data: the number, then the six registers).
  auto kept_word = [&](int64_t index) {
    return b_.CreateLoad(m_.i64, byte_ptr(kept_, index * 8));
  };
  switch (n->op) {
    case ir::Op::sys_nr:
      if (kept_) return kept_word(0);
      return exit ? saved_register(regs(), kOrigAx) : context_word(1);
    case ir::Op::sys_ret:
      if (!exit) throw CodegenError("a system call's return value is read in its entry probe");
      return context_word(1);
    default: break;
  }
  if (n->a < 0 || n->a > 5) throw CodegenError("system call argument out of range");
  Value* v = kept_ ? kept_word(1 + n->a) : saved_register(regs(), kSyscallArgs[n->a]);
  if (n->b == 8) return v;
  Value* narrow = b_.CreateTrunc(v, b_.getIntNTy(unsigned(8 * n->b)));
  return n->c ? b_.CreateSExt(narrow, m_.i64) : b_.CreateZExt(narrow, m_.i64);
}

void ProgramEmitter::emit_syscall_dispatch(
    const std::string& name, bool exit,
    const std::vector<std::pair<int64_t, Function*>>& bodies) {
  fn_ = m_.begin_program(name, exit ? "raw_tp/sys_exit" : "raw_tp/sys_enter");
  ctx_ = fn_->getArg(0);
  Value* regs = b_.CreateIntToPtr(b_.CreateLoad(m_.i64, ctx_), m_.ptr);
  Value* nr = exit ? saved_register(regs, kOrigAx)
                   : b_.CreateLoad(m_.i64, byte_ptr(ctx_, int64_t(8)));
  auto run = [&](Function* body) { b_.CreateCall(body, {ctx_}); };
  for (size_t i = 0; i < bodies.size();) {
    if (bodies[i].first < 0) {
      run(bodies[i++].second);
      continue;
    }
    // A run of numbered bodies becomes one switch; bodies of one number
    // run in probe order, once the caller is known to be a 64-bit task
    // (checked only on a match: it costs a read of the registers).
    // Numbers that run the same bodies share one block: syscall.* whose
    // bodies all came out the same is one call, not 361 copies of it.
    std::map<int64_t, std::vector<Function*>> by_number;
    std::vector<int64_t> order;
    for (; i < bodies.size() && bodies[i].first >= 0; ++i) {
      auto [it, fresh] = by_number.try_emplace(bodies[i].first);
      if (fresh) order.push_back(bodies[i].first);
      it->second.push_back(bodies[i].second);
    }
    BasicBlock* after = block("after_switch");
    SwitchInst* sw = b_.CreateSwitch(nr, after);
    std::map<std::vector<Function*>, BasicBlock*> shared;
    for (int64_t number : order) {
      const std::vector<Function*>& calls = by_number[number];
      auto [it, fresh] = shared.try_emplace(calls, nullptr);
      if (fresh) {
        it->second = block("check");
        BasicBlock* call = block("call");
        IRBuilderBase::InsertPointGuard guard(b_);
        b_.SetInsertPoint(it->second);
        Value* cs = b_.CreateAnd(saved_register(regs, kCs), i64c(0xffff));
        b_.CreateCondBr(b_.CreateICmpNE(cs, i64c(kUser32Cs)), call, after);
        b_.SetInsertPoint(call);
        for (Function* body : calls) run(body);
        b_.CreateBr(after);
      }
      sw->addCase(cast<ConstantInt>(i64c(number)), it->second);
    }
    b_.SetInsertPoint(after);
  }
  b_.CreateRet(b_.getInt32(0));
}


// The body of a syscall probe, as a subprogram the dispatcher of its
// direction calls; probes with the same body share one.
bool emit_syscall_body(ModuleState& ms, ir::Probe& p, const ir::SyscallSpec& sc, size_t index,
                       std::string& error) {
  if (const ir::Probe* q = shared_program(ms.ir, index)) {
    p.program_name = q->program_name;
    return true;
  }
  std::string name = "syscall_body_" + std::to_string(index);
  ProgramContext context;
  context.syscall_exit = sc.is_exit();
  context.deferral = deferral_of(ms.ir, p);
  return emit_probe_programs(p, name, error, [&] {
    ProgramEmitter(ms, p, context).emit(name, "");
    emit_deferred_body(ms, p, index, context, name);
  });
}

namespace {

// An estimate of the instructions the verifier walks for one call of fn:
// its instructions and, at each call, the callee's (a static subprogram
// is walked once per call site; runtime functions are weighed from the
// runtime's bitcode, linked only later).  Calibrated on Linux 6.18
// (-vvvv prints what the verifier walked): a loop's body is walked once
// per turn, a bpf_loop callback (the text escapes of user_string_quoted
// & co) several times at each call.
size_t verifier_weight(ModuleState& ms, llvm::Function* fn) {
  constexpr size_t kLoopTurns = 16, kCallbackTurns = 8;
  auto [at, fresh] = ms.verifier_weights.try_emplace(fn, 0);
  if (!fresh) return at->second;  // (BPF code has no recursion)
  llvm::DominatorTree tree(*fn);
  llvm::LoopInfo loops(tree);
  size_t n = 0;
  for (llvm::BasicBlock& bb : *fn) {
    size_t turns = 1;
    for (unsigned d = loops.getLoopDepth(&bb); d > 0 && turns < 1000; --d) turns *= kLoopTurns;
    for (llvm::Instruction& i : bb) {
      size_t w = 1;
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(&i)) {
        llvm::Function* f = call->getCalledFunction();
        if (f && f->isDeclaration()) f = ms.bpf.runtime_function(f->getName());
        if (f) w += verifier_weight(ms, f);
        for (llvm::Value* arg : call->args())
          if (auto* cb = llvm::dyn_cast<llvm::Function>(arg))
            w += kCallbackTurns * verifier_weight(ms, cb);
      }
      n += w * turns;
    }
  }
  return ms.verifier_weights[fn] = n;
}

}  // namespace

size_t program_end(ModuleState& ms, const std::vector<llvm::Function*>& bodies, size_t first) {
  constexpr size_t kBodiesPerProgram = 200;
  // The first 200 bodies of syscall.* with argstr walked past the million
  // on 6.18; the estimate misses some, hence half of it.
  constexpr size_t kVerifierBudget = 500000;
  std::set<llvm::Function*> distinct;
  size_t weight = 0, end = first;
  for (; end < bodies.size(); ++end) {
    if (distinct.count(bodies[end])) continue;  // shared: called again, walked again
    size_t w = verifier_weight(ms, bodies[end]);
    bool full = distinct.size() >= kBodiesPerProgram || weight + w > kVerifierBudget;
    if (full && !distinct.empty()) break;
    distinct.insert(bodies[end]);
    weight += w;
  }
  return end;
}

// Every syscall probe of a direction then names that direction's
// dispatching program; the loader attaches it once.
bool emit_syscall_dispatchers(ModuleState& ms, std::string& error) {
  for (bool exit : {false, true}) {
    std::vector<std::pair<int64_t, llvm::Function*>> bodies;
    std::vector<ir::Probe*> probes;
    for (ir::Probe& p : ms.ir.probes) {
      const ir::SyscallSpec* sc = p.as<ir::SyscallSpec>();
      if (p.context != ir::Context::kernel || !sc || sc->is_exit() != exit) continue;
      llvm::Function* body = ms.bpf.module().getFunction(p.program_name);
      bodies.emplace_back(sc->nr, body);
      probes.push_back(&p);
    }
    // Past what one program can hold (program_end) the next dispatcher
    // starts; each attaches to the same raw tracepoint, in order.
    // (Inlining the bodies instead makes one function too long for 16-bit
    // jump offsets.)
    std::vector<llvm::Function*> fns;
    for (const auto& b : bodies) fns.push_back(b.second);
    size_t first = 0;
    for (int part = 0; first < probes.size(); ++part) {
      size_t end = program_end(ms, fns, first);
      std::string name = std::string(exit ? "syscall_exit" : "syscall_enter") +
                         (part ? "_" + std::to_string(part) : "");
      std::vector<std::pair<int64_t, llvm::Function*>> chunk(bodies.begin() + long(first),
                                                             bodies.begin() + long(end));
      try {
        ProgramEmitter(ms, *probes[first]).emit_syscall_dispatch(name, exit, chunk);
      } catch (const CodegenError& e) {
        error = e.what();
        return false;
      }
      for (size_t i = first; i < end; ++i) probes[i]->program_name = name;
      first = end;
    }
  }
  return true;
}

}  // namespace stap::codegen
