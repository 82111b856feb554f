// Globals: scalars in the globals map, arrays and statistics in maps of
// their own (layout from ir::assign_layout, map types in codegen.h).
#include <llvm/IR/Constants.h>

#include <optional>

#include "base/syscall_table.h"
#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"
#include "ir/key_codes.h"

using namespace llvm;

namespace stap::codegen {

namespace {
constexpr int64_t kNoExist = 1;  // BPF_NOEXIST
constexpr int32_t kEExist = -17;
constexpr int32_t kENoMem = -12;
constexpr int32_t kE2Big = -7;

std::string overflow_message(const ir::Global& g) {
  // stap's wording names the limit that was hit.
  if (g.max_entries) return "Array overflow, check size limit (" + std::to_string(g.max_entries) + ")";
  return "Array overflow, check MAXMAPENTRIES";
}
}  // namespace

// Before 6.4 the verifier turns map update calls into direct calls of
// the map's int-returning method: only R0's low 32 bits are the result
// (-EEXIST read as 0xffffffef, not -17, was an "Array overflow").
Value* ProgramEmitter::update_result(Value* r) { return b_.CreateTrunc(r, m_.i32); }

Value* ProgramEmitter::global_ptr(const ir::Global& g) { return header_field(g.offset); }

// The keys of `n` (its first nkeys kids) packed into a zeroed scratch
// buffer: 8 bytes per long, MAXSTRINGLEN per string.  A scalar statistic's
// key is the u32 0 of its one-entry array.
Value* ProgramEmitter::pack_key(const ir::Global& g, const ir::Node* n, size_t nkeys, bool any_ok) {
  if (!g.is_array()) {
    Value* key = scratch_slot(8);
    b_.CreateStore(i64c(0), key);
    return key;
  }
  if (nkeys != g.keys.size()) unsupported(n, "wrong number of array indexes for " + g.name);
  std::vector<Value*> values;
  for (size_t i = 0; i < nkeys; ++i) {
    bool any = n->kids.at(i)->op == ir::Op::any;
    if (any && !any_ok) unsupported(n, "an array slice ('*') cannot be used here");
    if (any) values.push_back(nullptr);
    else if (g.key_coded(i)) values.push_back(key_code(n->kids[i]));
    else values.push_back(expr(n->kids[i]));
  }
  Value* key = scratch_slot(g.key_size);
  // Zero padding matters: the bytes after a string's NUL are part of the key.
  b_.CreateMemSet(key, b_.getInt8(0), g.key_size, MaybeAlign(8));
  int64_t off = 0;
  for (size_t i = 0; i < nkeys; ++i) {
    if (g.keys[i] == ir::Type::string && !g.key_coded(i)) {
      int64_t width = g.key_width(i, uint32_t(ms_.maxlen));
      if (values[i]) copy_string(byte_ptr(key, off), values[i], width);
      off += width;
    } else {
      if (values[i]) b_.CreateAlignedStore(values[i], byte_ptr(key, off), MaybeAlign(off % 8 ? 1 : 8));
      off += 8;
    }
  }
  return key;
}

// The code a coded string key stores (ir/key_codes.h): a literal's is a
// constant; syscall_name(E)'s is E when E names a call, else -1.
Value* ProgramEmitter::key_code(const ir::Node* key) {
  if (ir::is_stack_key(*key)) return stack_code(key);  // emit_stack.cpp
  if (key->op == ir::Op::str) {
    std::optional<int64_t> code = ir::key_code(ms_.ir, key->s);
    if (!code) throw CodegenError("coded key literal \"" + key->s + "\" has no code");
    return i64c(*code);
  }
  if (key->op != ir::Op::builtin || key->s != "syscall_name" || key->kids.size() != 1)
    throw CodegenError("a coded key must be a literal or syscall_name()");
  Value* nr = expr(key->kids[0]);
  std::string named;
  for (int64_t i = 0; i < syscalls::table_size(); ++i)
    named += syscalls::name(i).empty() ? '\0' : '\1';
  Value* table = rodata_ptr(ms_.literal(named, false));
  Value* inside = b_.CreateICmpULT(nr, i64c(syscalls::table_size()));
  // The index is clamped before the load (the verifier checks the bound).
  Value* index = b_.CreateSelect(inside, nr, i64c(0));
  Value* flag = b_.CreateLoad(m_.i8, byte_ptr(table, index));
  Value* ok = b_.CreateAnd(inside, b_.CreateICmpNE(flag, b_.getInt8(0)));
  return b_.CreateSelect(ok, nr, i64c(-1));
}

Value* ProgramEmitter::array_op(const ir::Node* n) {
  using ir::Op;
  const ir::Global& g = ms_.ir.globals.at(size_t(n->a));
  if (n->op == Op::print_hist && n->type == ir::Type::string)
    unsupported(n, "sprint of a histogram in kernel context: the runtime formats histograms; "
                   "print it, or sprint it in an end, begin or timer probe");
  if (g.in_globals_map()) return scalar_op(n, g);
  if (n->op == Op::print_hist) {
    print_hist(n, g);
    return nullptr;
  }
  Value* map = ms_.global_maps.at(size_t(n->a));
  size_t nkeys = g.keys.size();
  bool slice = false;
  for (size_t i = 0; i < nkeys && i < n->kids.size(); ++i) slice |= n->kids[i]->op == Op::any;
  if (slice && (n->op == Op::in_elem || n->op == Op::delete_elem)) return slice_op(n, g, map);
  if (g.type == ir::Type::stats && n->op != Op::in_elem && n->op != Op::delete_elem)
    unsupported(n, std::string(ir::op_name(n->op)) + " of statistic " + g.name);
  Value* key = pack_key(g, n, nkeys);
  switch (n->op) {
    case Op::elem: return elem(g, map, key);
    case Op::set_elem: return set_elem(n, g, map, key);
    case Op::add_elem: return add_elem(n, g, map, key);
    case Op::in_elem:
      return b_.CreateZExt(b_.CreateIsNotNull(helper(kMapLookupElem, m_.ptr, {map, key})), m_.i64);
    case Op::delete_elem:
      helper(kMapDeleteElem, m_.i64, {map, key});
      return nullptr;
    default: unsupported(n, std::string(ir::op_name(n->op)) + " of the array " + g.name);
  }
}

// Long and string scalars, in the globals map.  Long updates are atomic.
Value* ProgramEmitter::scalar_op(const ir::Node* n, const ir::Global& g) {
  bool str = g.type == ir::Type::string;
  Value* p = global_ptr(g);
  switch (n->op) {
    case ir::Op::global: return str ? p : b_.CreateLoad(m_.i64, p);
    case ir::Op::set_global: {
      Value* v = expr(n->kids.at(0));
      if (str) {
        copy_string(p, v, ms_.maxlen);
        return p;
      }
      b_.CreateStore(v, p);
      return v;
    }
    case ir::Op::add_global: {
      Value* d = expr(n->kids.at(0));
      Value* old = b_.CreateAtomicRMW(AtomicRMWInst::Add, p, d, Align(8), AtomicOrdering::Monotonic);
      return n->b ? old : b_.CreateAdd(old, d);
    }
    default: unsupported(n, std::string(ir::op_name(n->op)) + " of the scalar " + g.name);
  }
}

// a[k]: 0 or "" when absent; a string is copied out of the map value.
Value* ProgramEmitter::elem(const ir::Global& g, Value* map, Value* key) {
  bool str = g.type == ir::Type::string;
  Value* p = helper(kMapLookupElem, m_.ptr, {map, key});
  BasicBlock* hit = block("elem_hit");
  BasicBlock* miss = block("elem_miss");
  BasicBlock* done = block("elem");
  Value* tmp = str ? string_temp() : nullptr;
  b_.CreateCondBr(b_.CreateIsNull(p), miss, hit);
  b_.SetInsertPoint(hit);
  Value* v = str ? nullptr : b_.CreateLoad(m_.i64, p);
  if (str) copy_string(tmp, p, ms_.maxlen);
  b_.CreateBr(done);
  b_.SetInsertPoint(miss);
  if (str) clear_string(tmp);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  if (str) return tmp;
  PHINode* phi = b_.CreatePHI(m_.i64, 2);
  phi->addIncoming(v, hit);
  phi->addIncoming(i64c(0), miss);
  return phi;
}

// a[k] = v; a full map is stap's "Array overflow".
Value* ProgramEmitter::set_elem(const ir::Node* n, const ir::Global& g, Value* map, Value* key) {
  Value* v = expr(n->kids.at(g.keys.size()));
  Value* src = v;  // a string value already has MAXSTRINGLEN bytes behind it
  if (g.type != ir::Type::string) {
    src = m_.shared_alloca(m_.i64, "value");
    b_.CreateStore(v, src);
  }
  Value* r = update_result(helper(kMapUpdateElem, m_.i64, {map, key, src, i64c(0)}));
  BasicBlock* full = block("array_full");
  BasicBlock* ok = block("set_elem");
  b_.CreateCondBr(b_.CreateICmpNE(r, b_.getInt32(0)), full, ok);
  b_.SetInsertPoint(full);
  raise_literal(n->loc, overflow_message(g));
  b_.SetInsertPoint(ok);
  return v;
}

// print(@hist_*(g[k])): the runtime reads and prints the statistic.  An
// empty one is stap's "empty aggregate" error at the print, raised here,
// where the probe can still be ended (and try/catch catch it).
void ProgramEmitter::print_hist(const ir::Node* n, const ir::Global& g) {
  Value* key = pack_key(g, n, g.keys.size());
  AllocaInst* count = m_.entry_alloca(m_.i64, "hist_count");
  Value* cpus = b_.CreateZExt(b_.CreateLoad(m_.i32, ms_.nr_cpus, /*isVolatile=*/true), m_.i64);
  runtime_call("stp_stat_merge", m_.i64,
               {ms_.global_maps.at(size_t(n->a)), key, i64c(int64_t(ir::StatOp::count)), i64c(0),
                i64c(g.hist.buckets()), cpus, count});
  BasicBlock* empty = block("hist_empty");
  BasicBlock* ok = block("hist_ok");
  b_.CreateCondBr(b_.CreateICmpEQ(b_.CreateLoad(m_.i64, count), i64c(0)), empty, ok);
  b_.SetInsertPoint(empty);
  raise_literal(n->loc, "empty aggregate");
  b_.SetInsertPoint(ok);
  uint32_t ksize = g.is_array() ? g.key_size : 0;
  BasicBlock* done = nullptr;
  Value* rec = begin_record(int64_t(sizeof(stap_record) + ksize), STAP_REC_PRINT_HIST,
                            b_.getInt32(uint32_t(n->a)), done);
  if (ksize) helper(kProbeReadKernel, m_.i64, {byte_ptr(rec, 8), i64c(ksize), key});
  finish_record(rec, done);
}

// `[k, *] in a` and `delete a[k, *]`: bpf_for_each_map_elem with a
// callback, made for this site, that compares the fixed keys with a packed
// pattern (handed over in a stack context: pointers stay typed there).
Value* ProgramEmitter::slice_op(const ir::Node* n, const ir::Global& g, Value* map) {
  bool remove = n->op == ir::Op::delete_elem;
  Value* pattern = pack_key(g, n, g.keys.size(), true);
  Function* cb = slice_callback(g, n, remove);
  StructType* ctx_ty = StructType::get(m_.module().getContext(), {m_.ptr, m_.i64});
  AllocaInst* ctx = m_.entry_alloca(ctx_ty, "slice");
  b_.CreateStore(pattern, ctx);
  b_.CreateStore(i64c(0), byte_ptr(ctx, 8));
  helper(kForEachMapElem, m_.i64, {map, cb, ctx, i64c(0)});
  if (remove) return nullptr;
  return b_.CreateZExt(b_.CreateICmpNE(b_.CreateLoad(m_.i64, byte_ptr(ctx, 8)), i64c(0)), m_.i64);
}

Function* ProgramEmitter::slice_callback(const ir::Global& g, const ir::Node* n, bool remove) {
  DILocation* loc = nullptr;
  Function* fn = m_.add_callback("stap_slice_" + std::to_string(ms_.callbacks++), loc);
  LLVMContext& c = m_.module().getContext();
  IRBuilder<> cb(BasicBlock::Create(c, "entry", fn));
  cb.SetCurrentDebugLocation(loc);
  Value* key = fn->getArg(1);
  Value* ctx = fn->getArg(3);
  Value* pattern = cb.CreateLoad(m_.ptr, ctx);
  BasicBlock* miss = BasicBlock::Create(c, "miss", fn);
  BasicBlock* hit = BasicBlock::Create(c, "hit", fn);
  // Packed keys are zero padded, so a fixed field matches when all its
  // bytes do: XORs ORed together, one branch at the end.  A branch per
  // byte would make the verifier walk the callback once per outcome.
  Value* diff = cb.getInt64(0);
  int64_t off = 0;
  for (size_t i = 0; i < g.keys.size(); ++i) {
    int64_t size = g.key_width(i, uint32_t(ms_.maxlen));
    if (n->kids[i]->op != ir::Op::any) {
      for (int64_t at = off; at < off + size;) {
        unsigned width = (at % 8 == 0 && off + size - at >= 8) ? 8 : 1;
        Type* ty = cb.getIntNTy(8 * width);
        Value* k = cb.CreateAlignedLoad(ty, cb.CreateConstGEP1_64(m_.i8, key, uint64_t(at)), MaybeAlign(width));
        Value* p = cb.CreateAlignedLoad(ty, cb.CreateConstGEP1_64(m_.i8, pattern, uint64_t(at)), MaybeAlign(width));
        diff = cb.CreateOr(diff, cb.CreateZExt(cb.CreateXor(k, p), m_.i64));
        at += width;
      }
    }
    off += size;
  }
  cb.CreateCondBr(cb.CreateICmpEQ(diff, cb.getInt64(0)), hit, miss);
  cb.SetInsertPoint(hit);
  cb.CreateStore(cb.getInt64(1), cb.CreateConstGEP1_64(m_.i8, ctx, 8));
  if (remove) {
    auto* del = ConstantExpr::getIntToPtr(cb.getInt64(kMapDeleteElem), m_.ptr);
    cb.CreateCall(FunctionType::get(m_.i64, {m_.ptr, m_.ptr}, false), del, {fn->getArg(0), key});
  }
  cb.CreateRet(cb.getInt64(remove ? 0 : 1));  // 1 stops the walk: found
  cb.SetInsertPoint(miss);
  cb.CreateRet(cb.getInt64(0));
  return fn;
}

// a[k] += d, atomically per element: add in place, the element inserted
// zeroed first when missing.
Value* ProgramEmitter::add_elem(const ir::Node* n, const ir::Global& g, Value* map, Value* key) {
  Value* d = expr(n->kids.at(g.keys.size()));
  BasicBlock* gone = block("add_gone");
  Value* p = element_or_insert(n, g, map, key, gone);
  Value* old = b_.CreateAtomicRMW(AtomicRMWInst::Add, p, d, Align(8), AtomicOrdering::Monotonic);
  BasicBlock* added = b_.GetInsertBlock();
  BasicBlock* done = block("add_elem");
  b_.CreateBr(done);
  b_.SetInsertPoint(gone);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  PHINode* before = b_.CreatePHI(m_.i64, 2);
  before->addIncoming(old, added);
  before->addIncoming(i64c(0), gone);
  return n->b ? static_cast<Value*>(before) : b_.CreateAdd(before, d);
}

// The element of key for an update, inserted zeroed (BPF_NOEXIST) when
// missing.  Only a full map (-E2BIG, -ENOMEM) is stap's "Array overflow".
// -EEXIST is another CPU's insert of the key: look it up again.  When that
// (or our own fresh element) is already deleted again by a third probe,
// the update counts as done just before that delete: branch to `gone`.
Value* ProgramEmitter::element_or_insert(const ir::Node* n, const ir::Global& g, Value* map,
                                         Value* key, BasicBlock* gone) {
  BasicBlock* ready = block("elem_ready");
  BasicBlock* missing = block("elem_missing");
  BasicBlock* full = block("array_full");
  BasicBlock* busy = block("elem_busy");
  BasicBlock* again = block("elem_again");
  Value* p = helper(kMapLookupElem, m_.ptr, {map, key});
  BasicBlock* first = b_.GetInsertBlock();
  b_.CreateCondBr(b_.CreateIsNotNull(p), ready, missing);
  b_.SetInsertPoint(missing);
  Value* zeros = rodata_ptr(ms_.zeros(g.value_size));
  Value* r = update_result(helper(kMapUpdateElem, m_.i64, {map, key, zeros, i64c(kNoExist)}));
  BasicBlock* not_full = block("elem_not_full");
  b_.CreateCondBr(b_.CreateOr(b_.CreateICmpEQ(r, b_.getInt32(kE2Big)), b_.CreateICmpEQ(r, b_.getInt32(kENoMem))),
                  full, not_full);
  b_.SetInsertPoint(not_full);
  b_.CreateCondBr(b_.CreateOr(b_.CreateICmpEQ(r, b_.getInt32(0)), b_.CreateICmpEQ(r, b_.getInt32(kEExist))),
                  again, busy);
  b_.SetInsertPoint(again);
  Value* p2 = helper(kMapLookupElem, m_.ptr, {map, key});
  b_.CreateCondBr(b_.CreateIsNotNull(p2), ready, gone);
  b_.SetInsertPoint(busy);  // -EBUSY: this probe interrupted an update of the map on its CPU
  raise_literal(n->loc, "Array update failed: the map is busy on this CPU");
  b_.SetInsertPoint(full);
  raise_literal(n->loc, overflow_message(g));
  b_.SetInsertPoint(ready);
  PHINode* elem = b_.CreatePHI(m_.ptr, 2);
  elem->addIncoming(p, first);
  elem->addIncoming(p2, again);
  return elem;
}

// x <<< v: this CPU's struct stap_stat, created zeroed on first use.
void ProgramEmitter::stat_add(const ir::Node* n) {
  const ir::Global& g = ms_.ir.globals.at(size_t(n->a));
  Value* map = ms_.global_maps.at(size_t(n->a));
  Value* key = pack_key(g, n, g.keys.size());
  Value* v = expr(n->kids.at(g.keys.size()));
  BasicBlock* done = block("stat_done");
  Value* s = element_or_insert(n, g, map, key, done);
  const ir::HistShape& h = g.hist;
  runtime_call("stp_stat_add", Type::getVoidTy(m_.module().getContext()),
               {s, v, i64c(int64_t(h.kind)), i64c(h.low), i64c(h.step), i64c(h.buckets())});
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

// @count @sum @min @max @avg and @hist_*(x)[i], merged over CPUs.
Value* ProgramEmitter::stat_get(const ir::Node* n) {
  const ir::Global& g = ms_.ir.globals.at(size_t(n->a));
  Value* map = ms_.global_maps.at(size_t(n->a));
  Value* key = pack_key(g, n, g.keys.size());
  int64_t op = 6;
  Value* bucket = i64c(0);
  if (n->op == ir::Op::hist_bucket) {
    bucket = expr(n->kids.at(g.keys.size()));
  } else {
    // @variance's shift (c) is ignored, as by the interpreter.
    op = int64_t(ir::StatOp(n->b));
  }
  AllocaInst* count = m_.entry_alloca(m_.i64, "stat_count");
  Value* cpus = b_.CreateZExt(b_.CreateLoad(m_.i32, ms_.nr_cpus, /*isVolatile=*/true), m_.i64);
  Value* r = runtime_call("stp_stat_merge", m_.i64,
                          {map, key, i64c(op), bucket, i64c(g.hist.buckets()), cpus, count});
  // @count and @sum of an empty aggregate are 0; the rest are errors.
  if (op == int64_t(ir::StatOp::count) || op == int64_t(ir::StatOp::sum)) return r;
  Value* c = b_.CreateLoad(m_.i64, count);
  BasicBlock* empty = block("stat_empty");
  BasicBlock* ok = block("stat_ok");
  b_.CreateCondBr(b_.CreateICmpEQ(c, i64c(0)), empty, ok);
  b_.SetInsertPoint(empty);
  raise_literal(n->loc, "empty aggregate");
  b_.SetInsertPoint(ok);
  if (n->op == ir::Op::hist_bucket) {
    BasicBlock* bad = block("bucket_range");
    BasicBlock* in = block("bucket_ok");
    b_.CreateCondBr(b_.CreateICmpUGE(bucket, i64c(g.hist.buckets())), bad, in);
    b_.SetInsertPoint(bad);
    raise_literal(n->loc, "histogram index out of range");
    b_.SetInsertPoint(in);
    return r;
  }
  if (op != int64_t(ir::StatOp::avg)) return r;
  ir::Node fake;
  fake.op = ir::Op::div;
  fake.loc = n->loc;
  return divide(&fake, r, c);
}

// delete of a whole global: scalars reset; a hash map emptied with
// bpf_for_each_map_elem; a scalar statistic zeroed on every CPU.
void ProgramEmitter::clear_global(const ir::Node* n) {
  const ir::Global& g = ms_.ir.globals.at(size_t(n->a));
  Type* void_ty = Type::getVoidTy(m_.module().getContext());
  if (g.in_globals_map()) {
    Value* p = global_ptr(g);
    if (g.type == ir::Type::string) clear_string(p);
    else b_.CreateStore(i64c(0), p);
    return;
  }
  Value* map = ms_.global_maps.at(size_t(n->a));
  if (g.is_array()) {
    runtime_call("stp_clear_map", void_ty, {map});
    return;
  }
  Value* key = pack_key(g, n, 0);
  Value* cpus = b_.CreateZExt(b_.CreateLoad(m_.i32, ms_.nr_cpus, /*isVolatile=*/true), m_.i64);
  runtime_call("stp_stat_clear", void_ty, {map, key, i64c(g.hist.buckets()), cpus});
}

}  // namespace stap::codegen
