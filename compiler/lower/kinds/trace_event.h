// The body of a trace-event probe (kernel.trace("system:event"), which is
// a TracepointSpec, or a SyscallSpec for the system calls the raw
// sys_enter/sys_exit dispatch serves): its target variables are the
// event's fields, read from its record as the tracefs format lays it out
// (trace_event_vars.cpp), or, for system calls, from the thread's saved
// registers (syscall.cpp).
#pragma once

#include "lower/kinds/kinds.h"

namespace stap::lower {

class TraceEventBody : public BodyContext {
 public:
  // `event`: the format of the probe's event (null after an error).
  TraceEventBody(Lowerer& l, const tracefs::Format* event, const ir::Probe& probe, SourceLoc loc);

  ir::Node* target(ast::TargetSymbol& n, bool any_type) override;
  std::optional<bool> target_exists(const ast::Expr& e) override;
  // A system call's exit read through the saved registers: @entry(expr)
  // runs at the call's entry (syscall.cpp).
  bool at_return() const override { return syscall_raw_ && syscall_exit_; }
  std::unique_ptr<EntryProbe> entry_probe(const ir::Probe& ret) override;

 private:
  ir::Node* field_read(const tracefs::Field& f, const ast::TargetSymbol& n);
  ir::Node* pretty(ir::Node* read);
  ir::Node* all_fields(const tracefs::Format& event, const ast::TargetSymbol& n);
  // System call fields (syscall.cpp): a field of the event, or in an exit
  // probe also `return` and the entry's arguments (owner: the format it
  // belongs to); and the read this probe really does for it.
  const tracefs::Field* syscall_field(const std::string& name, const tracefs::Format*& owner);
  ir::Node* syscall_read(ir::Node* read, const tracefs::Field& f, const tracefs::Format& owner,
                         const ast::TargetSymbol& n);

  const tracefs::Format* event_;
  // A system call event: its direction, whether it is read through the
  // saved registers (a SyscallSpec), and for an exit the entry event's
  // format, whose arguments stay readable there.
  bool syscall_raw_ = false;
  bool syscall_exit_ = false;
  const tracefs::Format* entry_event_ = nullptr;
  SourceLoc loc_;
};

// The spec of a probe on trace event `e` (syscall.cpp): a SyscallSpec
// where the raw dispatch can serve it (a system call of known number),
// else a TracepointSpec.
ir::ProbeSpec trace_event_spec(const tracefs::Event& e);

}  // namespace stap::lower
