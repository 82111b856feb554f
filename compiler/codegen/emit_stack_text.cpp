// Stacks and symbols as strings in kernel context, for a script that
// uses them as values (strlen, substr, tokenize, isinstr, concatenation,
// sprintf, a local, a string array's element or a key of an array whose
// other keys are not stacks).  Used as a key of a stack array or printed,
// they stay codes over the exact storage (emit_stack.cpp) that the runtime
// names; these are the same texts, made in the kernel:
//   backtrace()   "0xffffffff81234567 0xffffffff81234600 " cut at MAXSTRINGLEN
//   callers(n)    the first n+1 addresses joined by spaces, whole ones only
//                 (bpf_runtime/stack_text.c; ubacktrace() and ucallers(n)
//                 too, from the user stack)
//   symname(a), symdata(a), sprint_backtrace(), and probefunc() where the
//                 probe always runs in the kernel: named by the kernel's
//                 kallsyms through bpf_snprintf (bpf_runtime/ksym_text.c)
// A kernel stack captured in our program starts with the program and the
// kernel functions that call it; those leading frames are skipped (the
// loader lists their addresses, loader/stack_glue.h), as the runtime
// skips them when it prints a code.  User-space names (usymname(),
// sprint_ubacktrace(), probefunc() in a perf probe's user mode) need the
// runtime's symbols: printed or as keys only.
#include <algorithm>

#include <llvm/IR/Instructions.h>

#include "bpf_runtime/ksym_text.h"
#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"
#include "ir/key_codes.h"

