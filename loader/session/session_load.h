// Opening and loading a compiled object with libbpf: maps sized for this
// run (MAXMAPENTRIES, `global a[N]`, the -s buffer size), then the
// verifier.  libbpf's own messages are captured, so that a failure is one
// stap-style line, with libbpf's log and the verifier's behind -vvv.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/ir.h"
#include "loader/symbols/unwind_tables.h"

struct bpf_object;

namespace stap {

struct LoadOptions {
  int verbose = 0;
  int64_t buffer_mb = 0;  // -s: the ring buffer's size in MB, 0 = the object's
  UnwindSources unwind;   // the binaries user stacks are unwound through
};

// Opens `object` (whose module is `module`), sizes its maps and loads it.
// Returns nullptr after filling `error` with the message to print
// (ending without a newline); the object is closed then.
bpf_object* load_object(std::string_view object, const ir::Module& module,
                        const LoadOptions& options, std::string& error);

// Size in bytes of the ring buffer for -s MB: a power of two, as the
// kernel requires.
uint64_t ring_buffer_bytes(int64_t megabytes);

// Empty when this process may create BPF maps and programs and open the
// perf events probes attach through: root, CAP_SYS_ADMIN, or CAP_BPF with
// CAP_PERFMON (Linux 5.8+).  Else what it lacks and what to do, checked
// before anything is created, so the kernel's bare "Operation not
// permitted" is never the message.
std::string missing_bpf_privileges();

}  // namespace stap
