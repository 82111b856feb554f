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

}  // namespace stap::ir
