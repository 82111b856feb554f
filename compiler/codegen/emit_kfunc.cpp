// Kernel-function probes (ir::KfuncSpec): the program variants the
// loader chooses from at run time (compiler/kernel/kfunc_support.h), and
// the reads of their contexts.
//
// Variants of probe N (program names; Probe::program_name is the first):
//   kfunc_N         kprobe/kretprobe: "kprobe/F" for one function, plain
//                   "kprobe" for many (attached once per function, or, for
//                   one function, loaded as kprobe.multi when only that works)
//   kfunc_N_fentry  one function with BTF (0..6 parameters, the x86-64
//                   trampoline's limit): "fentry/F" or "fexit/F"
//   kfunc_N_multi   many functions: "kprobe.multi" or "kretprobe.multi"
// The kprobe variants' context is the probed function's struct pt_regs
// (x86_64), read directly; the trampoline's is the u64 array of its
// arguments, then the return value for fexit.  The trampoline's
// pointer-typed slots are typed pointers to the verifier, which refuses
// arithmetic on them, so those are copied out with bpf_probe_read_kernel
// and become plain numbers.  With many functions, fn_name is the entry of
// the attach cookie (the function's index, which the loader sets per
// function) in a table of the names.
#include <llvm/IR/Instructions.h>

#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"
#include "codegen/pt_regs.h"

