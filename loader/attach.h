// Attaching the kernel-context probes of a loaded object, one function per
// probe kind (attach_<kind>.cpp), chosen in one table (attach.cpp).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"

struct bpf_object;
struct bpf_program;
struct bpf_link;

namespace stap {

// Attaches probe `p` (kernel context) of the loaded object; appends its
// links.  False with `error` set to the message to print.  A program that
// serves many probes from one attachment (the syscall dispatchers) is
// attached for the first of them: `attached` holds the names of those
// already attached.
bool attach_probe(bpf_object* obj, const ir::Probe& p, std::vector<bpf_link*>& links,
                  std::set<std::string>& attached, std::string& error);

// Detaches every link (and empties the list).
void destroy_links(std::vector<bpf_link*>& links);

// Per kind.
bool attach_tracepoint(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                       std::string& error);
bool attach_syscall(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                    std::string& error);

}  // namespace stap
