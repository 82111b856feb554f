// Stacks and symbols in kernel context: the kernel captures, the runtime
// names (loader/stack_symbols.h).
//
// A stack is captured with bpf_get_stackid into the object's stack map
// (STAP_STACKS_MAP, BPF_MAP_TYPE_STACK_TRACE, MAXBACKTRACE frames a
// value), and what the script sees is a stack code (compiler/ir/key_codes.h):
// 8 bytes saying which stack, whose process, and what text it stands for.
//  - As an array key (s[backtrace()] <<< 1) the code is the key: 8 bytes
//    to hash instead of a string of addresses, and the whole stack kept
//    whatever MAXSTRINGLEN is (the folded-stack output uses all of it).
//  - print_backtrace(), print_ubacktrace() and print_[u]stack of one of the
//    stack builtins write a STAP_REC_STACK record with the code;
//    print_[u]stack(s) of any other string sends the string.
// Identical stacks share one id (the map hashes the frames), so codes
// aggregate exactly as the strings would.  A capture the map refuses
// (full, or a different stack already in the bucket) gives the empty
// stack "" and is counted in STAP_STACKS_LOST_MAP for the closing warning.
#include <llvm/IR/Instructions.h>

#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"
#include "ir/key_codes.h"

namespace stap::codegen {

using namespace llvm;

namespace {

constexpr int kGetStackid = 27;          // bpf_get_stackid
constexpr int kGetStack = 67;            // bpf_get_stack
constexpr unsigned kMapStackTrace = 7;   // BPF_MAP_TYPE_STACK_TRACE
constexpr int64_t kUserStackFlag = 1 << 8;  // BPF_F_USER_STACK
// Stack map buckets: the map is a hash table without chaining, so it is
// kept sparse (collisions lose the later stack).  Preallocated: 16384
// entries of 20 frames are about 3 MiB.
constexpr unsigned kMinStackEntries = 16384;
// struct pt_regs (x86_64), at the start of a perf event program's context.
constexpr int64_t kRegIp = 128, kRegCs = 136;
constexpr unsigned kMaxProcesses = 8192;
constexpr int64_t kNoExist = 1;  // BPF_NOEXIST

bool user_side(const std::string& f) {
  return f == "ubacktrace" || f == "ucallers" || f == "sprint_ubacktrace" || f == "usymname";
}

}  // namespace

void ProgramEmitter::ensure_stack_maps() {
  if (ms_.stack_map) return;
  unsigned entries = unsigned(std::max<int64_t>(kMinStackEntries, ms_.ir.limits.maxmapentries * 4));
  ms_.stack_map = m_.add_map({STAP_STACKS_MAP, kMapStackTrace, entries, 0, 4,
                              unsigned(8 * ms_.ir.limits.maxbacktrace)});
  ms_.stack_lost_map = m_.add_map({STAP_STACKS_LOST_MAP, kMapArray, 1, 0, 4, 8});
  ms_.upids_map = m_.add_map({STAP_UPIDS_MAP, kMapHash, kMaxProcesses, 0, 8, 8});
}

// The first user stack of a process tells the runtime, which reads the
// process's mappings at once: its frames are named from them even after
// it has exited (an end probe's report).
void ProgramEmitter::announce_process(Value* tgid) {
  AllocaInst* key = m_.entry_alloca(m_.i64, "upid");
  b_.CreateStore(tgid, key);
  Value* seen = helper(kMapLookupElem, m_.ptr, {ms_.upids_map, key});
  BasicBlock* fresh = block("upid_new");
  BasicBlock* told = block("upid_known");
  b_.CreateCondBr(b_.CreateIsNull(seen), fresh, told);
  b_.SetInsertPoint(fresh);
  Value* added = helper(kMapUpdateElem, m_.i64, {ms_.upids_map, key, key, i64c(kNoExist)});
  BasicBlock* send = block("upid_send");
  b_.CreateCondBr(b_.CreateICmpEQ(added, i64c(0)), send, told);
  b_.SetInsertPoint(send);
  BasicBlock* done = nullptr;
  Value* rec = begin_record(int64_t(sizeof(stap_record)) + 8, STAP_REC_STACK,
                            b_.getInt32(STAP_STACK_USER | STAP_STACK_PROCESS), done);
  b_.CreateStore(tgid, byte_ptr(rec, int64_t(sizeof(stap_record))));
  finish_record(rec, done, /*urgent=*/true);
  b_.CreateBr(told);
  b_.SetInsertPoint(told);
}

// The stack code (ir/key_codes.h) of a stack builtin (ir::is_stack_key).
Value* ProgramEmitter::stack_code(const ir::Node* n) {
  const std::string& f = n->s;
  bool user = user_side(f);
  Value* form = i64c(ir::kStackAddresses);
  if (f == "sprint_backtrace" || f == "sprint_ubacktrace") form = i64c(ir::kStackSymbols);
  if (f == "symname" || f == "usymname") form = i64c(ir::kStackSymbol);
  if (f == "probefunc") {  // user_mode() ? usymname(uaddr()) : symname(addr())
    form = i64c(ir::kStackSymbol);
    user = false;
  }
  if (f == "callers" || f == "ucallers") {
    // n+1 addresses, at most 29 (the form's room); -1 or beyond: all.
    Value* count = b_.CreateAdd(expr(n->kids.at(0)), i64c(1));
    Value* fits = b_.CreateAnd(b_.CreateICmpSGT(count, i64c(0)), b_.CreateICmpSLT(count, i64c(30)));
    form = b_.CreateSelect(fits, count, i64c(ir::kStackAddresses));
  }
  Value* in_user = f == "probefunc" ? user_mode_value() : b_.getFalse();
  if (user) in_user = b_.getTrue();
  return capture_stack(in_user, form);
}

// bpf_get_stackid of this context's kernel or (in_user) user stack, as a
// code of the given form; -1 (the empty string) when there is none.
Value* ProgramEmitter::capture_stack(Value* in_user, Value* form) {
  ensure_stack_maps();
  Value* flags = b_.CreateSelect(in_user, i64c(kUserStackFlag), i64c(0));
  Value* id = helper(kGetStackid, m_.i64, {ctx_, ms_.stack_map, flags});
  Value* tgid = b_.CreateLShr(helper(kGetCurrentPidTgid, m_.i64, {}), 32);
  Value* code = b_.CreateOr(i64c(ir::kStackTag), b_.CreateAnd(id, i64c(0xffffff)));
  code = b_.CreateOr(code, b_.CreateShl(form, 56));
  if (in_user != b_.getFalse()) {
    BasicBlock* tell = block("stack_user");
    BasicBlock* after = block("stack_user_done");
    b_.CreateCondBr(in_user, tell, after);
    b_.SetInsertPoint(tell);
    announce_process(tgid);
    b_.CreateBr(after);
    b_.SetInsertPoint(after);
  }
  Value* user_bits = b_.CreateOr(i64c(ir::kStackUser), b_.CreateShl(tgid, 24));
  code = b_.CreateOr(code, b_.CreateSelect(in_user, user_bits, i64c(0)));
  BasicBlock* failed = block("stack_lost");
  BasicBlock* done = block("stack_done");
  BasicBlock* here = b_.GetInsertBlock();
  Value* bad = b_.CreateICmpSLT(id, i64c(0));
  b_.CreateCondBr(bad, failed, done);
  b_.SetInsertPoint(failed);
  // No user stack (a kernel thread) is EFAULT: nothing lost then.
  BasicBlock* count = block("stack_count");
  b_.CreateCondBr(b_.CreateICmpEQ(id, i64c(-14)), done, count);
  b_.SetInsertPoint(count);
  AllocaInst* zero = m_.entry_alloca(m_.i32, "stack_key");
  b_.CreateStore(b_.getInt32(0), zero);
  Value* slot = helper(kMapLookupElem, m_.ptr, {ms_.stack_lost_map, zero});
  BasicBlock* inc = block("stack_lost_inc");
  b_.CreateCondBr(b_.CreateIsNull(slot), done, inc);
  b_.SetInsertPoint(inc);
  atomic_inc(slot);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  PHINode* out = b_.CreatePHI(m_.i64, 4);
  out->addIncoming(code, here);
  out->addIncoming(i64c(-1), failed);
  out->addIncoming(i64c(-1), count);
  out->addIncoming(i64c(-1), inc);
  return out;
}

// Whether the sampled context was in user mode: a perf event's registers
// say (the CPL in cs); every other probe here runs in the kernel.
Value* ProgramEmitter::user_mode_value() {
  if (probe_.kind != ir::ProbeKind::perf) return b_.getFalse();
  Value* cs = b_.CreateLoad(m_.i64, byte_ptr(ctx_, kRegCs));
  return b_.CreateICmpEQ(b_.CreateAnd(cs, i64c(3)), i64c(3));
}

// The stack and symbol builtins; null with `handled` false for others.
Value* ProgramEmitter::stack_builtin(const ir::Node* n, bool& handled) {
  const std::string& f = n->s;
  handled = true;
  if (f == "user_mode") return b_.CreateZExt(user_mode_value(), m_.i64);
  if (f == "addr") {
    if (probe_.kind != ir::ProbeKind::perf) return i64c(0);
    return b_.CreateLoad(m_.i64, byte_ptr(ctx_, kRegIp));
  }
  if (f == "uaddr") {  // the first frame of the user stack: the user pc
    AllocaInst* pc = m_.entry_alloca(m_.i64, "uaddr");
    b_.CreateStore(i64c(0), pc);
    helper(kGetStack, m_.i64, {ctx_, pc, i64c(8), i64c(kUserStackFlag)});
    return b_.CreateLoad(m_.i64, pc);
  }
  if (f == "print_backtrace" || f == "print_ubacktrace") {
    stack_record(f == "print_ubacktrace" ? STAP_STACK_USER : 0, stack_code(n), nullptr);
    return nullptr;
  }
  if (f == "print_stack" || f == "print_ustack") {
    uint32_t flags = f == "print_ustack" ? STAP_STACK_USER : 0;
    const ir::Node* arg = n->kids.at(0);
    if (ir::is_stack_key(*arg)) stack_record(flags, stack_code(arg), nullptr);
    else stack_record(flags | STAP_STACK_TEXT, nullptr, expr(arg));
    return nullptr;
  }
  if (ir::is_stack_key(*n) || f == "stack" || f == "ustack")
    unsupported(n, f + "() as a value in kernel context: use it as an array key "
                       "(s[" + f + "()] <<< 1, every key of that array a stack or a literal) "
                       "or print it (print_backtrace(), print_stack(backtrace()))");
  handled = false;
  return nullptr;
}

// A STAP_REC_STACK record: the code, or the process and the text.
void ProgramEmitter::stack_record(uint32_t flags, Value* code, Value* text) {
  int64_t size = int64_t(sizeof(stap_record)) + 8 + (text ? ms_.maxlen : 0);
  BasicBlock* done = nullptr;
  Value* rec = begin_record(size, STAP_REC_STACK, b_.getInt32(flags), done);
  if (text) {
    Value* tgid = b_.CreateLShr(helper(kGetCurrentPidTgid, m_.i64, {}), 32);
    b_.CreateStore(tgid, byte_ptr(rec, int64_t(sizeof(stap_record))));
    copy_string(byte_ptr(rec, int64_t(sizeof(stap_record)) + 8), text, ms_.maxlen);
  } else {
    b_.CreateStore(code, byte_ptr(rec, int64_t(sizeof(stap_record))));
  }
  finish_record(rec, done);
}

}  // namespace stap::codegen