namespace stap::codegen {

using namespace llvm;

namespace {

using pt_regs::kAx;
// The C calling convention's argument registers: di, si, dx, cx, r8, r9.
constexpr int64_t kArgRegs[6] = {pt_regs::kDi, pt_regs::kSi, pt_regs::kDx, pt_regs::kCx, pt_regs::kR8,
                                 pt_regs::kR9};
// The x86-64 BPF trampoline of 6.1 takes at most six arguments, in registers.
constexpr int64_t kMaxTrampolineArgs = 6;
constexpr int kGetAttachCookie = 174;  // bpf_get_attach_cookie

bool trampoline_possible(const ir::KfuncSpec& k) {
  return k.functions.size() == 1 && k.arg_count >= 0 && k.arg_count <= kMaxTrampolineArgs;
}

}  // namespace

Value* ProgramEmitter::kfunc_read(const ir::Node* n) {
  if (n->op == ir::Op::kread || n->op == ir::Op::uread) return memory_read(n, n->op == ir::Op::uread);
  if (n->op == ir::Op::reg) {
    // register(), returnval(), marks' and DWARF variables' registers.
    if (context_.registers != ProgramContext::Registers::pt_regs)
      unsupported(n, "the probed code's registers (register(), returnval()) outside a process "
                     "probe or a kernel.function probe attached with kprobes");
    return b_.CreateLoad(m_.i64, byte_ptr(ctx_, n->a));
  }
  if (context_.registers == ProgramContext::Registers::none)
    unsupported(n, std::string("the IR operation ") + ir::op_name(n->op) +
                       " outside a kernel.function or process probe");
  if (n->op == ir::Op::fn_name) {
    const std::vector<std::string>& names = *(n->b ? context_.site_points : context_.functions);
    if (names.size() == 1) return rodata_ptr(ms_.literal(names[0]));
    return table_entry(names, helper(kGetAttachCookie, m_.i64, {ctx_}));
  }
  Value* v;
  bool trampoline = context_.registers == ProgramContext::Registers::trampoline;
  if (n->op == ir::Op::fn_ret) {
    if (!context_.at_return) unsupported(n, "the return value read in a function's entry probe");
    v = trampoline ? trampoline_slot(context_.arg_count)
                   : b_.CreateLoad(m_.i64, byte_ptr(ctx_, kAx));
  } else {
    if (n->a < 0 || (!trampoline && n->a > 5))
      unsupported(n, "a function argument past the sixth");
    if (trampoline && n->a >= context_.arg_count)
      unsupported(n, "argument " + std::to_string(n->a + 1) + " of a function with " +
                         std::to_string(context_.arg_count) + " parameters");
    v = trampoline ? trampoline_slot(n->a) : b_.CreateLoad(m_.i64, byte_ptr(ctx_, kArgRegs[n->a]));
  }
  return narrow(v, n->b, n->c != 0);
}

// Slot i of the trampoline's context, as a number (see the top).
Value* ProgramEmitter::trampoline_slot(int64_t i) {
  AllocaInst* tmp = m_.shared_alloca(m_.i64, "fn_slot");
  b_.CreateStore(i64c(0), tmp);
  helper(kProbeReadKernel, m_.i64, {tmp, i64c(8), byte_ptr(ctx_, 8 * i)});
  return b_.CreateLoad(m_.i64, tmp);
}

// The low `size` bytes of v, sign- or zero-extended.
Value* ProgramEmitter::narrow(Value* v, int64_t size, bool is_signed) {
  if (size == 8) return v;
  if (size != 1 && size != 2 && size != 4)
    throw CodegenError("a read of " + std::to_string(size) + " bytes");
  Value* low = b_.CreateTrunc(v, b_.getIntNTy(unsigned(8 * size)));
  return is_signed ? b_.CreateSExt(low, m_.i64) : b_.CreateZExt(low, m_.i64);
}

// kread/uread: `b` bytes of kernel or user memory at kids[0]; a fault is
// stap's dereference error (runtime/loc2c-runtime.h's DEREF_FAULT, the
// same words for both).
Value* ProgramEmitter::memory_read(const ir::Node* n, bool user) {
  Value* addr = expr(n->kids.at(0));
  if (n->b != 1 && n->b != 2 && n->b != 4 && n->b != 8)
    unsupported(n, "a memory read of " + std::to_string(n->b) + " bytes");
  AllocaInst* tmp = m_.shared_alloca(m_.i64, "kread");
  b_.CreateStore(i64c(0), tmp);
  Value* r = helper(user ? kProbeReadUser : kProbeReadKernel, m_.i64,
                    {tmp, i64c(n->b), b_.CreateIntToPtr(addr, m_.ptr)});
  if (user) defer_if_faulted(b_.CreateICmpSLT(r, i64c(0)), addr);
  raise_number_if(b_.CreateICmpSLT(r, i64c(0)), n->loc, "read fault [man error::fault] at 0x%llx",
                  addr);
  return narrow(b_.CreateLoad(m_.i64, tmp), n->b, n->c != 0);
}

bool emit_kfunc_programs(ModuleState& ms, ir::Probe& p, const ir::KfuncSpec& kfunc, size_t index,
                         std::string& error) {
  if (kfunc.functions.empty()) {
    error = "no function to probe in probe " + p.pp;
    return false;
  }
  std::string name = "kfunc_" + std::to_string(index);
  bool one = kfunc.functions.size() == 1;
  std::string kprobe = kfunc.is_return ? "kretprobe" : "kprobe";
  ProgramContext context;
  context.registers = ProgramContext::Registers::pt_regs;
  context.functions = &kfunc.functions;
  context.site_points = &kfunc.site_points;
  context.at_return = kfunc.is_return;
  context.arg_count = kfunc.arg_count;
  ProgramContext trampoline = context;
  trampoline.registers = ProgramContext::Registers::trampoline;
  return emit_probe_programs(p, name, error, [&] {
    ProgramEmitter(ms, p, context).emit(name, one ? kprobe + "/" + kfunc.functions[0] : kprobe);
    if (!one)
      ProgramEmitter(ms, p, context).emit(name + STAP_KFUNC_MULTI_SUFFIX, kprobe + ".multi");
    if (trampoline_possible(kfunc))
      ProgramEmitter(ms, p, trampoline)
          .emit(name + STAP_KFUNC_FENTRY_SUFFIX,
                (kfunc.is_return ? "fexit/" : "fentry/") + kfunc.functions[0]);
  });
}

}  // namespace stap::codegen
