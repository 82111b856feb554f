// Attaching the kernel-context probes of a loaded object, one function per
// probe kind (attach_<kind>.cpp), chosen in one table (attach.cpp).
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

struct bpf_object;
struct bpf_program;
struct bpf_link;

namespace stap {

// Attaches probe `p` (kernel context) of the loaded object; appends its
// links.  False with `error` set to the message to print.
bool attach_probe(bpf_object* obj, const ir::Probe& p, std::vector<bpf_link*>& links,
                  std::string& error);

// Detaches every link (and empties the list).
void destroy_links(std::vector<bpf_link*>& links);

// Per kind.
bool attach_tracepoint(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                       std::string& error);

}  // namespace stap
