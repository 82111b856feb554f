// Attaching the kernel-context probes of a loaded object: one file per
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
  // The -c/-x target (0: none), which perf probes' .process count in.
  int target_pid = 0;
  // Set by attaching where a kind has more than one mechanism ("fentry",
  // "kprobe.multi", "uprobe.multi" ...); empty: the kind's one.
  mutable std::string mechanism;
  // A warning through `warn`, else "WARNING: ..." on stderr.
  void warning(const std::string& message) const;
};

// The table of probe kinds (attach.cpp), one case per kind of ir/probe_spec.h.
//
// Before load: what of probe `p`'s programs to load (a kernel function's
// mechanism, uprobe.multi or a uprobe per site); false with `error`
// naming the missing kernel feature when a probe has no mechanism here.
bool prepare_probe(bpf_object* obj, const ir::Probe& p, std::string& error);
// After load: attaches probe `p` (kernel context); appends its links.
// False with `error` set to the message to print.  A program that serves
// many probes from one attachment (the syscall dispatchers) is attached
// for the first of them: `attached` holds the names of those already
// attached.
bool attach_probe(bpf_object* obj, const ir::Probe& p, std::vector<bpf_link*>& links,
                  std::set<std::string>& attached, std::string& error,
                  const AttachReport& report = {});

// Raises the soft limit of open descriptors to hold `links` descriptors
// besides the object's own (a uprobe or kprobe takes two).
void raise_descriptor_limit(size_t links);

// Detaches every link (and empties the list), and the links held by
// descriptor alone (hold_link_fd).
void destroy_links(std::vector<bpf_link*>& links);

// A link libbpf cannot wrap (a uprobe.multi link, which libbpf 1.1 cannot
// create: made with the raw bpf(2) call): its descriptor, closed by the
// next destroy_links with the session's other links.
void hold_link_fd(int fd);

// Per kind, one file each (attach_<kind>.cpp).
bool attach_tracepoint(bpf_program* prog, const ir::Probe& p, const ir::TracepointSpec& tp,
                       std::vector<bpf_link*>& links, std::string& error);
bool attach_syscall(bpf_program* prog, const ir::Probe& p, const ir::SyscallSpec& sc,
                    std::vector<bpf_link*>& links, std::string& error);
// The object's STAP_DEFERRED_PROG programs, if any, on the raw sys_exit:
// attached before every probe, so a kept entry body runs before the
// call's return probes.
bool attach_deferred_runs(bpf_object* obj, std::vector<bpf_link*>& links, std::string& error);
bool attach_btf_tracepoint(bpf_program* prog, const ir::Probe& p, const ir::BtfTracepointSpec& tp,
                           std::vector<bpf_link*>& links, std::string& error);
// kernel.lsm probes (attach_lsm.cpp).  Before load: whether the kernel
// runs them (BPF trampolines allowed, "bpf" an active LSM), else an error
// saying which is missing.  After load: the LSM link.
bool prepare_lsm(const ir::Probe& p, const ir::LsmSpec& lsm, std::string& error);
bool attach_lsm(bpf_program* prog, const ir::Probe& p, const ir::LsmSpec& lsm,
                std::vector<bpf_link*>& links, std::string& error);
// netfilter.hook probes (attach_netfilter.cpp).  Before load: whether the
// kernel has BPF netfilter programs, else an error saying so; the
// program's type, which libbpf 1.1 cannot tell from its section.  After
// load: a netfilter link at the probe's hook.
bool prepare_netfilter(bpf_object* obj, const ir::Probe& p, const ir::NetfilterSpec& nf,
                       std::string& error);
bool attach_netfilter(bpf_program* prog, const ir::Probe& p, const ir::NetfilterSpec& nf,
                      const AttachReport& report, std::string& error);
// Hardware watchpoints, kernel.data on every online CPU, process.data on
// the -c/-x target's tasks (attach_watchpoint.cpp).
bool attach_watchpoint(bpf_program* prog, const ir::Probe& p, const ir::WatchpointSpec& spec,
                       std::vector<bpf_link*>& links, const AttachReport& report,
                       std::string& error);
// Perf events on every online CPU, or on the tasks of the processes a
// .process probe counts in (attach_perf.cpp, attach_perf_task.cpp).
bool attach_perf(bpf_program* prog, const ir::Probe& p, const ir::PerfSpec& perf,
                 std::vector<bpf_link*>& links, const AttachReport& report, std::string& error);

// kernel.function probes (attach_kfunc.cpp).  Before load: picks the
// probe's mechanism from kernel::kfunc_support() and turns off the other
// program variants' autoload.  After load: attaches with it.
bool prepare_kfunc(bpf_object* obj, const ir::Probe& p, const ir::KfuncSpec& kfunc,
                   std::string& error);
bool attach_kfunc(bpf_object* obj, const ir::Probe& p, const ir::KfuncSpec& kfunc,
                  std::vector<bpf_link*>& links, const AttachReport& report, std::string& error);

// User-space probes (attach_uprobe.cpp).  Before load: loads the probe's
// uprobe.multi variant when the kernel has uprobe.multi links
// (kernel/uprobe_support.h), its per-site variant when not (or beside it,
// for many sites, in case the one link is refused).  After load: one
// uprobe.multi link for all the sites, else a uprobe or uretprobe at each;
// a site's index is its cookie.
void prepare_uprobe(bpf_object* obj, const ir::Probe& p, const ir::UprobeSpec& uprobe);
bool attach_uprobe(bpf_object* obj, const ir::Probe& p, const ir::UprobeSpec& uprobe,
                   std::vector<bpf_link*>& links, const AttachReport& report, std::string& error);

}  // namespace stap
