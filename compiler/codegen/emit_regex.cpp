// =~ and !~ in kernel context.  The pattern is a literal, so its DFA is
// built here at compile time (compiler/ir/regex_dfa.h) and its table goes
// in .rodata; the program walks the string once, one table load per byte:
//
//   state = 0
//   for (i = 0; i < MAXSTRINGLEN && s[i]; i++)
//     state = next[state * classes + byte_class[s[i]]]
//   hit = accept_end[state]
//
// The bound is the constant MAXSTRINGLEN, so the verifier walks the loop;
// every exit leaves only `state` live, so the exits' states prune.  Table
// indexes are masked to the table's power-of-two spans: the verifier knows
// nothing of its contents (a loaded state is any u16), and a compare
// instead was moved by LLVM away from the access it guarded.
#include <llvm/IR/Constants.h>

#include "codegen/emitter.h"
#include "ir/regex_dfa.h"

using namespace llvm;

namespace stap::codegen {

Value* ProgramEmitter::regex_match(const ir::Node* n) {
  Value* text = expr(n->kids.at(0));
  ir::RegexBuild built = ir::build_regex_dfa(n->s);
  if (built.status != ir::RegexStatus::ok)
    unsupported(n, "regular expression '" + n->s + "' cannot be matched in kernel context: " +
                       built.reason);
  const ir::RegexDfa& dfa = built.dfa;
  Value* hit;
  if (dfa.states() == 1) {
    hit = i64c(dfa.accept_end[0]);  // the start is the match: "", "a*", "^"
  } else {
    uint32_t base = ms_.literal(dfa.table_bytes(), false);
    Value* classes = rodata_ptr(base);
    Value* accept = rodata_ptr(base + dfa.accept_offset());
    Value* next = rodata_ptr(base + dfa.next_offset());
    // Real indexes are below the spans; the masks are for the verifier.
    auto clamp = [&](Value* v, uint32_t span) { return b_.CreateAnd(v, i64c(span - 1)); };

    BasicBlock* pre = b_.GetInsertBlock();
    BasicBlock* head = block("regex_head");
    BasicBlock* body = block("regex_byte");
    BasicBlock* step = block("regex_step");
    BasicBlock* done = block("regex_done");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    PHINode* i = b_.CreatePHI(m_.i64, 2);
    PHINode* state = b_.CreatePHI(m_.i64, 2);
    i->addIncoming(i64c(0), pre);
    state->addIncoming(i64c(0), pre);
    b_.CreateCondBr(b_.CreateICmpULT(i, i64c(ms_.maxlen)), body, done);

    b_.SetInsertPoint(body);
    Value* byte = b_.CreateZExt(b_.CreateLoad(m_.i8, byte_ptr(text, i)), m_.i64);
    b_.CreateCondBr(b_.CreateICmpEQ(byte, i64c(0)), done, step);

    b_.SetInsertPoint(step);
    Value* cls = b_.CreateZExt(b_.CreateLoad(m_.i8, byte_ptr(classes, byte)), m_.i64);
    Value* index = b_.CreateAdd(b_.CreateMul(state, i64c(dfa.classes)), cls);
    index = clamp(index, dfa.next_span());
    Value* entry = byte_ptr(next, b_.CreateShl(index, i64c(1)));
    Value* to = b_.CreateZExt(b_.CreateLoad(b_.getInt16Ty(), entry), m_.i64);
    i->addIncoming(b_.CreateAdd(i, i64c(1)), step);
    state->addIncoming(to, step);
    b_.CreateBr(head);

    b_.SetInsertPoint(done);
    Value* flag = b_.CreateLoad(m_.i8, byte_ptr(accept, clamp(state, dfa.accept_span())));
    hit = b_.CreateZExt(flag, m_.i64);
  }
  return n->b ? b_.CreateXor(hit, i64c(1)) : hit;
}

}  // namespace stap::codegen
