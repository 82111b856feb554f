// Which builtins (compiler/elaborate/builtins.h) the BPF code generator
// implements.  The builtins table says where a builtin may run in
// principle; this list says what kernel context runs today, so pass 3 can
// refuse the rest with a located error before code generation.  Kept
// beside the IR because lowering and codegen both read it (and lowering
// links no LLVM); compiler/codegen/emit_builtins.cpp must agree with it
// (tests/unit/test_codegen.cpp checks every name).
#pragma once

#include <string_view>
#include <vector>

namespace stap::ir {

bool kernel_supports_builtin(std::string_view name);
const std::vector<std::string_view>& kernel_builtins();

// Whether a builtin does something visible besides giving its value
// (output, a warning, an error, the session's end).  A body whose user
// read faults may run again at its system call's exit only while nothing
// of this kind has happened (codegen/emit_deferral.cpp).  Names not in
// kernel_builtins() count as effects.  It agrees with the builtins
// table's `pure` (tests/unit/test_codegen.cpp checks every name).
bool builtin_has_effect(std::string_view name);

}  // namespace stap::ir
