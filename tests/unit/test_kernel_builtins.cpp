// The list of builtins kernel context runs (ir/kernel_builtins.h) and the
// BPF code generator agree: every listed name, at every arity the builtins
// table gives it, compiles into a program (the kernel's verifier accepts
// the object), and pass 3 refuses the others before code generation.
#include <catch2/catch.hpp>

#include "codegen/codegen.h"
#include "codegen_fixture.h"
#include "elaborate/builtins.h"
#include "ir/kernel_builtins.h"

using namespace codegen_test;

namespace {

ir::Type ir_type_of(ast::Type t) {
  switch (t) {
    case ast::Type::long_: return Type::long_;
    case ast::Type::string: return Type::string;
    default: return Type::none;
  }
}

}  // namespace

TEST_CASE("kernel builtins: each listed one compiles and loads", "[codegen]") {
  size_t checked = 0;
  for (std::string_view name : ir::kernel_builtins()) {
    for (const Builtin& b : all_builtins()) {
      if (b.name != name || b.shape != ArgShape::fixed) continue;
      if (name == "exit" || name == "error") continue;  // IR operations, not calls
      // Printed only in kernel context (a stack or name the runtime makes),
      // not a value here: live cases profile_stacks and kernel_symbol_text.
      if (name == "probefunc" || name == "sprint_ustack") continue;
      Builder s;
      std::vector<Node*> args;
      for (const BuiltinParam& p : b.params)
        args.push_back(p.type == ast::Type::string ? s.str("1") : s.num(1));
      Node* call = s.call_builtin(b.name, ir_type_of(b.return_type), args);
      // Under a condition that is never true: compiled and verified, not run.
      s.probe(s.expr(call), {}, "sys_enter_getpid", "syscalls", s.num(0));
      INFO(b.signature());
      CodegenResult r = generate_object(s.m, CodegenOptions{});
      INFO(r.error);
      CHECK(r.ok);
      if (r.ok) {
        bpf_object* obj = bpf_object__open_mem(r.object.data(), r.object.size(), nullptr);
        REQUIRE(obj);
        CHECK(bpf_object__load(obj) == 0);
        bpf_object__close(obj);
      }
      ++checked;
    }
  }
  CHECK(checked >= ir::kernel_builtins().size() - 4);
}

// The same with run-time arguments (a tracepoint field, which LLVM cannot
// fold, so bounds the verifier needs are not optimised away) and odd
// MAXSTRINGLENs (the text loops mask with the next power of two).
TEST_CASE("kernel builtins: run-time arguments and odd MAXSTRINGLEN", "[codegen]") {
  for (int64_t maxlen : {8, 13, 200}) {
    for (std::string_view name : ir::kernel_builtins()) {
      for (const Builtin& b : all_builtins()) {
        if (b.name != name || b.shape != ArgShape::fixed) continue;
        if (name == "exit" || name == "error" || name == "probefunc" || name == "sprint_ustack")
          continue;
        Builder s;
        s.m.limits.maxstringlen = maxlen;
        std::vector<Node*> args;
        for (const BuiltinParam& p : b.params)
          args.push_back(p.type == ast::Type::string ? s.str("a\tb\303\251c")
                                                     : s.node(Op::tp_field, Type::long_, {}, 8, 4, 1));
        Node* call = s.call_builtin(b.name, ir_type_of(b.return_type), args);
        s.probe(s.expr(call), {}, "sys_enter_getpid", "syscalls", s.num(0));
        INFO(b.signature() << " MAXSTRINGLEN " << maxlen);
        CodegenResult r = generate_object(s.m, CodegenOptions{});
        INFO(r.error);
        REQUIRE(r.ok);
        bpf_object* obj = bpf_object__open_mem(r.object.data(), r.object.size(), nullptr);
        REQUIRE(obj);
        CHECK(bpf_object__load(obj) == 0);
        bpf_object__close(obj);
      }
    }
  }
}

// A body's user read may wait for its system call's exit only while the
// body has done nothing visible (codegen/emit_deferral.cpp): which
// builtins count as doing something must agree with the table's `pure`.
TEST_CASE("kernel builtins: effects are the impure ones", "[codegen]") {
  for (std::string_view name : ir::kernel_builtins())
    for (const Builtin& b : all_builtins())
      if (b.name == name) {
        INFO(b.signature());
        CHECK(ir::builtin_has_effect(name) == !b.pure);
      }
  CHECK(ir::builtin_has_effect("no_such_builtin"));
}
