// Hardware watchpoints (kernel.data, process.data): perf breakpoint events
// (PERF_TYPE_BREAKPOINT) carrying the probe's program, which runs on each
// access, one sample per access.
//   kernel.data     one event per online CPU (pid -1): any task's access,
//                   kernel or user address alike, as stap's wide
//                   breakpoints
//   process.data    one event per thread of the -c/-x target, inherited
//                   by the threads and children it creates (so the -c
//                   child, held before its exec, is watched from its
//                   first instruction)
// A symbol is looked up in /proc/kallsyms now, so an object compiled
// elsewhere watches this kernel's address.  The CPU's debug registers
// are the limit (x86 has 4, shared with debuggers and every other
// watchpoint on the CPU or task): the kernel refuses one more with
// ENOSPC, said here in words.
#include <bpf/libbpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/format_string.h"
#include "kernel/kernel_symbols.h"
#include "loader/attach/attach.h"
#include "loader/attach/attach_perf_task.h"

namespace stap {

namespace {

// The symbol's address, or 0 with `error` set.
uint64_t symbol_address(const ir::Probe& p, const std::string& name, std::string& error) {
  kernel::KernelSymbols symbols;
  std::string why;
  if (!symbols.load(why)) {
    error = "probe " + p.pp + ": cannot read the kernel's symbols: " + why;
    return 0;
  }
  std::optional<kernel::Symbol> s = symbols.symbol(name);
  if (s && s->address != 0) return s->address;
  if (s) {
    error = "probe " + p.pp + ": /proc/kallsyms hides the address of '" + name +
            "' (kernel.kptr_restrict; run as root)";
    return 0;
  }
  error = "probe " + p.pp + " registration failed: invalid symbol '" + name +
          "': /proc/kallsyms has no such symbol";
  bool has_data = false;
  for (const kernel::Symbol& k : symbols.symbols())
    if (!k.is_code() && k.module.empty() && !k.name.starts_with("__")) {
      has_data = true;
      break;
    }
  if (!has_data)
    error += " (this kernel lists no variables there: it was built without "
             "CONFIG_KALLSYMS_ALL; give the address instead, kernel.data(ADDRESS))";
  return 0;
}

std::string open_error(const ir::Probe& p, uint64_t address, int64_t length, int err) {
  std::string what = "cannot set the hardware watchpoint of probe " + p.pp + " at " +
                     hex_text(address) + " (" + std::to_string(length) +
                     (length == 1 ? " byte): " : " bytes): ") + std::strerror(err);
  if (err == ENOSPC)
    what += "; no debug register is free (x86 has 4 per CPU, shared by every watchpoint "
            "there: this script's, a debugger's, other tools')";
  else if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
    what += "; this kernel or machine has no hardware breakpoints (CONFIG_HAVE_HW_BREAKPOINT)";
  else if (err == EINVAL)
    what += "; the kernel takes 1, 2, 4 or 8 bytes at an address aligned to the length, "
            "and a kernel address only for kernel.data";
  return what;
}

}  // namespace

bool attach_watchpoint(bpf_program* prog, const ir::Probe& p, const ir::WatchpointSpec& spec,
                       std::vector<bpf_link*>& links, const AttachReport& report,
                       std::string& error) {
  uint64_t address = uint64_t(spec.address);
  if (!spec.symbol.empty() && !(address = symbol_address(p, spec.symbol, error))) return false;
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.bp_type = spec.rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
  attr.bp_addr = address;
  attr.bp_len = uint64_t(spec.length);
  attr.sample_period = 1;
  if (report.verbose > 0)
    std::fprintf(stderr, "probe %s: watching %lld bytes at %s\n", p.pp.c_str(),
                 static_cast<long long>(spec.length), hex_text(address).c_str());
  auto why = [&](int err) { return open_error(p, address, spec.length, err); };
  if (spec.user)
    return open_target_events(prog, attr, p, report.target_pid,
                              "probe " + p.pp + ": process.data watches the -c COMMAND or -x "
                              "PID target, and there is none",
                              why, links, error);
  return open_cpu_events(prog, attr, p, "watchpoint", why, links, error);
}

}  // namespace stap
