// Stacks and symbols in kernel context: the kernel captures, the runtime
// names (loader/stack_symbols.h).
//
// A stack is captured with bpf_get_stack into a scratch slot and stored
// in the object's own stack maps (bpf_runtime/stacks.c): an id per
// distinct stack, the frames by id in STAP_STACKS_MAP (MAXBACKTRACE
// frames a value).  What the script sees is a stack code
// (compiler/ir/key_codes.h): 8 bytes saying which stack, whose process,
// and what text it stands for.
//  - As an array key (s[backtrace()] <<< 1) the code is the key: 8 bytes
//    to hash instead of a string of addresses, and the whole stack kept
//    whatever MAXSTRINGLEN is (the folded-stack output uses all of it).
//  - print_backtrace(), print_ubacktrace() and print_[u]stack of one of the
//    stack builtins write a STAP_REC_STACK record with the code;
//    print_[u]stack(s) of any other string sends the string.
// Identical stacks share one id and different stacks never do (the frames
// are compared), so codes aggregate exactly as the strings would.  A
// capture with no id left gives the empty stack "" and is counted in
// STAP_STACKS_LOST_MAP for the closing warning.
#include <algorithm>

#include <llvm/IR/Instructions.h>

#include "bpf_runtime/stap_layout.h"
#include "bpf_runtime/unwind_row.h"
#include "codegen/emitter.h"
#include "codegen/pt_regs.h"
#include "ir/key_codes.h"

