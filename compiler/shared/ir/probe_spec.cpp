// Each kind's line in the module dump (ir/print.h), after the probe's
// index, kind, context and point.
#include "ir/probe_spec.h"

#include <ostream>

namespace stap::ir {

const char* SessionSpec::kind_name() const {
  switch (event) {
    case Event::begin: return "begin";
    case Event::end: return "end";
    case Event::error: return "error";
    case Event::never: return "never";
  }
  return "?";
}

const char* kind_name(const ProbeSpec& spec) {
  return std::visit([](const auto& s) { return s.kind_name(); }, spec);
}

void SessionSpec::print(std::ostream& o) const { o << " sequence=" << sequence; }

void TimerSpec::print(std::ostream& o) const {
  o << " period_ns=" << period_ns;
  if (randomize_ns) o << " randomize_ns=" << randomize_ns;
}

void TracepointSpec::print(std::ostream& o) const { o << " event=" << system << ':' << event; }

void SyscallSpec::print(std::ostream& o) const {
  o << " event=" << system << ':' << event << " nr=" << nr;
}

void KfuncSpec::print(std::ostream& o) const {
  o << (is_return ? " return" : " entry") << " args=" << arg_count;
  if (!module.empty()) o << " module=" << module;
  o << " functions=";
  for (size_t i = 0; i < functions.size(); ++i) o << (i ? "," : "") << functions[i];
}

void PerfSpec::print(std::ostream& o) const {
  o << " type=" << type << " config=" << config << (freq ? " freq=" : " period=") << period;
}

void UprobeSpec::print(std::ostream& o) const {
  o << (is_return ? " return" : " entry") << " binary=" << binary;
  if (target_pid) o << " pid=" << target_pid;
  o << " sites=";
  for (size_t i = 0; i < offsets.size(); ++i) {
    o << (i ? "," : "") << (i < functions.size() ? functions[i] : "") << "@0x" << std::hex
      << offsets[i] << std::dec;
    if (i < semaphores.size() && semaphores[i])
      o << "/sem=0x" << std::hex << semaphores[i] << std::dec;
  }
}

void ProcfsSpec::print(std::ostream& o) const {
  o << (write ? " write" : " read") << " path=" << path << " umask=0" << std::oct << umask
    << std::dec;
  if (maxsize) o << " maxsize=" << maxsize;
}

void NetfilterSpec::print(std::ostream& o) const {
  o << " pf=" << pf << " hook=" << hook << " priority=" << priority;
}

void WatchpointSpec::print(std::ostream& o) const {
  o << (user ? " process" : " kernel") << (rw ? " rw" : " write") << " length=" << length;
  if (symbol.empty()) o << " address=0x" << std::hex << uint64_t(address) << std::dec;
  else o << " symbol=" << symbol;
}

void RunningTasksSpec::print(std::ostream& o) const {
  o << (threads ? " threads" : " processes");
  if (pid) o << " pid=" << pid;
  if (!path.empty()) o << " path=" << path;
}

void LsmSpec::print(std::ostream& o) const {
  o << " hook=" << hook << " args=" << args;
  if (verdict) o << " verdict";
}

void BtfTracepointSpec::print(std::ostream& o) const {
  o << " tracepoint=" << name << " args=" << args;
  if (!module.empty()) o << " module=" << module;
}

}  // namespace stap::ir
