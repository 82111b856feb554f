// Context functions, memory reads, printf/sprintf and exit in kernel context.
#include <llvm/IR/Constants.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "base/format_string.h"
#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"
#include "ir/memory_readers.h"
#include "ir/kernel_builtins.h"
#include "ir/key_codes.h"

using namespace llvm;

namespace stap::codegen {

Value* ProgramEmitter::builtin(const ir::Node* n) {
  const std::string& name = n->s;
  auto arg = [&](size_t i) { return expr(n->kids.at(i)); };
  auto pid_tgid = [&] { return helper(kGetCurrentPidTgid, m_.i64, {}); };
  auto uid_gid = [&] { return helper(kGetCurrentUidGid, m_.i64, {}); };
  auto low32 = [&](Value* v) { return b_.CreateAnd(v, i64c(0xffffffff)); };
  if (name == "pid") return b_.CreateLShr(pid_tgid(), 32);
  if (name == "tid") return low32(pid_tgid());
  if (name == "ppid") return runtime_call("stp_ppid", m_.i64, {});
  if (name == "uid") return low32(uid_gid());
  if (name == "gid") return b_.CreateLShr(uid_gid(), 32);
  if (name == "euid") return runtime_call("stp_euid", m_.i64, {});
  if (name == "egid") return runtime_call("stp_egid", m_.i64, {});
  if (name == "task_current") return helper(kGetCurrentTask, m_.i64, {});
  if (name == "cpu") return b_.CreateZExt(helper(kGetSmpProcessorId, m_.i32, {}), m_.i64);
  if (name == "target")
    return b_.CreateLoad(m_.i64, header_field(offsetof(stap_globals_header, target_pid)));
  if (name == "pp") return rodata_ptr(ms_.literal(probe_.pp));
  if (name == "pn") return rodata_ptr(ms_.literal(probe_.pn.empty() ? probe_.pp : probe_.pn));
  if (name == "ppfunc") return rodata_ptr(ms_.literal(""));  // no function in a tracepoint's pp
  if (name == "is_return") {
    // stap's: a function's or a system call's return probe.
    const auto* k = probe_.as<ir::KfuncSpec>();
    const auto* u = probe_.as<ir::UprobeSpec>();
    const auto* sc = probe_.as<ir::SyscallSpec>();
    return i64c((k && k->is_return) || (u && u->is_return) || (sc && sc->is_exit()));
  }
  if (name == "execname" || name == "pexecname") {
    // comm is 16 bytes; below that MAXSTRINGLEN it is read whole, then cut.
    Value* tmp = ms_.maxlen < 16 ? scratch_slot(16) : string_temp();
    if (name == "execname") helper(kGetCurrentComm, m_.i64, {tmp, i64c(16)});
    else runtime_call("stp_pexecname", Type::getVoidTy(m_.module().getContext()), {tmp, i64c(16)});
    if (ms_.maxlen >= 16) return tmp;
    Value* cut = string_temp();
    copy_string(cut, tmp, ms_.maxlen);
    return cut;
  }
  if (Value* v = clock_builtin(n)) return v;
  if (Value* v = text_builtin(n)) return v;
  // As the interpreter: MAJOR shifts unsigned, MKDEV masks the minor.
  if (name == "MAJOR") return b_.CreateLShr(arg(0), 20);
  if (name == "MINOR") return b_.CreateAnd(arg(0), i64c(0xfffff));
  if (name == "MKDEV") {
    Value* major = arg(0);
    return b_.CreateOr(b_.CreateShl(major, 20), b_.CreateAnd(arg(1), i64c(0xfffff)));
  }
  if (Value* v = memory_builtin(n)) return v;
  bool stack = false;  // emit_stack.cpp
  if (Value* v = stack_builtin(n, stack); stack) return v;
  if (name == "exit") {
    exit_record();
    return nullptr;
  }
  if (name == "error") {
    raise(n->loc, arg(0));
    return nullptr;
  }
  if (name == "assert") {
    Value* ok = arg(0);
    Value* msg = n->kids.size() > 1 ? arg(1) : rodata_ptr(ms_.literal("Assertion failed"));
    BasicBlock* fail = block("assert_failed");
    BasicBlock* pass = block("assert_ok");
    b_.CreateCondBr(b_.CreateICmpEQ(ok, i64c(0)), fail, pass);
    b_.SetInsertPoint(fail);
    raise(n->loc, msg);
    b_.SetInsertPoint(pass);
    return nullptr;
  }
  if (ir::kernel_supports_builtin(name)) return library_builtin(n);  // null: returns nothing
  unsupported(n, name + "() is not available in kernel context");
}

// gettimeofday_* (realtime: the monotonic clock plus the offset the
// runtime stores at start), local_clock_*, cpu_clock_*, jiffies.
Value* ProgramEmitter::clock_builtin(const ir::Node* n) {
  const std::string& name = n->s;
  auto arg = [&](size_t i) { return expr(n->kids.at(i)); };
  auto now_ns = [&] {
    Value* off = b_.CreateLoad(m_.i64, header_field(offsetof(stap_globals_header, realtime_offset_ns)));
    return b_.CreateAdd(helper(kKtimeGetNs, m_.i64, {}), off);
  };
  if (name == "gettimeofday_ns") return now_ns();
  if (name == "gettimeofday_us") return b_.CreateUDiv(now_ns(), i64c(1000));
  if (name == "gettimeofday_ms") return b_.CreateUDiv(now_ns(), i64c(1000000));
  if (name == "gettimeofday_s") return b_.CreateUDiv(now_ns(), i64c(1000000000));
  if (name == "jiffies") return helper(kJiffies64, m_.i64, {});
  auto mono = [&](int64_t div) {
    Value* ns = helper(kKtimeGetNs, m_.i64, {});  // CLOCK_MONOTONIC, as the interpreter
    return div == 1 ? ns : b_.CreateUDiv(ns, i64c(div));
  };
  static const struct { const char* suffix; int64_t div; } kClocks[] = {
      {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
  for (const auto& c : kClocks) {
    if (name == std::string("local_clock_") + c.suffix) return mono(c.div);
    if (name == std::string("cpu_clock_") + c.suffix) {
      arg(0);  // the CPU: every CPU shares the monotonic clock
      return mono(c.div);
    }
  }
  return nullptr;
}

// String functions and randint; null for any
// other name.  Semantics as loader/interp_builtins.cpp.
Value* ProgramEmitter::text_builtin(const ir::Node* n) {
  const std::string& name = n->s;
  auto arg = [&](size_t i) { return expr(n->kids.at(i)); };
  auto check = [&](Value* bad, const std::string& msg) {
    BasicBlock* err = block("builtin_error");
    BasicBlock* ok = block("builtin_ok");
    b_.CreateCondBr(bad, err, ok);
    b_.SetInsertPoint(err);
    raise_literal(n->loc, msg);
    b_.SetInsertPoint(ok);
  };
  if (name == "strlen")
    return runtime_call("stp_strlen", m_.i64, {arg(0), string_temp(), i64c(ms_.maxlen)});
  if (name == "substr") {
    Value* s = arg(0);
    Value* start = arg(1);
    Value* len = arg(2);
    Value* dst = string_temp();
    runtime_call("stp_substr", Type::getVoidTy(m_.module().getContext()),
                 {dst, s, start, len, string_temp(), i64c(ms_.maxlen)});
    return dst;
  }
  if (name == "stringat") {
    Value* s = arg(0);
    Value* pos = arg(1);
    Value* len = runtime_call("stp_strlen", m_.i64, {s, string_temp(), i64c(ms_.maxlen)});
    check(b_.CreateOr(b_.CreateICmpSLT(pos, i64c(0)), b_.CreateICmpSGE(pos, len)), "Position out of bounds");
    return runtime_call("stp_char_at", m_.i64, {s, pos, i64c(ms_.maxlen)});
  }
  if (name == "isdigit") {
    Value* c = b_.CreateLoad(m_.i8, arg(0));
    Value* digit = b_.CreateAnd(b_.CreateICmpUGE(c, b_.getInt8('0')), b_.CreateICmpULE(c, b_.getInt8('9')));
    return b_.CreateZExt(digit, m_.i64);
  }
  if (name == "randint") {
    Value* range = arg(0);
    check(b_.CreateICmpUGT(range, i64c(1024 * 1024)), "range too wide");
    Value* r = b_.CreateZExt(helper(kGetPrandomU32, m_.i32, {}), m_.i64);
    Value* safe = b_.CreateSelect(b_.CreateICmpEQ(range, i64c(0)), i64c(1), range);
    return b_.CreateSelect(b_.CreateICmpEQ(range, i64c(0)), i64c(0), b_.CreateURem(r, safe));
  }
  return nullptr;
}

// user_string*, kernel_string*, kernel_<type>, user_<type>; null for any
// other name.
Value* ProgramEmitter::memory_builtin(const ir::Node* n) {
  const std::string& name = n->s;
  auto arg = [&](size_t i) { return expr(n->kids.at(i)); };
  size_t nargs = n->kids.size();
  if (name == "user_string" || name == "kernel_string") {
    Value* addr = arg(0);
    Value* err = nargs > 1 ? arg(1) : nullptr;
    return read_string(n, name[0] == 'u', addr, nullptr, err);
  }
  if (name == "user_string2" || name == "kernel_string2")
    return read_string(n, name[0] == 'u', arg(0), nullptr, arg(1));
  if (name == "user_string_n2") {
    Value* addr = arg(0);
    Value* limit = arg(1);
    return read_string(n, true, addr, limit, arg(2));
  }
  if (name == "user_string_n" || name == "kernel_string_n") {
    Value* addr = arg(0);
    Value* limit = arg(1);
    Value* err = nargs > 2 ? arg(2) : nullptr;
    return read_string(n, name[0] == 'u', addr, limit, err);
  }
  // The user_<type> readers are number_reader's (emit_library.cpp).
  const ir::NumberReader* reader = ir::find_number_reader(name);
  if (reader && !reader->user) return read_kernel_number(n, arg(0), *reader);
  return nullptr;
}

// user_string*/kernel_string*: a fault is stap's error, or err_msg when the
// script gave one.  limit (user_string_n) caps the characters copied.
Value* ProgramEmitter::read_string(const ir::Node* n, bool user, Value* addr, Value* limit,
                                   Value* err_msg) {
  Value* dst = string_temp();
  Value* src = b_.CreateIntToPtr(addr, m_.ptr);
  Value* r = limit ? runtime_call("stp_read_str", m_.i64, {dst, src, limit, i64c(ms_.maxlen), i64c(user)})
                   : helper(user ? kProbeReadUserStr : kProbeReadKernelStr, m_.i64, {dst, i64c(ms_.maxlen), src});
  if (user) defer_if_faulted(b_.CreateICmpSLT(r, i64c(0)), addr);
  BasicBlock* fault = block("str_fault");
  BasicBlock* done = block("str_read");
  b_.CreateCondBr(b_.CreateICmpSLT(r, i64c(0)), fault, done);
  b_.SetInsertPoint(fault);
  if (err_msg) {
    copy_string(dst, err_msg, ms_.maxlen);
    b_.CreateBr(done);
  } else {
    raise_fault(n->loc, std::string(user ? "user" : "kernel") + " string", addr);
  }
  b_.SetInsertPoint(done);
  return dst;
}

// The tapsets' fault error: "<what> copy fault at 0x<addr> [man error::fault]".
void ProgramEmitter::raise_fault(uint32_t loc, const std::string& what, Value* addr) {
  raise_number(loc, what + " copy fault at 0x%llx [man error::fault]", addr);
}

// When `failed`, an error whose message is fmt of one number; the code
// after it runs otherwise.
void ProgramEmitter::raise_number_if(Value* failed, uint32_t loc, const std::string& fmt,
                                     Value* number) {
  BasicBlock* error = block("error_number");
  BasicBlock* ok = block("no_error");
  b_.CreateCondBr(failed, error, ok);
  b_.SetInsertPoint(error);
  raise_number(loc, fmt, number);
  b_.SetInsertPoint(ok);
}

// An error whose message is fmt (bpf_snprintf's) of one number.
void ProgramEmitter::raise_number(uint32_t loc, const std::string& fmt, Value* number) {
  Value* msg = string_temp();
  AllocaInst* data = m_.shared_alloca(m_.i64, "error_number");
  b_.CreateStore(number, data);
  helper(kSnprintf, m_.i64, {msg, i64c(ms_.maxlen), rodata_ptr(ms_.literal(fmt, false)), data, i64c(8)});
  raise(loc, msg);
}

// kernel_<type>: a fault is stap's copy-fault error.
Value* ProgramEmitter::read_kernel_number(const ir::Node* n, Value* addr, const ir::NumberReader& r) {
  AllocaInst* tmp = m_.shared_alloca(m_.i64, "read");
  b_.CreateStore(i64c(0), tmp);
  Value* rc = helper(kProbeReadKernel, m_.i64, {tmp, i64c(r.size), b_.CreateIntToPtr(addr, m_.ptr)});
  BasicBlock* fault = block("read_fault");
  BasicBlock* done = block("read_ok");
  b_.CreateCondBr(b_.CreateICmpSLT(rc, i64c(0)), fault, done);
  b_.SetInsertPoint(fault);
  raise_fault(n->loc, "kernel " + std::string(r.words), addr);
  b_.SetInsertPoint(done);
  Value* v = b_.CreateLoad(b_.getIntNTy(8 * r.size), tmp);
  // int, short and char are signed C types; long and pointer are 8 bytes.
  return r.size < 8 ? b_.CreateSExt(v, m_.i64) : v;
}

// How a printf argument travels (stap_layout.h): a stack code, an
// address for usymname/usymdata, or (none) its value.
ProgramEmitter::PrintfCoded ProgramEmitter::printf_coding(const ir::Node* k) const {
  constexpr int64_t kSymbolSlot = STAP_CODED_STRING_MARK_SIZE + 24;
  if (k->type != ir::Type::string || ms_.maxlen < kSymbolSlot) return PrintfCoded::none;
  if (ir::is_stack_key(*k)) {
    // The kernel makes these texts itself (emit_stack_text.cpp), taking
    // MAXBACKTRACE frames past our own; a code's stack holds our own
    // frames within MAXBACKTRACE.  The rest are names only user space has.
    const std::string& f = k->s;
    bool kernel_text = f == "backtrace" || f == "callers" || f == "ubacktrace" ||
                       f == "ucallers" || f == "sprint_backtrace" || f == "symname" ||
                       (f == "probefunc" && !context_.perf_sample);
    return kernel_text ? PrintfCoded::none : PrintfCoded::stack;
  }
  if (k->op == ir::Op::builtin && k->kids.size() == 1) {
    if (k->s == "usymname") return PrintfCoded::usymname;
    if (k->s == "usymdata") return PrintfCoded::usymdata;
    if (k->s == "sprint_ustack")
      return ir::is_stack_key(*k->kids[0]) ? PrintfCoded::ustack_code : PrintfCoded::ustack_text;
  }
  return PrintfCoded::none;
}

// What a printf argument's slot carries: its value, or (coded) its stack
// code, address or text.
Value* ProgramEmitter::coded_value(const ir::Node* k, PrintfCoded how) {
  switch (how) {
    case PrintfCoded::none: return expr(k);
    case PrintfCoded::stack: return stack_code(k);
    case PrintfCoded::ustack_code: return stack_code(k->kids.at(0));
    default: return user_symbol_address(k);  // the text, for ustack_text
  }
}

// usymname(a)/usymdata(a)'s address, or sprint_ustack(s)'s text; the
// runtime is told to read the process's mappings.
Value* ProgramEmitter::user_symbol_address(const ir::Node* k) {
  Value* address = expr(k->kids.at(0));
  ensure_stack_maps();
  announce_process(b_.CreateLShr(helper(kGetCurrentPidTgid, m_.i64, {}), 32), i64c(STAP_STACK_NO_ID));
  return address;
}

void ProgramEmitter::store_coded_slot(Value* slot, PrintfCoded how, Value* value, bool aligned) {
  auto store = [&](Value* v, int64_t at) {
    b_.CreateAlignedStore(v, byte_ptr(slot, at), MaybeAlign(aligned ? 8 : 1));
  };
  auto mark = [](const char* text) {
    uint64_t m = 0;
    std::memcpy(&m, text, sizeof m);
    return int64_t(m);
  };
  if (how == PrintfCoded::stack || how == PrintfCoded::ustack_code) {
    store(i64c(mark(how == PrintfCoded::stack ? STAP_CODED_STRING_MARK : STAP_CODED_USTACK_MARK)), 0);
    store(value, 8);
    return;
  }
  if (how == PrintfCoded::ustack_text) {
    store(i64c(mark(STAP_CODED_USTACK_TEXT_MARK)), 0);
    store(b_.CreateLShr(helper(kGetCurrentPidTgid, m_.i64, {}), 32), 8);
    copy_string(byte_ptr(slot, 16), value, ms_.maxlen - 16);
    return;
  }
  store(i64c(mark(STAP_CODED_SYMBOL_MARK)), 0);
  store(i64c(how == PrintfCoded::usymname ? STAP_CODED_USYMNAME : STAP_CODED_USYMDATA), 8);
  store(b_.CreateLShr(helper(kGetCurrentPidTgid, m_.i64, {}), 32), 16);
  store(value, 24);
}

// %m/%M put the bytes at the address into the record (event_drain.h's
// layout); their precision must be a literal, to keep the record's size
// constant.
void ProgramEmitter::printf_record(const ir::Node* n) {
  std::vector<PrintfPiece> pieces;
  std::string err;
  if (!parse_printf_format(ms_.ir.formats.at(size_t(n->a)), pieces, err))
    unsupported(n, "bad printf format: " + err);
  std::vector<int64_t> dumps;
  for (const PrintfPiece& p : pieces) {
    if (p.kind != PrintfPiece::Kind::conversion) continue;
    if (p.width == PrintfPiece::kFromArg) dumps.push_back(0);
    if (p.precision == PrintfPiece::kFromArg) dumps.push_back(0);
    if (p.conversion != 'm' && p.conversion != 'M') {
      dumps.push_back(0);
      continue;
    }
    if (p.precision == PrintfPiece::kFromArg)
      unsupported(n, "printf %m/%M with a '*' precision needs user context");
    int64_t len = p.precision > 0 ? p.precision : 1;
    if (len > 4096) {  // printf_output.h kMaxMemoryDump
      raise_literal(n->loc, std::to_string(len) + " is too many bytes for a memory dump");
      return;
    }
    dumps.push_back(p.flag == '#' ? -len : len);
  }
  std::vector<const ir::Node*> args(n->kids.begin(), n->kids.end());
  if (dumps.size() != args.size()) unsupported(n, "printf arguments do not match its format");
  // A stack or symbol the runtime names (probefunc(), usymname(a),
  // sprint_ubacktrace() ...) goes as its code or address: the runtime
  // prints the text, user-space names included, as it does for a key.
  std::vector<Value*> values;
  std::vector<PrintfCoded> coded;
  for (const ir::Node* k : args) {
    coded.push_back(printf_coding(k));
    values.push_back(coded_value(k, coded.back()));
  }
  submit_record(STAP_REC_PRINTF, b_.getInt32(uint32_t(n->a)), args, values, dumps, &coded);
}

// One ring-buffer record: header, then 8 bytes per long and MAXSTRINGLEN
// per string.  Arguments are evaluated before the reservation (an error in
// them must not leave a reservation open).  A failed reservation is counted.
void ProgramEmitter::submit_record(uint32_t kind, Value* id, const std::vector<const ir::Node*>& args,
                                   const std::vector<Value*>& values,
                                   const std::vector<int64_t>& dumps,
                                   const std::vector<PrintfCoded>* coded) {
  auto dump = [&](size_t i) { return i < dumps.size() ? dumps[i] : 0; };
  int64_t size = sizeof(stap_record);
  for (size_t i = 0; i < args.size(); ++i)
    size += (args[i]->type == ir::Type::string ? ms_.maxlen : 8) + std::abs(dump(i));
  BasicBlock* done = nullptr;
  Value* rec = begin_record(size, kind, id, done);
  int64_t off = sizeof(stap_record);
  for (size_t i = 0; i < args.size(); ++i) {
    PrintfCoded how = coded ? (*coded)[i] : PrintfCoded::none;
    if (how != PrintfCoded::none) {
      store_coded_slot(byte_ptr(rec, off), how, values[i], off % 8 == 0);
      off += ms_.maxlen;
    } else if (args[i]->type == ir::Type::string) {
      copy_string(byte_ptr(rec, off), values[i], ms_.maxlen);
      off += ms_.maxlen;
    } else {
      b_.CreateAlignedStore(values[i], byte_ptr(rec, off), MaybeAlign(off % 8 ? 1 : 8));
      off += 8;
    }
    if (int64_t len = std::abs(dump(i))) {
      // A fault leaves zeros (the helpers clear the destination).
      helper(dump(i) < 0 ? kProbeReadUser : kProbeReadKernel, m_.i64,
             {byte_ptr(rec, off), i64c(len), b_.CreateIntToPtr(values[i], m_.ptr)});
      off += len;
    }
  }
  finish_record(rec, done, /*urgent=*/kind != STAP_REC_PRINTF);
}

Value* ProgramEmitter::begin_record(int64_t size, uint32_t kind, Value* id, BasicBlock*& done) {
  Value* rec = helper(kRingbufReserve, m_.ptr, {ms_.events_map, i64c(size), i64c(0)});
  BasicBlock* fill = block("record");
  BasicBlock* lost = block("record_lost");
  done = block("record_done");
  b_.CreateCondBr(b_.CreateIsNull(rec), lost, fill);
  b_.SetInsertPoint(lost);
  atomic_inc(header_field(offsetof(stap_globals_header, lost_records)));
  b_.CreateBr(done);
  b_.SetInsertPoint(fill);
  b_.CreateStore(b_.getInt32(kind), rec);
  b_.CreateStore(id, byte_ptr(rec, 4));
  return rec;
}

// Wake-ups are batched: waking the runtime for every record costs an
// inter-processor interrupt per printf (a third of the tracee's time at a
// million printfs a second, measured).  A printf record wakes the reader
// when a batch has accumulated or when no record has woken it for
// kRingbufWakeupIntervalNs (so the first line after a quiet spell shows at
// once); otherwise the runtime's periodic drain (100 ms) picks it up.
// Exit and error records always wake it.
void ProgramEmitter::finish_record(Value* rec, BasicBlock* done, bool urgent) {
  Value* flags = i64c(kRingbufForceWakeup);
  if (!urgent) {
    Value* avail = helper(kRingbufQuery, m_.i64, {ms_.events_map, i64c(kRingbufAvailData)});
    Value* now = helper(kKtimeGetNs, m_.i64, {});
    Value* last_field = header_field(offsetof(stap_globals_header, last_wakeup_ns));
    Value* last = b_.CreateLoad(m_.i64, last_field);
    Value* wake = b_.CreateOr(b_.CreateICmpUGE(avail, i64c(kRingbufWakeupBatch)),
                              b_.CreateICmpUGE(b_.CreateSub(now, last),
                                               i64c(kRingbufWakeupIntervalNs)));
    // Racy between CPUs on purpose: a lost update only costs one wake-up.
    b_.CreateStore(b_.CreateSelect(wake, now, last), last_field);
    flags = b_.CreateSelect(wake, i64c(kRingbufForceWakeup), i64c(kRingbufNoWakeup));
  }
  helper(kRingbufSubmit, Type::getVoidTy(m_.module().getContext()), {rec, flags});
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

// As in stap, exit() lets the current probe finish but no other kernel
// probe body starts after it: the state moves to STOPPING here, at once,
// not when the runtime drains the record.
void ProgramEmitter::exit_record() {
  submit_record(STAP_REC_EXIT, b_.getInt32(0), {}, {});
  b_.CreateStore(i64c(1), header_field(offsetof(stap_globals_header, exit_requested)));
  b_.CreateStore(i64c(STAP_STATE_STOPPING), header_field(offsetof(stap_globals_header, state)));
}

namespace {
// The bpf_snprintf format for stap's pieces, or an empty string and `why`
// when the kernel's formatter cannot print them exactly as stap does.
// bpf_snprintf takes no precision: a %.Ns is printed as %s of the string
// cut to N characters first (cuts[i] = N for value i, else -1).
std::string kernel_format(const std::vector<PrintfPiece>& pieces, std::string& why,
                          std::vector<int>& cuts) {
  std::string out;
  for (const PrintfPiece& p : pieces) {
    if (p.kind == PrintfPiece::Kind::literal) {
      for (char c : p.text) {
        auto u = static_cast<unsigned char>(c);
        if (u >= 0x80 || (!std::isprint(u) && !std::isspace(u))) {
          why = "non-printable text";
          return {};
        }
        out += c == '%' ? "%%" : std::string(1, c);
      }
      continue;
    }
    char conv = p.conversion;
    if (p.width == PrintfPiece::kFromArg || p.precision == PrintfPiece::kFromArg) {
      why = "'*' widths";
      return {};
    }
    cuts.push_back(conv == 's' ? p.precision : PrintfPiece::kNone);
    if (p.precision != PrintfPiece::kNone && conv != 's') {
      why = "a precision on %" + std::string(1, conv);
      return {};
    }
    std::string width = p.width == PrintfPiece::kNone ? "" : std::to_string(p.width);
    if (conv == 'p' || (p.flag == '#' && (conv == 'x' || conv == 'X'))) {
      if (!width.empty()) {
        why = "a width on %#x or %p";
        return {};
      }
      out += conv == 'X' ? "0X%llX" : "0x%llx";
      continue;
    }
    if (p.flag == '#' || (p.flag == '0' && (conv == 's' || conv == 'c'))) {
      why = std::string("the flag '") + p.flag + "' on %" + conv;
      return {};
    }
    std::string flag = p.flag ? std::string(1, p.flag) : "";
    switch (conv) {
      case 'd': case 'i': case 'u': case 'x': case 'X':
        out += "%" + flag + width + "ll" + conv;
        break;
      case 's': case 'c':
        out += "%" + flag + width + conv;
        break;
      default:
        why = std::string("%") + conv;
        return {};
    }
  }
  return out;
}
}  // namespace

// sprintf through bpf_snprintf, for the formats it prints exactly as stap.
Value* ProgramEmitter::sprintf_value(const ir::Node* n) {
  std::vector<PrintfPiece> pieces;
  std::string err;
  const std::string& format = ms_.ir.formats.at(size_t(n->a));
  if (!parse_printf_format(format, pieces, err)) unsupported(n, "bad sprintf format: " + err);
  std::string why;
  std::vector<int> cuts;
  std::string kfmt = kernel_format(pieces, why, cuts);
  if (kfmt.empty() && !why.empty())
    unsupported(n, "this sprintf format needs user context (" + why + ")");
  if (n->kids.size() > 12) unsupported(n, "sprintf with more than 12 values needs user context");
  std::vector<Value*> values;
  for (size_t i = 0; i < n->kids.size(); ++i) {
    Value* v = expr(n->kids[i]);
    if (i < cuts.size() && cuts[i] >= 0) {
      Value* cut = string_temp();
      copy_string(cut, v, std::min<int64_t>(cuts[i] + 1, ms_.maxlen));
      v = cut;
    }
    values.push_back(v);
  }
  Value* out = string_temp();
  Value* data = ConstantPointerNull::get(PointerType::get(m_.module().getContext(), 0));
  if (!values.empty()) {
    data = m_.shared_alloca(ArrayType::get(m_.i64, values.size()),
                             "sprintf_args" + std::to_string(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
      Value* v = values[i]->getType()->isPointerTy() ? b_.CreatePtrToInt(values[i], m_.i64) : values[i];
      b_.CreateStore(v, byte_ptr(data, int64_t(8 * i)));
    }
  }
  helper(kSnprintf, m_.i64, {out, i64c(ms_.maxlen), rodata_ptr(ms_.literal(kfmt, false)), data,
                             i64c(int64_t(8 * values.size()))});
  return out;
}

}  // namespace stap::codegen
