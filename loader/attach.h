// Attaching the kernel-context probes of a loaded object, one function per
// probe kind (attach_<kind>.cpp), chosen in one table (attach.cpp).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"

struct bpf_object;
struct bpf_program;
struct bpf_link;

namespace stap {

// What attaching may say besides an error: -v lines (stderr) and warnings
// (the session's, which -w silences; stderr when unset).
struct AttachReport {
  int verbose = 0;
  std::function<void(const std::string&)> warn;
};

// Attaches probe `p` (kernel context) of the loaded object; appends its
// links.  False with `error` set to the message to print.  A program that
// serves many probes from one attachment (the syscall dispatchers) is
// attached for the first of them: `attached` holds the names of those
// already attached.
bool attach_probe(bpf_object* obj, const ir::Probe& p, std::vector<bpf_link*>& links,
                  std::set<std::string>& attached, std::string& error,
                  const AttachReport& report = {});

// Raises the soft limit of open descriptors to hold `links` descriptors
// besides the object's own (a uprobe or kprobe takes two).
void raise_descriptor_limit(size_t links);

// Detaches every link (and empties the list).
void destroy_links(std::vector<bpf_link*>& links);

// Per kind.
bool attach_tracepoint(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                       std::string& error);
bool attach_syscall(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                    std::string& error);
// Perf events on every online CPU (attach_perf.cpp).
bool attach_perf(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                 std::string& error);

// kernel.function probes (attach_kfunc.cpp).  Before load: picks each
// probe's mechanism from kernel::kfunc_support() and turns off the other
// program variants' autoload; false with `error` naming the missing
// kernel feature when a probe has none.  After load: attaches with it.
bool choose_kfunc_programs(bpf_object* obj, const ir::Module& m, std::string& error);
bool attach_kfunc(bpf_object* obj, const ir::Probe& p, std::vector<bpf_link*>& links,
                  const AttachReport& report, std::string& error);

// User-space probes (attach_uprobe.cpp): a uprobe or uretprobe at each of
// the probe's sites, its index as the cookie.
bool attach_uprobe(bpf_object* obj, const ir::Probe& p, std::vector<bpf_link*>& links,
                   const AttachReport& report, std::string& error);

}  // namespace stap
