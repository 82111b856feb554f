// Pass 3, first half: the elaborated program (pass 2) becomes an
// ir::Module.
//
// What happens here, and nowhere later:
//  - each derived probe is lowered by its kind (lower/kinds/, one file
//    each, chosen by the table in kinds/kinds.cpp) into ir::Probes with
//    their context: begin/end/error/never and interval timers run in user
//    space, the rest in the kernel; kernel.trace wildcards expand over
//    tracefs into one probe per event;
//  - variables become slots (locals, parameters) and global indexes;
//  - the print family becomes printf/sprintf with a format: print(a, b)
//    -> "%d%s", println -> ...\n, printd(",", a, b) -> "%d,%s" (a '%' in a
//    delimiter is doubled);
//  - target variables of tracepoints become record-field reads from the
//    event's tracefs format ($field, $$vars, $$name, $$system);
//  - what kernel context cannot run (sorting foreach, recursion, a
//    user-only builtin ...) is a located error that says what to do.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/diagnostics.h"
#include "base/source.h"
#include "elaborate/program.h"
#include "ir/ir.h"

namespace stap {

namespace kernel {
class KernelBtf;
class TraceCatalog;
}

struct LowerOptions {
  ir::Limits limits;
  std::string script_name;  // the main script's name, "<input>" for -e
  // CONFIG_HZ of the target kernel, for timer.jiffies(N) (the preprocessor
  // env's kernel_config has it); 0: assume 250, the x86-64 default.
  int64_t kernel_hz = 0;
  // The target kernel's types (BTF), from the caller: kernel functions'
  // parameters, @cast, the structures process probes read.  Asked on
  // first need (reading vmlinux's BTF takes tens of ms, which a script
  // without kernel types need not pay); null where there are none, with
  // why in `why`.
  std::function<kernel::KernelBtf*(std::string& why)> btf;
  // The target kernel's trace events and formats (tracefs): kernel.trace
  // points and the tracepoints process probes run on.  Null: there are
  // none, and a probe that needs them is an error.
  kernel::TraceCatalog* trace_events = nullptr;
  // Pass 2's check of the target expressions (-p2): what the engine does
  // not support yet is not an error here (Lowerer::limitation), and the
  // module is not kept.
  bool checking = false;
};

// Returns false after reporting located errors; `out` is then incomplete.
bool lower_program(const Program& program, const LowerOptions& options,
                   const SourceManager& sources, Diagnostics& diags, ir::Module& out);

}  // namespace stap
