// What to say when bpf_object__load fails: libbpf's log names the map the
// kernel could not create or the helper the verifier did not offer, and
// the kernel's errno alone ("Cannot allocate memory", "Invalid argument")
// tells a user nothing of which, why, or what to change.
#pragma once

#include <string>

#include "ir/ir.h"

struct bpf_object;

namespace stap {

// The message for a failed load whose libbpf log is `log` and whose
// return code is `rc` (a negative errno); `probe` is the probe whose
// program was refused, "" when none was.  Starts with "ERROR: ", ends
// without a newline.
std::string explain_load_failure(const std::string& log, int rc, bpf_object* obj,
                                 const ir::Module& module, const std::string& probe,
                                 int verbose);

}  // namespace stap
