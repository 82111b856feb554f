// text_str, string_quoted and the quoting readers (user_string_quoted,
// user_buffer_quoted ...) in kernel context, through bpf_runtime/text.c,
// and the readers that warn instead of failing (user_string_warn ...).
// What each returns on a fault is stap 4.8's tapset's choice:
//   user_string_quoted(a)      string_quoted(user_string(a)), else "0x<a>"
//   user_string_n_quoted(a,i,o) the same of user_string_n(a,i), cut to o
//                              with `"...`, else "0x<a>"
//   kernel_string_quoted(a)    the quoted text, "0x<a>" for 0 or a fault
//   {user,kernel}_buffer_quoted(a,i,o)  i bytes, NULs escaped, else
//                              "0x<a>" cut to o - 1 characters; "" for o 0
//   *_buffer_quoted_error      an error instead
#include <llvm/IR/Constants.h>

#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"

using namespace llvm;

namespace stap::codegen {

namespace {

int64_t pow2_at_least(int64_t n) {
  int64_t p = 8;
  while (p < n) p *= 2;
  return p;
}

}  // namespace

// text.c's escape of what is in slot's input area.
Value* ProgramEmitter::escape_text(Value* slot, Value* inlen, Value* outlen, Value* quoted,
                                   bool buffer) {
  int64_t p = pow2_at_least(ms_.maxlen);
  return runtime_call("stp_text_escape", m_.ptr,
                      {slot, inlen, outlen, quoted, i64c(buffer), i64c(ms_.maxlen), i64c(p - 1)});
}

Value* ProgramEmitter::quote_builtin(const ir::Node* n) {
  const std::string& name = n->s;
  auto arg = [&](size_t i) { return expr(n->kids.at(i)); };
  size_t nargs = n->kids.size();
  Type* void_ty = Type::getVoidTy(m_.module().getContext());
  int64_t p = pow2_at_least(ms_.maxlen);
  auto new_slot = [&] { return scratch_slot(uint32_t(64 + 2 * p + 24)); };
  Value* maxlen = i64c(ms_.maxlen);

  // String values.
  if (name == "text_str" || name == "text_strn" || name == "string_quoted") {
    Value* s = arg(0);
    Value* len = name == "text_strn" ? arg(1) : nullptr;
    Value* quoted = name == "text_strn" ? arg(2) : nullptr;
    Value* slot = new_slot();
    runtime_call("stp_text_load", void_ty, {slot, s, maxlen});
    if (name == "text_str") return escape_text(slot, i64c(0), i64c(0), i64c(0), false);
    if (name == "string_quoted") return escape_text(slot, maxlen, maxlen, i64c(1), false);
    // text_strn: len clamped to 0..MAXSTRINGLEN; quoted is a run-time value.
    Value* clamped = b_.CreateSelect(b_.CreateICmpSLT(len, i64c(0)), i64c(0),
                                     b_.CreateSelect(b_.CreateICmpSGT(len, maxlen), maxlen, len));
    return escape_text(slot, i64c(0), clamped, b_.CreateZExt(b_.CreateICmpNE(quoted, i64c(0)), m_.i64), false);
  }

  // Memory: string or buffer reads, each with its fallback.
  bool user = name.starts_with("user_");
  bool buffer = name.find("_buffer_quoted") != std::string::npos;
  bool string_read = name == "user_string_quoted" || name == "kernel_string_quoted" ||
                     name == "user_string_n_quoted" || name == "user_string_n2_quoted";
  if (!buffer && !string_read) unsupported(n, name + "() is not available in kernel context");
  bool raises = name.ends_with("_error");
  Value* addr = arg(0);
  Value* inlen = nargs > 1 ? arg(1) : maxlen;
  Value* outlen = nargs > 2 ? arg(2) : maxlen;
  Value* result = string_temp();
  Value* slot = new_slot();
  BasicBlock* fault = block("quote_fault");
  BasicBlock* ok = block("quote_read");
  BasicBlock* done = block("quote_done");
  if (buffer) {
    // outlen clamped to 0..MAXSTRINGLEN; 0 is "" (or the error).
    outlen = b_.CreateSelect(b_.CreateICmpSLT(outlen, i64c(0)), i64c(0),
                             b_.CreateSelect(b_.CreateICmpSGT(outlen, maxlen), maxlen, outlen));
    BasicBlock* read = block("quote_buffer");
    BasicBlock* empty = raises ? fault : block("quote_empty");
    b_.CreateCondBr(b_.CreateICmpEQ(outlen, i64c(0)), empty, read);
    if (!raises) {
      b_.SetInsertPoint(empty);
      clear_string(result);
      b_.CreateBr(done);
    }
    b_.SetInsertPoint(read);
  }
  Value* limit = name.starts_with("user_string_n") ? inlen : maxlen;
  Value* rc;
  if (buffer) {
    rc = runtime_call("stp_text_read", m_.i64, {slot, addr, inlen, i64c(user), i64c(1), maxlen});
  } else if (name.starts_with("user_string_n")) {
    // user_string_n(addr, inlen) into the input area: at most inlen characters.
    Value* in = byte_ptr(slot, int64_t(64));
    rc = runtime_call("stp_read_str", m_.i64, {in, b_.CreateIntToPtr(addr, m_.ptr), limit, maxlen, i64c(1)});
  } else {
    rc = runtime_call("stp_text_read", m_.i64, {slot, addr, maxlen, i64c(user), i64c(0), maxlen});
  }
  Value* bad = b_.CreateICmpSLT(rc, i64c(0));
  if (name == "kernel_string_quoted") bad = b_.CreateOr(bad, b_.CreateICmpEQ(addr, i64c(0)));
  if (user) defer_if_faulted(bad, addr);
  b_.CreateCondBr(bad, fault, ok);

  b_.SetInsertPoint(ok);
  Value* text = buffer ? escape_text(slot, inlen, outlen, i64c(1), true)
                       : escape_text(slot, maxlen, maxlen, i64c(1), false);
  if (name == "user_string_n_quoted" || name == "user_string_n2_quoted")
    runtime_call("stp_quoted_cut", void_ty, {slot, outlen, maxlen, i64c(p - 1)});
  copy_string(result, text, ms_.maxlen);
  b_.CreateBr(done);

  b_.SetInsertPoint(fault);
  Value* data = scratch_slot(8);
  b_.CreateStore(addr, data);
  if (raises) {
    std::string fmt = std::string("Unable to access ") + (user ? "user" : "kernel") +
                      " space data at 0x%llx";
    Value* msg = string_temp();
    helper(kSnprintf, m_.i64, {msg, maxlen, rodata_ptr(ms_.literal(fmt, false)), data, i64c(8)});
    raise(n->loc, msg);
  } else {
    // A buffer's fallback is cut to outlen - 1 characters (snprintf's size).
    Value* size = buffer ? outlen : maxlen;
    Value* tmp = string_temp();
    helper(kSnprintf, m_.i64, {tmp, maxlen, rodata_ptr(ms_.literal("0x%llx", false)), data, i64c(8)});
    runtime_call("stp_read_str", m_.i64, {result, tmp, b_.CreateSub(size, i64c(1)), maxlen, i64c(0)});
    b_.CreateBr(done);
  }
  b_.SetInsertPoint(done);
  return result;
}

}  // namespace stap::codegen
