// Pass 3, second half, and pass 4: the kernel-context probes of an
// ir::Module become LLVM IR (one BPF program per probe, functions inlined),
// linked with the bpf_runtime/ bitcode, optimised and emitted by LLVM's BPF
// target in-process; the object also carries the serialised module in
// section ".stapbpf.meta" (ir/serialize.h).
//
// Maps emitted (bpf_runtime/stap_layout.h): stap_globals (mmapable array,
// header + scalars at Global::offset), stap_events (ring buffer),
// stap_scratch (per-CPU string temporaries), and one map per array or
// statistic global (Global::map_name).  Map sizes are defaults the loader
// resizes before load (MAXMAPENTRIES, -s buffer size).
#pragma once

#include <string>

#include "ir/ir.h"

namespace stap {

struct CodegenOptions {
  bool want_ir_text = false;  // -p3: fill CodegenResult::ir_text
};

struct CodegenResult {
  bool ok = false;
  std::string error;    // an internal failure (verifier-bound limits, LLVM)
  std::string ir_text;  // LLVM IR per probe, after optimisation (-p3)
  std::string object;   // the ELF bytes (-p4 writes them)
};

// Sets Probe::program_name of every kernel-context probe; calls
// ir::assign_layout() first.
CodegenResult generate_object(ir::Module& module, const CodegenOptions& options);

}  // namespace stap