namespace stap::codegen {

using namespace llvm;

namespace {
// The callers(n) counts a stack code's form holds (ir/key_codes.h): past
// them the runtime decodes callers(n) as backtrace(); so does this.
constexpr int64_t kMaxCallersForm = 29;
}  // namespace

// The loader's list of glue addresses (stap_layout.h): one placeholder
// entry, sized and filled by loader/stack_glue.cpp.
Value* ProgramEmitter::stack_glue_map() {
  if (GlobalVariable* g = m_.module().getNamedGlobal(STAP_STACK_GLUE_MAP)) return g;
  m_.add_map({STAP_STACK_GLUE_MAP, kMapArray, 1, 0, 4, unsigned(sizeof(stap_glue_range))});
  return m_.module().getNamedGlobal(STAP_STACK_GLUE_MAP);
}

// A work slot of ksym_text.c (the struct, then an output area of P + 32
// bytes) and its mask P - 1.
Value* ProgramEmitter::ksym_work(Value*& mask) {
  int64_t p = 8;
  while (p < ms_.maxlen) p *= 2;
  mask = i64c(p - 1);
  return scratch_slot(uint32_t(sizeof(stp_ksym_work) + p + 32));
}

// The text of the work slot's frames in a form of ksym_text.c: "%ps"
// names, "%pS [kernel]" the rest; FULL lines start " 0x... : ".
Value* ProgramEmitter::kernel_symbol_text(Value* work, Value* mask, int64_t form) {
  const char* fmt = form == STP_KSYM_NAME ? "%ps" : "%pS [kernel]";
  return runtime_call("stp_ksym_text", m_.ptr,
                      {work, i64c(form), i64c(ms_.maxlen), mask, rodata_ptr(ms_.literal(fmt, false)),
                       rodata_ptr(ms_.literal(" 0x%lx : ", false))});
}

// The kernel stack of this context into the work slot, the glue skipped:
// `depth` frames past it (the glue's own frames are taken on top, up to
// the slot's STP_KSYM_FRAMES).
void ProgramEmitter::capture_kernel_frames(Value* work, int64_t depth) {
  depth = std::min<int64_t>(depth, STP_KSYM_FRAMES);
  int64_t taken = std::min<int64_t>(depth + STP_GLUE_LEAD, STP_KSYM_FRAMES);
  runtime_call("stp_kstack_capture", Type::getVoidTy(m_.module().getContext()),
               {ctx_, work, i64c(taken), i64c(depth), stack_glue_map()});
}

// Null for a builtin that is not a stack text.
Value* ProgramEmitter::stack_text_value(const ir::Node* n) {
  const std::string& f = n->s;
  bool user = f == "ubacktrace" || f == "ucallers";
  if (!user && f != "backtrace" && f != "callers") return nullptr;
  Value* count = i64c(-1);
  if (f == "callers" || f == "ucallers") {
    Value* c = b_.CreateAdd(expr(n->kids.at(0)), i64c(1));
    Value* fits = b_.CreateAnd(b_.CreateICmpSGT(c, i64c(0)),
                               b_.CreateICmpSLE(c, i64c(kMaxCallersForm)));
    count = b_.CreateSelect(fits, c, i64c(-1));
  }
  int64_t depth = ms_.ir.limits.maxbacktrace;
  Value* buf = nullptr;
  if (user) {
    buf = scratch_slot(uint32_t(8 * depth));
    Value* size = helper(kGetStack, m_.i64, {ctx_, buf, i64c(8 * depth), i64c(kUserStackFlag)});
    // print_ustack(s) at the end names the frames from the mappings
    // captured now.
    ensure_stack_maps();
    BasicBlock* tell = block("stack_text_user");
    BasicBlock* after = block("stack_text_user_done");
    b_.CreateCondBr(b_.CreateICmpSGT(size, i64c(0)), tell, after);
    b_.SetInsertPoint(tell);
    announce_process(b_.CreateLShr(helper(kGetCurrentPidTgid, m_.i64, {}), 32), i64c(STAP_STACK_NO_ID));
    b_.CreateBr(after);
    b_.SetInsertPoint(after);
  } else {
    Value* mask = nullptr;
    Value* work = ksym_work(mask);
    capture_kernel_frames(work, depth);
    depth = std::min<int64_t>(depth, STP_KSYM_FRAMES);
    buf = runtime_call("stp_kstack_kept", m_.ptr, {work});
  }
  // Room for a whole word past MAXSTRINGLEN (stack_text.c).
  constexpr uint32_t kWordRoom = 24;
  Value* out = scratch_slot(uint32_t(ms_.maxlen) + kWordRoom);
  runtime_call("stp_stack_text", Type::getVoidTy(m_.module().getContext()),
               {buf, i64c(depth), out, i64c(ms_.maxlen), count, rodata_ptr(ms_.literal("0x%lx ", false)),
                rodata_ptr(ms_.literal("0x%lx", false)), rodata_ptr(ms_.literal(" 0x%lx", false))});
  return out;
}

// stack(n) and ustack(n): the address n frames into the kernel stack
// (past the glue) or the user stack (unwound as ubacktrace() is); an
// error past the last frame, as stap's tapset raises it.  Null for other
// builtins.
Value* ProgramEmitter::stack_frame_value(const ir::Node* n) {
  const std::string& f = n->s;
  if (f != "stack" && f != "ustack") return nullptr;
  Value* level = expr(n->kids.at(0));
  Value* address = nullptr;
  if (f == "stack") {
    Value* mask = nullptr;
    Value* work = ksym_work(mask);
    capture_kernel_frames(work, ms_.ir.limits.maxbacktrace);
    address = runtime_call("stp_kstack_frame", m_.i64, {work, level});
  } else {
    address = user_frame(level);
  }
  if (n->c != 1)  // c = 1: a caller check's (lower/kinds/uprobe.cpp), 0 at the end
    raise_number_if(b_.CreateICmpEQ(address, i64c(0)), n->loc,
                    "reached end of stack before unwinding to level %lld", level);
  return address;
}

// symname(a), symdata(a), sprint_backtrace() and probefunc() as kernel
// text (ksym_text.c); null for other builtins.  probefunc() and
// symname(addr()) outside perf probes name the first frame past the
// glue, as the runtime does for their codes (addr() is 0 there).
Value* ProgramEmitter::kernel_symbol_value(const ir::Node* n) {
  const std::string& f = n->s;
  if (f == "probemod" || f == "modname") return probe_module_value(n);
  if (f == "sprint_stack") {  // stap's sprint_syms of the text's addresses
    Value* text = expr(n->kids.at(0));
    Value* mask = nullptr;
    Value* work = ksym_work(mask);
    runtime_call("stp_ksym_parse", Type::getVoidTy(m_.module().getContext()),
                 {work, text, i64c(ms_.maxlen), mask});
    return kernel_symbol_text(work, mask, STP_KSYM_FULL);
  }
  if (f != "symname" && f != "symdata" && f != "sprint_backtrace" && f != "probefunc") return nullptr;
  bool perf = context_.perf_sample;
  if (f == "probefunc" && perf)
    unsupported(n, "probefunc() as a value in a perf or timer.profile probe: in user mode it is a "
                   "user-space name, which only the runtime has; print it (printf(\"%s\", "
                   "probefunc())) or use it as an array key");
  bool first_frame = f == "probefunc" || (f == "symname" && !perf && ir::is_stack_key(*n));
  Value* address = f == "sprint_backtrace" || first_frame ? nullptr : expr(n->kids.at(0));
  Value* mask = nullptr;
  Value* work = ksym_work(mask);
  Type* void_ty = Type::getVoidTy(m_.module().getContext());
  if (f == "sprint_backtrace") capture_kernel_frames(work, ms_.ir.limits.maxbacktrace);
  else if (first_frame) capture_kernel_frames(work, 1);
  else runtime_call("stp_ksym_address", void_ty, {work, address});
  return kernel_symbol_text(work, mask,
                            f == "sprint_backtrace" ? STP_KSYM_LINES
                            : f == "symdata"        ? STP_KSYM_DATA
                                                    : STP_KSYM_NAME);
}

// probemod() where the point names no module (kernel.function and
// process probes answer at compile time): the module of the probed pc, a
// perf sample's in kernel mode, else the first frame past the glue;
// modname(a): the module of address a.  "kernel" for vmlinux.  stap's
// error where it cannot tell (a sample in user mode, an address no symbol
// holds).
Value* ProgramEmitter::probe_module_value(const ir::Node* n) {
  Value* mask = nullptr;
  Value* work = ksym_work(mask);
  Type* void_ty = Type::getVoidTy(m_.module().getContext());
  if (n->s == "modname") {
    runtime_call("stp_ksym_address", void_ty, {work, expr(n->kids.at(0))});
  } else if (context_.perf_sample) {
    Value* kernel_ip = b_.CreateSelect(user_mode_value(), i64c(0), sample_ip());
    runtime_call("stp_ksym_address", void_ty, {work, kernel_ip});
  } else {
    capture_kernel_frames(work, 1);
  }
  Value* text = kernel_symbol_text(work, mask, STP_KSYM_MODULE);
  BasicBlock* unknown = block("probemod_unknown");
  BasicBlock* known = block("probemod_known");
  b_.CreateCondBr(b_.CreateICmpEQ(b_.CreateLoad(m_.i8, text), b_.getInt8(0)), unknown, known);
  b_.SetInsertPoint(unknown);
  raise_literal(n->loc, "Cannot determine kernel module name");
  b_.SetInsertPoint(known);
  return text;
}

}  // namespace stap::codegen
