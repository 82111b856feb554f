// Values and operators, plus the small helpers every part uses.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/InlineAsm.h>

#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"

using namespace llvm;

namespace stap::codegen {

uint32_t ModuleState::literal(const std::string& s, bool as_value) {
  std::string key = std::string(as_value ? "v" : "r") + s;
  if (auto it = rodata_index.find(key); it != rodata_index.end()) return it->second;
  while (rodata_bytes.size() % 8) rodata_bytes.push_back('\0');
  uint32_t off = uint32_t(rodata_bytes.size());
  std::string text = s.substr(0, as_value ? size_t(maxlen - 1) : s.size());
  rodata_bytes += text;
  size_t size = as_value ? size_t(maxlen) : text.size() + 1;
  rodata_bytes.append(size - text.size(), '\0');
  rodata_index.emplace(key, off);
  return off;
}

uint32_t ModuleState::zeros(uint32_t size) {
  std::string key = "z" + std::to_string(size);
  if (auto it = rodata_index.find(key); it != rodata_index.end()) return it->second;
  while (rodata_bytes.size() % 8) rodata_bytes.push_back('\0');
  uint32_t off = uint32_t(rodata_bytes.size());
  rodata_bytes.append(size, '\0');
  rodata_index.emplace(key, off);
  return off;
}

Value* ProgramEmitter::i64c(int64_t v) { return b_.getInt64(uint64_t(v)); }

Value* ProgramEmitter::byte_ptr(Value* base, Value* offset) {
  return b_.CreateGEP(m_.i8, base, offset);
}

Value* ProgramEmitter::byte_ptr(Value* base, int64_t offset) {
  return offset ? b_.CreateConstGEP1_64(m_.i8, base, uint64_t(offset)) : base;
}

Value* ProgramEmitter::rodata_ptr(uint32_t offset) { return byte_ptr(ms_.rodata, int64_t(offset)); }

Value* ProgramEmitter::scratch_slot(uint32_t size) {
  uint32_t off = scratch_top_;
  scratch_top_ += (size + 7) & ~7u;
  // PCPU_MIN_UNIT_SIZE: the kernel's limit on a per-CPU value.
  if (scratch_top_ > 32768)
    throw CodegenError("probe " + probe_.pp +
                       " needs more than 32 KiB of string temporaries (MAXSTRINGLEN " +
                       std::to_string(ms_.maxlen) + ")");
  return byte_ptr(scratch_, int64_t(off));
}

Value* ProgramEmitter::string_temp() { return scratch_slot(uint32_t(ms_.maxlen)); }

// dst (size bytes) = the string at src, cut to size - 1 characters.
void ProgramEmitter::copy_string(Value* dst, Value* src, int64_t size) {
  helper(kProbeReadKernelStr, m_.i64, {dst, i64c(size), src});
}

void ProgramEmitter::clear_string(Value* dst) { b_.CreateStore(b_.getInt8(0), dst); }

Value* ProgramEmitter::helper(int id, Type* ret, ArrayRef<Value*> args) {
  return m_.call_helper(id, ret, args);
}

// A function of bpf_runtime/*.c (linked after the module is built).
Value* ProgramEmitter::runtime_call(const char* name, Type* ret, ArrayRef<Value*> args) {
  std::vector<Type*> params;
  for (Value* a : args) params.push_back(a->getType());
  FunctionCallee f = m_.module().getOrInsertFunction(name, FunctionType::get(ret, params, false));
  return b_.CreateCall(f, args);
}

Value* ProgramEmitter::header_field(size_t offset) { return byte_ptr(globals_, int64_t(offset)); }

void ProgramEmitter::atomic_inc(Value* p) {
  b_.CreateAtomicRMW(AtomicRMWInst::Add, p, i64c(1), Align(8), AtomicOrdering::Monotonic);
}

BasicBlock* ProgramEmitter::block(const char* name) {
  return BasicBlock::Create(m_.module().getContext(), name, fn_);
}

void ProgramEmitter::unsupported(const ir::Node* n, const std::string& what) {
  std::string where;
  if (n && n->loc && n->loc < ms_.ir.locations.size())
    where = " (" + ms_.ir.locations[n->loc].text + ")";
  throw CodegenError(what + where);
}

Value* ProgramEmitter::truth(Value* v) { return b_.CreateICmpNE(v, i64c(0)); }

Value* ProgramEmitter::expr(const ir::Node* n) {
  Value* v = expr_of(n);
  note_effect(n);  // after its operands: they ran before it did anything
  return v;
}

Value* ProgramEmitter::expr_of(const ir::Node* n) {
  using ir::Op;
  switch (n->op) {
    case Op::num: return i64c(n->a);
    case Op::str: return rodata_ptr(ms_.literal(n->s));
    case Op::local: return slot_value(frames_.back(), size_t(n->a));
    case Op::set_local: {
      Value* v = expr(n->kids.at(0));
      Frame& f = frames_.back();  // after the value: it may have called
      size_t i = size_t(n->a);
      if (f.types.at(i) == ir::Type::string) {
        copy_string(f.slots[i], v, ms_.maxlen);
        return f.slots[i];
      }
      b_.CreateStore(v, f.slots[i]);
      return v;
    }
    case Op::global: case Op::set_global: case Op::add_global:
    case Op::elem: case Op::set_elem: case Op::add_elem: case Op::in_elem:
    case Op::delete_elem:
      return array_op(n);
    case Op::clear_global: clear_global(n); return nullptr;
    case Op::stat_add: stat_add(n); return nullptr;
    case Op::stat_get: case Op::hist_bucket: return stat_get(n);
    case Op::neg: return b_.CreateSub(i64c(0), expr(n->kids.at(0)));
    case Op::bit_not: return b_.CreateXor(expr(n->kids.at(0)), i64c(-1));
    case Op::log_not: return b_.CreateZExt(b_.CreateICmpEQ(expr(n->kids.at(0)), i64c(0)), m_.i64);
    case Op::log_and: case Op::log_or: return logical(n);
    case Op::cond: return conditional(n);
    case Op::concat: {
      Value* a = expr(n->kids.at(0));
      Value* c = expr(n->kids.at(1));
      Value* dst = scratch_slot(uint32_t(2 * ms_.maxlen));  // see stp_concat
      runtime_call("stp_concat", Type::getVoidTy(m_.module().getContext()),
                   {dst, a, c, i64c(ms_.maxlen)});
      return dst;
    }
    case Op::call: return call(n);
    case Op::builtin: return builtin(n);
    case Op::printf: printf_record(n); return nullptr;
    case Op::sprintf: return sprintf_value(n);
    case Op::error: raise(n->loc, expr(n->kids.at(0))); return nullptr;
    case Op::exit: exit_record(); return nullptr;
    case Op::print_hist: return array_op(n);
    case Op::tp_field: case Op::tp_chars: case Op::tp_dataloc: return tp_read(n);
    case Op::sys_arg: case Op::sys_nr: case Op::sys_ret: return sys_read(n);
    case Op::fn_arg: case Op::fn_ret: case Op::fn_name: case Op::kread:
    case Op::reg: case Op::uread: return kfunc_read(n);
    case Op::regex_match: return regex_match(n);
    case Op::set_verdict: {
      if (!verdict_) unsupported(n, "a verdict outside an LSM or netfilter hook's program");
      Value* v = expr(n->kids.at(0));
      b_.CreateStore(v, verdict_);
      return v;
    }
    case Op::ctx_address: return b_.CreatePtrToInt(ctx_, m_.i64);
    case Op::verdict:
      if (!verdict_) unsupported(n, "a verdict outside an LSM or netfilter hook's program");
      return b_.CreateLoad(m_.i64, verdict_);
    case Op::any: unsupported(n, "array slices ('*') need user context");
    case Op::block: case Op::expr: case Op::nop: case Op::if_: case Op::loop:
    case Op::foreach: case Op::ret: case Op::brk: case Op::cont: case Op::next: case Op::try_:
      stmt(n);
      return nullptr;
    default:
      return binary(n);
  }
}

Value* ProgramEmitter::binary(const ir::Node* n) {
  using ir::Op;
  Value* a = expr(n->kids.at(0));
  Value* c = expr(n->kids.at(1));
  auto flag = [&](Value* v) { return b_.CreateZExt(v, m_.i64); };
  auto strcmp = [&]() {
    return runtime_call("stp_strcmp", m_.i64, {a, c, i64c(ms_.maxlen)});
  };
  switch (n->op) {
    case Op::add: return b_.CreateAdd(a, c);
    case Op::sub: return b_.CreateSub(a, c);
    case Op::mul: return b_.CreateMul(a, c);
    case Op::div: case Op::mod: return divide(n, a, c);
    // Shift counts wrap at 64 as the hardware's do, never LLVM poison.
    case Op::shl: return b_.CreateShl(a, b_.CreateAnd(c, i64c(63)));
    case Op::shr: return b_.CreateAShr(a, b_.CreateAnd(c, i64c(63)));
    case Op::bit_and: return b_.CreateAnd(a, c);
    case Op::bit_or: return b_.CreateOr(a, c);
    case Op::bit_xor: return b_.CreateXor(a, c);
    case Op::lt: return flag(b_.CreateICmpSLT(a, c));
    case Op::le: return flag(b_.CreateICmpSLE(a, c));
    case Op::gt: return flag(b_.CreateICmpSGT(a, c));
    case Op::ge: return flag(b_.CreateICmpSGE(a, c));
    case Op::eq: return flag(b_.CreateICmpEQ(a, c));
    case Op::ne: return flag(b_.CreateICmpNE(a, c));
    case Op::str_lt: return flag(b_.CreateICmpSLT(strcmp(), i64c(0)));
    case Op::str_le: return flag(b_.CreateICmpSLE(strcmp(), i64c(0)));
    case Op::str_gt: return flag(b_.CreateICmpSGT(strcmp(), i64c(0)));
    case Op::str_ge: return flag(b_.CreateICmpSGE(strcmp(), i64c(0)));
    case Op::str_eq: return flag(b_.CreateICmpEQ(strcmp(), i64c(0)));
    case Op::str_ne: return flag(b_.CreateICmpNE(strcmp(), i64c(0)));
    default:
      unsupported(n, std::string("the IR operation ") + ir::op_name(n->op) +
                         " has no kernel-context code");
  }
}

// BPF before v4 has only unsigned division: divide the magnitudes and fix
// the sign.  INT64_MIN / -1 comes out as INT64_MIN (wrapping), never a trap.
Value* ProgramEmitter::divide(const ir::Node* n, Value* a, Value* c) {
  BasicBlock* zero = block("div_zero");
  BasicBlock* ok = block("div_ok");
  b_.CreateCondBr(b_.CreateICmpEQ(c, i64c(0)), zero, ok);
  b_.SetInsertPoint(zero);
  raise_literal(n->loc, "division by 0");
  b_.SetInsertPoint(ok);
  Value* a_neg = b_.CreateICmpSLT(a, i64c(0));
  Value* c_neg = b_.CreateICmpSLT(c, i64c(0));
  Value* ua = b_.CreateSelect(a_neg, b_.CreateSub(i64c(0), a), a);
  Value* uc = b_.CreateSelect(c_neg, b_.CreateSub(i64c(0), c), c);
  if (n->op == ir::Op::div) {
    Value* q = b_.CreateUDiv(ua, uc);
    return b_.CreateSelect(b_.CreateXor(a_neg, c_neg), b_.CreateSub(i64c(0), q), q);
  }
  Value* r = b_.CreateURem(ua, uc);
  return b_.CreateSelect(a_neg, b_.CreateSub(i64c(0), r), r);
}

Value* ProgramEmitter::logical(const ir::Node* n) {
  bool is_and = n->op == ir::Op::log_and;
  Value* a = truth(expr(n->kids.at(0)));
  BasicBlock* from = b_.GetInsertBlock();
  BasicBlock* rhs = block(is_and ? "and_rhs" : "or_rhs");
  BasicBlock* done = block(is_and ? "and_end" : "or_end");
  if (is_and) b_.CreateCondBr(a, rhs, done);
  else b_.CreateCondBr(a, done, rhs);
  b_.SetInsertPoint(rhs);
  Value* c = truth(expr(n->kids.at(1)));
  BasicBlock* rhs_end = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  PHINode* phi = b_.CreatePHI(b_.getInt1Ty(), 2);
  phi->addIncoming(b_.getInt1(!is_and), from);
  phi->addIncoming(c, rhs_end);
  return b_.CreateZExt(phi, m_.i64);
}

Value* ProgramEmitter::conditional(const ir::Node* n) {
  Value* c = truth(expr(n->kids.at(0)));
  if (n->kids.at(1)->op == ir::Op::str && n->kids.at(2)->op == ir::Op::str) {
    // `c ? "A" : "B"` without a branch: B's place plus c times the
    // distance to A's, one pointer whose offset has two values.  Branches
    // would give the verifier two states per choice, and a flag list of
    // seven choices in one sprintf 128 paths (syscall.* with argstr went
    // past its million).  Opaque, else LLVM makes the product a branch.
    int64_t a = ms_.literal(n->kids.at(1)->s), b = ms_.literal(n->kids.at(2)->s);
    auto* opaque = InlineAsm::get(FunctionType::get(m_.i64, {m_.i64}, false), "", "=r,0", true);
    Value* pick = b_.CreateCall(opaque, {b_.CreateZExt(c, m_.i64)});
    return byte_ptr(ms_.rodata, b_.CreateAdd(i64c(b), b_.CreateMul(pick, i64c(a - b))));
  }
  BasicBlock* then_bb = block("cond_then");
  BasicBlock* else_bb = block("cond_else");
  BasicBlock* done = block("cond_end");
  b_.CreateCondBr(c, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  Value* x = expr(n->kids.at(1));
  BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(else_bb);
  Value* y = expr(n->kids.at(2));
  BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  if (!x || !y) return nullptr;
  PHINode* phi = b_.CreatePHI(x->getType(), 2);
  phi->addIncoming(x, then_end);
  phi->addIncoming(y, else_end);
  return phi;
}

// Tracepoint record fields, read from the context (the record itself).
Value* ProgramEmitter::tp_read(const ir::Node* n) {
  if (n->op == ir::Op::tp_field) {
    unsigned size = unsigned(n->b);
    if (size != 1 && size != 2 && size != 4 && size != 8)
      unsupported(n, "tracepoint field of " + std::to_string(size) + " bytes");
    Type* ty = b_.getIntNTy(8 * size);
    Value* v;
    if (kept_) {
      // A deferred run: the record's first bytes, kept at entry
      // (deferral_of admits only fields within them).
      if (n->a < 0 || n->a + size > STAP_DEFERRED_DATA)
        unsupported(n, "a kept tracepoint field past the kept bytes");
      v = b_.CreateAlignedLoad(ty, byte_ptr(kept_, n->a), MaybeAlign(1));
    } else if (n->a % size == 0) {
      v = b_.CreateLoad(ty, byte_ptr(ctx_, n->a));  // direct context access
    } else {
      AllocaInst* tmp = m_.shared_alloca(m_.i64, "field");
      b_.CreateStore(i64c(0), tmp);
      helper(kProbeReadKernel, m_.i64, {tmp, i64c(size), byte_ptr(ctx_, n->a)});
      v = b_.CreateLoad(ty, tmp);
    }
    return n->c ? b_.CreateSExt(v, m_.i64) : b_.CreateZExt(v, m_.i64);
  }
  Value* dst = string_temp();
  Value* src;
  int64_t size = ms_.maxlen;
  if (n->op == ir::Op::tp_chars) {
    src = byte_ptr(ctx_, n->a);
    size = std::min<int64_t>(n->b + 1, ms_.maxlen);  // at most the N chars
  } else {
    // __data_loc: u32 (length << 16 | offset from the record's start).
    Value* loc = b_.CreateLoad(m_.i32, byte_ptr(ctx_, n->a));
    src = byte_ptr(ctx_, b_.CreateZExt(b_.CreateAnd(loc, b_.getInt32(0xffff)), m_.i64));
  }
  Value* r = helper(kProbeReadKernelStr, m_.i64, {dst, i64c(size), src});
  BasicBlock* bad = block("tp_str_fault");
  BasicBlock* done = block("tp_str");
  b_.CreateCondBr(b_.CreateICmpSLT(r, i64c(0)), bad, done);
  b_.SetInsertPoint(bad);
  clear_string(dst);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return dst;
}

}  // namespace stap::codegen
