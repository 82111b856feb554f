// User space: process("PATH"|PID) or bare process (every process, or the
// -c/-x target), with .begin/.end/.thread.begin/.thread.end/.syscall
// [.return] (scheduler and syscall tracepoints filtered in BPF), and the
// uprobe forms .function(PAT)[...], .statement(...), .plt, .mark("name"),
// .provider("p").mark("name"), optionally under .library("L").  Binaries,
// symbols and SDT notes are read from the target's ELF later, so pass 2
// checks the shape and keeps the point for the provider's resolution.
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

const char* const kCodeSuffixes[] = {
    ".function(number)", ".function(number).call", ".function(number).exported",
    ".function(number).return", ".function(string)", ".function(string).call",
    ".function(string).callee(string)", ".function(string).callee(string).call",
    ".function(string).callee(string).return", ".function(string).callees",
    ".function(string).callees(number)", ".function(string).exported",
    ".function(string).inline", ".function(string).label(string)", ".function(string).return",
    ".statement(number)", ".statement(number).nearest", ".statement(string)",
    ".statement(string).nearest", ".plt", ".plt.return", ".plt(string)", ".plt(string).return",
    ".mark(string)", ".provider(string).mark(string)",
};
const char* const kLifeSuffixes[] = {
    ".begin", ".end", ".thread.begin", ".thread.end", ".syscall", ".syscall.return",
};

std::vector<std::string> process_patterns() {
  std::vector<std::string> out;
  for (std::string head : {"process", "process(string)", "process(number)"}) {
    for (const char* s : kLifeSuffixes) out.push_back(head + s);
    for (const char* s : kCodeSuffixes) {
      out.push_back(head + s);
      out.push_back(head + ".library(string)" + s);
    }
    if (head != "process") {
      out.push_back(head + ".insn");
      out.push_back(head + ".insn.block");
    }
  }
  out.push_back("process(number).statement(number).absolute");
  out.push_back("process(number).statement(number).absolute.return");
  return out;
}

class ProcessProvider : public ProbeProvider {
 public:
  ProcessProvider() : ProbeProvider("process", process_patterns(), /*resolved_later=*/true) {}

  // Uprobes and marks have the code's variables or the marker's
  // arguments; syscalls their registers.  Process and thread life events
  // have none.
  bool has_target_vars(const ast::ProbePoint& point) const override {
    bool life = find(point, "begin") || find(point, "end");
    return !life;
  }
  std::string no_target_vars_message(const ast::ProbePoint&) const override {
    return "only \"process(PATH_OR_PID).syscall\" and "
           "\"process(PATH_OR_PID).syscall.return\" probes support target symbols";
  }
  // Function and .plt returns; a syscall return has no entry to go back to.
  bool has_entry_values(const ast::ProbePoint& point) const override {
    return find(point, "return") && !find(point, "syscall");
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    const ast::ProbePointComponent& head = point.components[0];
    if (dynamic_cast<const ast::NumberLit*>(head.arg) && number_arg(head) <= 0) {
      value_error(point, head.arg->loc, "process id must be positive", diags);
      return false;
    }
    for (const ast::ProbePointComponent& c : point.components) {
      if (!dynamic_cast<const ast::StringLit*>(c.arg) || !string_arg(c).empty()) continue;
      value_error(point, c.arg->loc, "empty " + c.functor + " name (expected a name or a path)",
                  diags);
      return false;
    }
    return true;
  }
};

}  // namespace

const ProbeProvider& process_provider() {
  static const ProcessProvider provider;
  return provider;
}

}  // namespace stap
