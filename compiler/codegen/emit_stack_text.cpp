// Stacks as strings in kernel context: backtrace(), ubacktrace(),
// callers(n) and ucallers(n) used as a value (strlen, substr, tokenize,
// isinstr, concatenation, a local, a string array's element or a key of
// an array whose other keys are not stacks) are stap's text of addresses,
// made here from the frames bpf_get_stack copies (bpf_runtime/stack_text.c):
//   backtrace()   "0xffffffff81234567 0xffffffff81234600 " cut at MAXSTRINGLEN
//   callers(n)    the first n+1 addresses joined by spaces, whole ones only
// Used as a key of a stack array or printed, a stack stays a code over
// the exact storage (emit_stack.cpp).  The symbolic forms
// (sprint_backtrace(), symname(), probefunc() ...) need the runtime's
// symbols and stay keys or printed values only.
//
// The frames are the kernel's as captured: a kernel stack in a
// tracepoint, syscall or kernel-function probe starts with our BPF
// program and the functions that call it (perf events and user stacks
// have none); print_stack(s) drops those as it prints (stack_symbols.h),
// as the printed codes do, but strlen() and tokenize() see them.
#include <llvm/IR/Instructions.h>

#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"

namespace stap::codegen {

using namespace llvm;

namespace {
// The callers(n) counts a stack code's form holds (ir/key_codes.h): past
// them the runtime decodes callers(n) as backtrace(); so does this.
constexpr int64_t kMaxCallersForm = 29;
}  // namespace

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
  Value* buf = scratch_slot(uint32_t(8 * depth));
  Value* size = helper(kGetStack, m_.i64, {ctx_, buf, i64c(8 * depth), i64c(user ? kUserStackFlag : 0)});
  if (user) {
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
  }
  // Room for a whole word past MAXSTRINGLEN (stack_text.c).
  constexpr uint32_t kWordRoom = 24;
  Value* out = scratch_slot(uint32_t(ms_.maxlen) + kWordRoom);
  runtime_call("stp_stack_text", Type::getVoidTy(m_.module().getContext()),
               {buf, i64c(depth), out, i64c(ms_.maxlen), count, rodata_ptr(ms_.literal("0x%lx ", false)),
                rodata_ptr(ms_.literal("0x%lx", false)), rodata_ptr(ms_.literal(" 0x%lx", false))});
  return out;
}

}  // namespace stap::codegen
