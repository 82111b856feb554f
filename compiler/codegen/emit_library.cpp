// The rest of the tapset library in kernel context: name tables
// (errno_str, syscall_name), number readers of every width, the warn/log/
// abort records, string searching and conversions.  Semantics as
// loader/interp_builtins.cpp, which follows stap 4.8's tapsets.
#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>

#include <algorithm>

#include "base/errno_names.h"
#include "base/syscall_table.h"
#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"
#include "ir/memory_readers.h"

using namespace llvm;

namespace stap::codegen {

namespace {

std::vector<std::string> errno_table() {
  std::vector<std::string> names;
  for (int64_t e = 0; e < errnos::table_size(); ++e) names.emplace_back(errnos::name(e));
  return names;
}

std::vector<std::string> syscall_table() {
  std::vector<std::string> names;
  for (int64_t nr = 0; nr < syscalls::table_size(); ++nr) names.emplace_back(syscalls::name(nr));
  return names;
}

}  // namespace

// names[index] as a string value, "" for an index outside the table.  The
// table is one block of .rodata, entries NUL padded to one width (a
// multiple of 8), padded with empty entries to a power of two (at least
// one), so that the index is bounded by a mask, without a branch: a
// branch would split the verifier's state on the index's range, and a
// script using the same value in many calls would multiply its states.
Value* ProgramEmitter::table_entry(const std::vector<std::string>& names, Value* index) {
  size_t width = 8;
  for (const std::string& s : names) width = std::max(width, (s.size() + 8) & ~size_t(7));
  size_t entries = 1;
  while (entries <= names.size()) entries *= 2;
  std::string bytes;
  for (const std::string& s : names) bytes += s + std::string(width - s.size(), '\0');
  bytes += std::string((entries - names.size()) * width - 1, '\0');  // literal() adds a NUL
  Value* base = rodata_ptr(ms_.literal(bytes, false));
  // Opaque to LLVM (as bpf_runtime's STP_OPAQUE), which would otherwise
  // turn the arithmetic back into a compare and branch.
  auto* opaque = InlineAsm::get(FunctionType::get(m_.i64, {m_.i64}, false), "", "=r,0", true);
  index = b_.CreateCall(opaque, {index});
  // index <u n, as a 0/1 (Hacker's Delight's unsigned less-than).
  Value* n = i64c(int64_t(names.size()));
  Value* not_x = b_.CreateNot(index);
  Value* lt = b_.CreateLShr(b_.CreateOr(b_.CreateAnd(not_x, n),
                                        b_.CreateAnd(b_.CreateOr(not_x, n), b_.CreateSub(index, n))),
                            63);
  lt = b_.CreateCall(opaque, {lt});
  // In range: index; else n (an empty entry); then masked for the verifier.
  Value* i = b_.CreateOr(b_.CreateAnd(index, b_.CreateNeg(lt)), b_.CreateAnd(n, b_.CreateSub(lt, i64c(1))));
  // The mask last, behind the barrier: LLVM would distribute it over the
  // OR, and 6.1's verifier loses the bounds of an OR.
  i = b_.CreateAnd(b_.CreateCall(opaque, {i}), i64c(int64_t(entries - 1)));
  Value* dst = string_temp();
  Value* src = byte_ptr(base, b_.CreateMul(i, i64c(int64_t(width))));
  helper(kProbeReadKernelStr, m_.i64, {dst, i64c(std::min<int64_t>(int64_t(width), ms_.maxlen)), src});
  return dst;
}

// user_<type>, user_<type>_warn, user_<type>_error: the value at addr in
// the current task's memory, with the fault ir/memory_readers.h gives
// each: 0, a warning in stap's words and 0, or the "read fault" error.
// (The kernel_* readers are memory_builtin's.)
Value* ProgramEmitter::number_reader(const ir::Node* n) {
  const ir::NumberReader* found = ir::find_number_reader(n->s);
  if (!found || !found->user) return nullptr;
  const ir::NumberReader& r = *found;
  Value* addr = expr(n->kids.at(0));
  Value* tmp = scratch_slot(8);  // scratch, not stack: probes call many builtins
  b_.CreateStore(i64c(0), tmp);
  Value* rc = helper(kProbeReadUser, m_.i64, {tmp, i64c(r.size), b_.CreateIntToPtr(addr, m_.ptr)});
  defer_if_faulted(b_.CreateICmpSLT(rc, i64c(0)), addr);
  BasicBlock* fault = block("read_fault");
  BasicBlock* done = block("read_ok");
  b_.CreateCondBr(b_.CreateICmpSLT(rc, i64c(0)), fault, done);
  b_.SetInsertPoint(fault);
  if (r.fault == ir::ReadFault::error) {
    raise_number(n->loc, "read fault [man error::fault] at 0x%llx", addr);
  } else {
    b_.CreateStore(i64c(0), tmp);
    if (r.fault == ir::ReadFault::warn) {
      Value* msg = string_temp();
      Value* data = scratch_slot(8);
      b_.CreateStore(addr, data);
      std::string fmt = std::string(r.words) + " 0x%llx [man error::fault]";
      helper(kSnprintf, m_.i64, {msg, i64c(ms_.maxlen), rodata_ptr(ms_.literal(fmt, false)), data, i64c(8)});
      message_record(STAP_REC_WARN, msg);
    }
    b_.CreateBr(done);
  }
  b_.SetInsertPoint(done);
  Value* v = b_.CreateLoad(b_.getIntNTy(8 * r.size), tmp);
  if (r.size == 8) return v;
  return r.is_signed ? b_.CreateSExt(v, m_.i64) : b_.CreateZExt(v, m_.i64);
}

// kernel_string_utf16/32, user_string_utf16/32: bpf_runtime/utf.c into a
// scratch slot (its state, then P + 16 bytes of output), then stap's
// errors: a copy fault, or an invalid character.
Value* ProgramEmitter::utf_string(const ir::Node* n) {
  const std::string& name = n->s;
  bool user = name.starts_with("user_");
  int64_t width = name.ends_with("_utf16") ? 2 : name.ends_with("_utf32") ? 4 : 0;
  if (!width || (!user && !name.starts_with("kernel_"))) return nullptr;
  Value* addr = expr(n->kids.at(0));
  int64_t p = 8;
  while (p < ms_.maxlen) p *= 2;
  constexpr int64_t kState = 48;  // struct stp_utf
  Value* slot = scratch_slot(uint32_t(kState + p + 16));
  Value* status = runtime_call("stp_utf_string", m_.i64,
                               {slot, addr, i64c(width), i64c(user), i64c(ms_.maxlen), i64c(p - 1)});
  Value* at = b_.CreateLoad(m_.i64, slot);  // the failing unit's address
  if (user) defer_if_faulted(b_.CreateICmpEQ(status, i64c(1)), at);
  BasicBlock* fault = block("utf_fault");
  BasicBlock* check = block("utf_check");
  BasicBlock* invalid = block("utf_invalid");
  BasicBlock* done = block("utf_done");
  b_.CreateCondBr(b_.CreateICmpEQ(status, i64c(1)), fault, check);
  b_.SetInsertPoint(fault);
  raise_number(n->loc, std::string(user ? "user" : "kernel") + " string copy fault at 0x%llx [man error::fault]", at);
  b_.SetInsertPoint(check);
  b_.CreateCondBr(b_.CreateICmpEQ(status, i64c(2)), invalid, done);
  b_.SetInsertPoint(invalid);
  Value* data = scratch_slot(16);
  b_.CreateStore(b_.CreateLoad(m_.i64, byte_ptr(slot, int64_t(24))), data);  // the character
  b_.CreateStore(at, byte_ptr(data, int64_t(8)));
  Value* msg = string_temp();
  std::string fmt = std::string("invalid UTF-") + (width == 2 ? "16" : "32") + " character U+%llX at 0x%llx";
  helper(kSnprintf, m_.i64, {msg, i64c(ms_.maxlen), rodata_ptr(ms_.literal(fmt, false)), data, i64c(16)});
  raise(n->loc, msg);
  b_.SetInsertPoint(done);
  Value* dst = string_temp();
  copy_string(dst, byte_ptr(slot, kState), ms_.maxlen);
  return dst;
}

// strpos, isinstr, str_replace, strtol, tokenize: bpf_runtime/strings.c
// on a scratch slot of four areas of P + 16 bytes; null for other names.
Value* ProgramEmitter::string_library(const ir::Node* n) {
  const std::string& name = n->s;
  if (name != "strpos" && name != "isinstr" && name != "str_replace" && name != "strtol" &&
      name != "tokenize")
    return nullptr;
  std::vector<Value*> args;
  for (const ir::Node* k : n->kids) args.push_back(expr(k));
  Type* void_ty = Type::getVoidTy(m_.module().getContext());
  int64_t p = 8;
  while (p < ms_.maxlen) p *= 2;
  Value* mask = i64c(p - 1);
  Value* maxlen = i64c(ms_.maxlen);
  Value* slot = scratch_slot(uint32_t(64 + 4 * (p + 16)));
  Value* none = ConstantPointerNull::get(PointerType::get(m_.module().getContext(), 0));
  if (name == "strtol") {
    runtime_call("stp_str_load", void_ty, {slot, args[0], none, none, maxlen, mask});
    return runtime_call("stp_strtol", m_.i64, {slot, args[1], maxlen, mask});
  }
  if (name == "strpos" || name == "isinstr") {
    runtime_call("stp_str_load", void_ty, {slot, args[0], args[1], none, maxlen, mask});
    Value* at = runtime_call("stp_strpos", m_.i64, {slot, maxlen, mask});
    if (name == "strpos") return at;
    return b_.CreateZExt(b_.CreateICmpSGE(at, i64c(0)), m_.i64);
  }
  if (name == "str_replace") {
    runtime_call("stp_str_load", void_ty, {slot, args[0], args[1], args[2], maxlen, mask});
    Value* from_len = runtime_call("stp_strlen", m_.i64, {args[1], string_temp(), maxlen});
    Value* out = runtime_call("stp_str_replace", m_.ptr, {slot, from_len, maxlen, mask});
    Value* dst = string_temp();
    copy_string(dst, out, ms_.maxlen);
    return dst;
  }
  // tokenize([input,] delim): the state is this CPU's, as stap's is its
  // context's (kept between probes on a CPU).
  Value* input = args.size() == 2 ? args[0] : rodata_ptr(ms_.literal(""));
  Value* delim = args.back();
  if (!ms_.tokenize_map)
    ms_.tokenize_map = m_.add_map({"stap_tokenize", kMapPercpuArray, 1, 0, 4, uint32_t(16 + p + 16)});
  AllocaInst* key = m_.entry_alloca(m_.i32, "tokenize_key");
  b_.CreateStore(b_.getInt32(0), key);
  Value* state = helper(kMapLookupElem, m_.ptr, {ms_.tokenize_map, key});
  Value* dst = string_temp();
  clear_string(dst);
  BasicBlock* run = block("tokenize");
  BasicBlock* done = block("tokenize_done");
  b_.CreateCondBr(b_.CreateIsNull(state), done, run);
  b_.SetInsertPoint(run);
  runtime_call("stp_str_load", void_ty, {slot, input, delim, none, maxlen, mask});
  runtime_call("stp_tokenize", void_ty, {state, slot, dst, maxlen, mask});
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return dst;
}

// ctime([secs]): "Thu Jan  1 00:00:00 1970", UTC; stap refuses what a
// 32-bit time_t cannot hold.
Value* ProgramEmitter::ctime_value(const ir::Node* n) {
  Value* secs;
  if (n->kids.empty()) {
    Value* off = b_.CreateLoad(m_.i64, header_field(offsetof(stap_globals_header, realtime_offset_ns)));
    secs = b_.CreateUDiv(b_.CreateAdd(helper(kKtimeGetNs, m_.i64, {}), off), i64c(1000000000));
  } else {
    secs = expr(n->kids[0]);
  }
  auto refuse = [&](Value* bad, const char* msg) {
    BasicBlock* err = block("ctime_range");
    BasicBlock* ok = block("ctime_ok");
    b_.CreateCondBr(bad, err, ok);
    b_.SetInsertPoint(err);
    raise_literal(n->loc, msg);
    b_.SetInsertPoint(ok);
  };
  refuse(b_.CreateICmpSGT(secs, i64c(2147483647LL)), "Time too far in the future to be converted");
  refuse(b_.CreateICmpSLT(secs, i64c(-2147483648LL)), "Time too far in the past to be converted");
  Value* fields = scratch_slot(56);
  runtime_call("stp_ctime_fields", Type::getVoidTy(m_.module().getContext()), {secs, fields});
  auto field = [&](int i) { return b_.CreateLoad(m_.i64, byte_ptr(fields, int64_t(8 * i))); };
  Value* day = table_entry({"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}, field(0));
  Value* month = table_entry({"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                              "Nov", "Dec"}, field(1));
  Value* data = scratch_slot(56);
  Value* values[] = {b_.CreatePtrToInt(day, m_.i64), b_.CreatePtrToInt(month, m_.i64), field(2),
                     field(3), field(4), field(5), field(6)};
  for (int i = 0; i < 7; ++i) b_.CreateStore(values[i], byte_ptr(data, int64_t(8 * i)));
  Value* out = string_temp();
  const char* fmt = "%s %s %2lld %02lld:%02lld:%02lld %lld";
  helper(kSnprintf, m_.i64, {out, i64c(ms_.maxlen), rodata_ptr(ms_.literal(fmt, false)), data, i64c(56)});
  return out;
}

// A record whose payload is one string (warn, log, system): a string slot as a
// printf argument's, coded when it is a name the runtime makes.
void ProgramEmitter::message_record(uint32_t kind, Value* msg, PrintfCoded how) {
  BasicBlock* done = nullptr;
  Value* rec = begin_record(int64_t(sizeof(stap_record)) + ms_.maxlen, kind, b_.getInt32(0), done);
  Value* slot = byte_ptr(rec, int64_t(sizeof(stap_record)));
  if (how == PrintfCoded::none) copy_string(slot, msg, ms_.maxlen);
  else store_coded_slot(slot, how, msg, sizeof(stap_record) % 8 == 0);
  finish_record(rec, done, /*urgent=*/kind == STAP_REC_WARN);
}

// user_string_warn(addr[, msg]), user_string_n_warn(addr, n[, msg]) and
// the *2* aliases: on a fault, stap's warning ("user string copy fault
// -14 at 0x10 [man error::fault]") and msg ("" when not given).
Value* ProgramEmitter::string_warn_reader(const ir::Node* n) {
  bool has_n = n->s.find("_n_") != std::string::npos;
  size_t nargs = n->kids.size();
  Value* addr = expr(n->kids.at(0));
  Value* limit = has_n ? expr(n->kids.at(1)) : i64c(ms_.maxlen);
  Value* msg = nargs > (has_n ? 2u : 1u) ? expr(n->kids.back()) : rodata_ptr(ms_.literal(""));
  Value* dst = string_temp();
  Value* rc = runtime_call("stp_read_str", m_.i64,
                           {dst, b_.CreateIntToPtr(addr, m_.ptr), limit, i64c(ms_.maxlen), i64c(1)});
  defer_if_faulted(b_.CreateICmpSLT(rc, i64c(0)), addr);
  BasicBlock* fault = block("str_fault");
  BasicBlock* done = block("str_read");
  b_.CreateCondBr(b_.CreateICmpSLT(rc, i64c(0)), fault, done);
  b_.SetInsertPoint(fault);
  Value* data = scratch_slot(16);
  b_.CreateStore(rc, data);
  b_.CreateStore(addr, byte_ptr(data, int64_t(8)));
  Value* text = string_temp();
  std::string fmt = "user string copy fault %lld at 0x%llx [man error::fault]";
  helper(kSnprintf, m_.i64, {text, i64c(ms_.maxlen), rodata_ptr(ms_.literal(fmt, false)), data, i64c(16)});
  message_record(STAP_REC_WARN, text);
  copy_string(dst, msg, ms_.maxlen);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return dst;
}

Value* ProgramEmitter::library_builtin(const ir::Node* n) {
  const std::string& name = n->s;
  auto arg = [&](size_t i) { return expr(n->kids.at(i)); };
  if (name == "errno_str") {
    // |e| without a branch (see table_entry): (e ^ sign) - sign.
    Value* e = arg(0);
    auto* opaque = InlineAsm::get(FunctionType::get(m_.i64, {m_.i64}, false), "", "=r,0", true);
    Value* sign = b_.CreateCall(opaque, {b_.CreateAShr(e, 63)});  // else LLVM makes it a branch
    return table_entry(errno_table(), b_.CreateSub(b_.CreateXor(e, sign), sign));
  }
  if (name == "syscall_name") return table_entry(syscall_table(), arg(0));
  if (name == "usrdev2kerndev") {
    // The kernel's new_decode_dev() of a 32-bit dev_t, then MKDEV.
    Value* dev = b_.CreateAnd(arg(0), i64c(0xffffffff));
    Value* major = b_.CreateLShr(b_.CreateAnd(dev, i64c(0xfff00)), 8);
    Value* minor = b_.CreateOr(b_.CreateAnd(dev, i64c(0xff)),
                               b_.CreateAnd(b_.CreateLShr(dev, 12), i64c(0xfff00)));
    return b_.CreateOr(b_.CreateShl(major, 20), minor);
  }
  if (name == "ctime") return ctime_value(n);
  if (name == "stp_pid")
    return b_.CreateLoad(m_.i64, header_field(offsetof(stap_globals_header, runtime_pid)));
  if (name == "tz_gmtoff")
    return b_.CreateLoad(m_.i64, header_field(offsetof(stap_globals_header, tz_gmtoff)));
  if (name == "tz_name") {
    Value* out = string_temp();
    copy_string(out, header_field(offsetof(stap_globals_header, tz_name)),
                std::min<int64_t>(ms_.maxlen, STAP_TZ_NAME_LEN));
    return out;
  }
  // No cycle counter instruction in BPF: the monotonic clock in ns stands in.
  if (name == "get_cycles") return helper(kKtimeGetNs, m_.i64, {});
  if (name == "warn" || name == "log" || name == "system") {
    PrintfCoded how = printf_coding(n->kids.at(0));
    uint32_t kind = name == "warn" ? STAP_REC_WARN : name == "log" ? STAP_REC_LOG : STAP_REC_SYSTEM;
    message_record(kind, coded_value(n->kids.at(0), how), how);
    return nullptr;
  }
  if (name == "ftrace") {
    // stap's trace_printk("%s\n", msg): a line in the ftrace ring buffer.
    const std::string fmt = "%s\n";
    helper(kTracePrintk, m_.i64, {rodata_ptr(ms_.literal(fmt, false)), i64c(int64_t(fmt.size() + 1)),
                                  arg(0)});
    return nullptr;
  }
  if (name == "abort") {
    // As exit(): this probe finishes, no other kernel probe body starts.
    submit_record(STAP_REC_ABORT, b_.getInt32(0), {}, {});
    b_.CreateStore(i64c(1), header_field(offsetof(stap_globals_header, exit_requested)));
    b_.CreateStore(i64c(STAP_STATE_STOPPING), header_field(offsetof(stap_globals_header, state)));
    // Unlike exit(), the probe ends here (stap sets CONTEXT->aborted).
    b_.CreateBr(exit_bb_);
    after_terminator();
    return nullptr;
  }
  if (Value* v = string_library(n)) return v;
  if (Value* v = number_reader(n)) return v;
  if (Value* v = utf_string(n)) return v;
  if (name.starts_with("user_string") && name.find("_warn") != std::string::npos)
    return string_warn_reader(n);
  return quote_builtin(n);
}

}  // namespace stap::codegen