namespace stap::codegen {

using namespace llvm;

namespace {

// Stack ids: exact storage, so no head room is needed beyond the stacks a
// script keeps (a stack-keyed array holds MAXMAPENTRIES) and prints; ids
// are never reused.  The array of 16384 stacks of 20 frames is 2.5 MiB,
// the id hash about 1 MiB.  A stack code has 24 bits for the id.
constexpr int64_t kMinStackEntries = 16384;
constexpr int64_t kMaxStackEntries = int64_t{1} << 24;
// struct pt_regs, at the start of a perf event program's context.
using pt_regs::kIp, pt_regs::kCs;
constexpr unsigned kMaxProcesses = 8192;
constexpr int64_t kNoExist = 1;  // BPF_NOEXIST
constexpr unsigned kMapLruPercpuHash = 10;  // BPF_MAP_TYPE_LRU_PERCPU_HASH
// unwind.c's struct stp_umaps: mm, next, 8 mappings of 32 bytes.
constexpr const char* kUnwindMapsMap = "stap_unwind_maps";
constexpr unsigned kUnwindMapsValue = 16 + 8 * 32;
// Per CPU, so 1024 x 272 bytes a CPU; an evicted process relearns its
// mappings.
constexpr unsigned kUnwindProcesses = 1024;

int64_t stack_entries(const ir::Limits& limits) {
  return std::clamp<int64_t>(limits.maxmapentries * 2, kMinStackEntries, kMaxStackEntries);
}

bool user_side(const std::string& f) {
  return f == "ubacktrace" || f == "ucallers" || f == "sprint_ubacktrace" || f == "usymname" ||
         f == "print_ubacktrace";
}

// The unwinder's maps (bpf_runtime/unwind_row.h): the rows (one
// placeholder slot; the loader sizes it to the tables it builds), the
// files, and a per-CPU cache of each process's mappings (unwind.c).
void ensure_unwind_maps(BpfModule& m) {
  if (m.module().getNamedGlobal(STAP_UNWIND_ROWS_MAP)) return;
  m.add_map({STAP_UNWIND_ROWS_MAP, kMapArray, 1, 0, 4, 8});
  m.add_map({STAP_UNWIND_FILES_MAP, kMapHash, STAP_UNWIND_MAX_FILES, 0,
              unsigned(sizeof(stap_unwind_file)), unsigned(sizeof(stap_unwind_range))});
  m.add_map({kUnwindMapsMap, kMapLruPercpuHash, kUnwindProcesses, 0, 8, kUnwindMapsValue});
}

}  // namespace

void ProgramEmitter::ensure_stack_maps() {
  if (ms_.stack_map) return;
  auto entries = unsigned(stack_entries(ms_.ir.limits));
  auto frames_size = unsigned(8 * ms_.ir.limits.maxbacktrace);
  ms_.stack_map = m_.add_map({STAP_STACKS_MAP, kMapArray, entries, 0, 4, frames_size});
  m_.add_map({STAP_STACK_IDS_MAP, kMapHash, entries, 0, 8, 4});
  ms_.stack_lost_map = m_.add_map({STAP_STACKS_LOST_MAP, kMapArray, 2, 0, 4, 8});
  ms_.upids_map = m_.add_map({STAP_UPIDS_MAP, kMapLruHash, kMaxProcesses, 0, 8, 8});
}

// Each user stack new to a process (its first, and each other one) tells
// the runtime, which reads the process's mappings at once when the frames
// fall outside those it has: its frames are named from them even after it
// has exited (an end probe's report).  Not only the first: that one can
// come before ld.so has mapped the libraries, or before an exec.  The LRU
// map forgets old pairs, which costs only a repeated record.
void ProgramEmitter::announce_process(Value* tgid, Value* id) {
  AllocaInst* key = m_.entry_alloca(m_.i64, "upid");
  b_.CreateStore(b_.CreateOr(b_.CreateShl(tgid, 32), b_.CreateAnd(id, i64c(0xffffffff))), key);
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
  Value* rec = begin_record(int64_t(sizeof(stap_record)) + 16, STAP_REC_STACK,
                            b_.getInt32(STAP_STACK_USER | STAP_STACK_PROCESS), done);
  b_.CreateStore(tgid, byte_ptr(rec, int64_t(sizeof(stap_record))));
  b_.CreateStore(id, byte_ptr(rec, int64_t(sizeof(stap_record)) + 8));
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
  // A perf sample's pc may be a user address (user mode), which no kernel
  // stack holds: its code is a stack of that one frame.
  if (f == "symname" && context_.perf_sample) return address_code(sample_ip(), form);
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

// The code of a one-frame kernel "stack" holding address (stacks.c's
// stp_address_id), named by the runtime as a first frame is.
Value* ProgramEmitter::address_code(Value* address, Value* form) {
  ensure_stack_maps();
  int64_t depth = ms_.ir.limits.maxbacktrace;
  Value* id = runtime_call("stp_address_id", m_.i64,
                           {address, scratch_slot(uint32_t(8 * depth)), i64c(depth),
                            m_.module().getNamedGlobal(STAP_STACK_IDS_MAP), ms_.stack_map,
                            ms_.stack_lost_map, i64c(stack_entries(ms_.ir.limits))});
  Value* code = b_.CreateOr(i64c(ir::kStackTag), b_.CreateAnd(id, i64c(0xffffff)));
  code = b_.CreateOr(code, b_.CreateShl(form, 56));
  return b_.CreateSelect(b_.CreateICmpSLT(id, i64c(0)), i64c(-1), code);
}

// The id (bpf_runtime/stacks.c) of this context's kernel or (in_user)
// user stack, as a code of the given form; -1 (the empty string) when
// there is none or it was lost.
Value* ProgramEmitter::capture_stack(Value* in_user, Value* form) {
  ensure_stack_maps();
  Value* flags = b_.CreateSelect(in_user, i64c(kUserStackFlag), i64c(0));
  int64_t depth = ms_.ir.limits.maxbacktrace;
  bool unwind = in_user == b_.getTrue() && form != i64c(ir::kStackSymbol);
  Value* buf = scratch_slot(unwind ? uint32_t(STP_UNWIND_SLOT) : uint32_t(8 * depth));
  Value* ids = m_.module().getNamedGlobal(STAP_STACK_IDS_MAP);
  Value* id = nullptr;
  if (unwind) {
    // ubacktrace() and friends: unwound with the binaries' CFI
    // (bpf_runtime/unwind.c) once the loader has loaded tables.
    ensure_unwind_maps(m_);
    id = runtime_call("stp_ustack_id", m_.i64,
                      {ctx_, buf, i64c(depth), ids, ms_.stack_map, ms_.stack_lost_map,
                       i64c(stack_entries(ms_.ir.limits)), m_.module().getNamedGlobal(STAP_UNWIND_ROWS_MAP),
                       m_.module().getNamedGlobal(STAP_UNWIND_FILES_MAP),
                       m_.module().getNamedGlobal(kUnwindMapsMap)});
  } else {
    id = runtime_call("stp_stack_id", m_.i64,
                      {ctx_, buf, i64c(depth), flags, ids, ms_.stack_map, ms_.stack_lost_map,
                       i64c(stack_entries(ms_.ir.limits))});
  }
  Value* tgid = b_.CreateLShr(helper(kGetCurrentPidTgid, m_.i64, {}), 32);
  Value* code = b_.CreateOr(i64c(ir::kStackTag), b_.CreateAnd(id, i64c(0xffffff)));
  code = b_.CreateOr(code, b_.CreateShl(form, 56));
  if (in_user != b_.getFalse()) {
    BasicBlock* tell = block("stack_user");
    BasicBlock* after = block("stack_user_done");
    b_.CreateCondBr(b_.CreateAnd(in_user, b_.CreateICmpSGE(id, i64c(0))), tell, after);
    b_.SetInsertPoint(tell);
    announce_process(tgid, id);
    b_.CreateBr(after);
    b_.SetInsertPoint(after);
  }
  Value* user_bits = b_.CreateOr(i64c(ir::kStackUser), b_.CreateShl(tgid, 24));
  code = b_.CreateOr(code, b_.CreateSelect(in_user, user_bits, i64c(0)));
  return b_.CreateSelect(b_.CreateICmpSLT(id, i64c(0)), i64c(-1), code);
}

// ustack(n): the address n frames into this thread's user stack,
// unwound and stored as ubacktrace() is (so the runtime can name it
// later); 0 past the last frame.
Value* ProgramEmitter::user_frame(Value* level) {
  ensure_stack_maps();
  ensure_unwind_maps(m_);
  int64_t depth = ms_.ir.limits.maxbacktrace;
  Value* buf = scratch_slot(uint32_t(STP_UNWIND_SLOT));
  Value* id = runtime_call("stp_ustack_id", m_.i64,
                           {ctx_, buf, i64c(depth), m_.module().getNamedGlobal(STAP_STACK_IDS_MAP),
                            ms_.stack_map, ms_.stack_lost_map, i64c(stack_entries(ms_.ir.limits)),
                            m_.module().getNamedGlobal(STAP_UNWIND_ROWS_MAP),
                            m_.module().getNamedGlobal(STAP_UNWIND_FILES_MAP),
                            m_.module().getNamedGlobal(kUnwindMapsMap)});
  BasicBlock* tell = block("ustack_tell");
  BasicBlock* told = block("ustack_told");
  b_.CreateCondBr(b_.CreateICmpSGE(id, i64c(0)), tell, told);
  b_.SetInsertPoint(tell);
  announce_process(b_.CreateLShr(helper(kGetCurrentPidTgid, m_.i64, {}), 32), id);
  b_.CreateBr(told);
  b_.SetInsertPoint(told);
  // The frames are zero past the last: a level past MAXBACKTRACE reads
  // the slot's first zero word after them.
  Value* in_range = b_.CreateICmpULT(level, i64c(depth));
  Value* index = b_.CreateSelect(in_range, level, i64c(depth));
  index = b_.CreateAnd(index, i64c(STP_UNWIND_MAX_FRAMES - 1));
  Value* slot = b_.CreateGEP(m_.i8, buf, b_.CreateShl(index, 3));
  Value* address = b_.CreateLoad(m_.i64, slot);
  return b_.CreateSelect(in_range, address, i64c(0));
}

// A perf sample's pc, from the registers the event saved.
Value* ProgramEmitter::sample_ip() { return b_.CreateLoad(m_.i64, byte_ptr(ctx_, kIp)); }

// Whether the sampled context was in user mode: a perf event's registers
// say (the CPL in cs); every other probe here runs in the kernel.
Value* ProgramEmitter::user_mode_value() {
  if (!context_.perf_sample) return b_.getFalse();
  Value* cs = b_.CreateLoad(m_.i64, byte_ptr(ctx_, kCs));
  return b_.CreateICmpEQ(b_.CreateAnd(cs, i64c(3)), i64c(3));
}

// The stack and symbol builtins; null with `handled` false for others.
Value* ProgramEmitter::stack_builtin(const ir::Node* n, bool& handled) {
  const std::string& f = n->s;
  handled = true;
  if (f == "user_mode") return b_.CreateZExt(user_mode_value(), m_.i64);
  if (f == "addr") return context_.perf_sample ? sample_ip() : i64c(0);
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
  if (Value* text = stack_text_value(n)) return text;
  if (Value* text = kernel_symbol_value(n)) return text;
  if (Value* address = stack_frame_value(n)) return address;
  if (ir::is_stack_key(*n) || f == "usymname" || f == "usymdata" || f == "sprint_ustack")
    unsupported(n, f + "() as a value in kernel context: user-space names are the runtime's; "
                       "print it (printf(\"%s\", " + f + "(...))) or " +
                       (ir::is_stack_key(*n) ? "use it as an array key (every key of that array a "
                                               "stack or a literal)"
                                             : "keep the value and name it in an end probe"));
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
