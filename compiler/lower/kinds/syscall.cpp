// System call probes: kernel.trace("syscalls:sys_enter_NAME"),
// ("syscalls:sys_exit_NAME"), ("raw_syscalls:sys_enter"/"sys_exit"), which
// the syscall.* tapset aliases are written over.
//
// Where the call's number is known (base/syscall_table.h) such a probe
// becomes an ir::SyscallSpec: it runs from the raw sys_enter/sys_exit
// tracepoint, which one program per direction serves for any number of
// calls, and attaching or detaching it costs one link instead of one
// perf event per call (each perf-event detach waits for RCU grace periods:
// seconds for syscall.*).  Its fields are then read from the thread's saved
// user registers, which the call leaves alone, so an exit probe can read
// the entry arguments too, as stap's syscall.NAME.return allows ($fd in
// syscall.read.return).
//
// Either way an argument reads with its declared C type: `int dfd` is
// AT_FDCWD (-100), not the register's 0xffffff9c the format's 8-byte field
// would give.
#include <string_view>

#include "base/syscall_table.h"
#include "elaborate/typecheck.h"
#include "lower/kinds/trace_event.h"
#include "lower/trace_events.h"

namespace stap::lower {

namespace {

constexpr std::string_view kEnterPrefix = "sys_enter_";
constexpr std::string_view kExitPrefix = "sys_exit_";

// The record layout every syscall event shares: the common header, then
// the number at 8, then the arguments (entry) or the return value (exit)
// from 16 in 8-byte slots.
constexpr uint32_t kNrOffset = 8;
constexpr uint32_t kFirstSlot = 16;

bool is_syscall_event(const std::string& system, const std::string& event) {
  if (system == "raw_syscalls") return event == "sys_enter" || event == "sys_exit";
  return system == "syscalls" &&
         (event.starts_with(kEnterPrefix) || event.starts_with(kExitPrefix));
}

bool is_exit_event(const std::string& event) { return event.starts_with("sys_exit"); }

// The call's name, "" for the raw events.
std::string call_name(const std::string& event) {
  if (event.starts_with(kEnterPrefix)) return event.substr(kEnterPrefix.size());
  if (event.starts_with(kExitPrefix)) return event.substr(kExitPrefix.size());
  return {};
}

struct Width {
  uint32_t size;
  bool is_signed;
};

// The width of an argument of C type `type` as the call declares it
// (SYSCALL_DEFINE's types, which the format keeps as text); pointers and
// the 8-byte types read whole.
Width declared_width(std::string type) {
  if (type.starts_with("const ")) type = type.substr(6);
  if (type.find('*') != std::string::npos) return {8, false};
  static const struct {
    std::string_view name;
    Width width;
  } kTypes[] = {
      {"int", {4, true}},          {"unsigned int", {4, false}}, {"unsigned", {4, false}},
      {"pid_t", {4, true}},        {"uid_t", {4, false}},        {"gid_t", {4, false}},
      {"old_uid_t", {2, false}},   {"old_gid_t", {2, false}},    {"umode_t", {2, false}},
      {"clockid_t", {4, true}},    {"timer_t", {4, true}},       {"key_serial_t", {4, true}},
      {"mqd_t", {4, true}},        {"rwf_t", {4, true}},         {"qid_t", {4, false}},
      {"u32", {4, false}},         {"__u32", {4, false}},        {"s32", {4, true}},
      {"__s32", {4, true}},        {"u16", {2, false}},          {"unsigned short", {2, false}},
      {"short", {2, true}},        {"u8", {1, false}},           {"unsigned char", {1, false}},
      {"char", {1, true}},         {"long", {8, true}},          {"off_t", {8, true}},
      {"loff_t", {8, true}},       {"__kernel_old_time_t", {8, true}},
  };
  for (const auto& t : kTypes)
    if (t.name == type) return t.width;
  return {8, false};  // unsigned long, size_t, u64, aio_context_t, ...
}

}  // namespace

ir::ProbeSpec trace_event_spec(const tracefs::Event& e) {
  ir::TracepointSpec tracepoint{e.system, e.name};
  if (!is_syscall_event(e.system, e.name)) return tracepoint;
  int64_t nr = -1;
  if (e.system == "syscalls") {
    nr = syscalls::number(call_name(e.name));
    if (nr < 0) return tracepoint;  // newer than this engine's table: its own tracepoint
  }
  return ir::SyscallSpec{e.system, e.name, nr};
}

TraceEventBody::TraceEventBody(Lowerer& l, const tracefs::Format* event, const ir::Probe& probe,
                               SourceLoc loc)
    : BodyContext(l), event_(event), loc_(loc) {
  const ir::SyscallSpec* sc = probe.as<ir::SyscallSpec>();
  const ir::TracepointSpec* tp = probe.as<ir::TracepointSpec>();
  const std::string& system = sc ? sc->system : tp ? tp->system : "";
  const std::string& name = sc ? sc->event : tp ? tp->event : "";
  if (!is_syscall_event(system, name)) return;
  syscall_raw_ = sc != nullptr;
  syscall_exit_ = is_exit_event(name);
  std::string call = call_name(name);
  std::string entry = call.empty() ? "sys_enter" : std::string(kEnterPrefix) + call;
  if (syscall_exit_) entry_event_ = l.trace_events().format({system, entry}, loc);
}

// The entry probe of an exit's @entry values: the same call's sys_enter,
// served by the raw dispatch as the exit is, so both see one call of the
// thread (a thread is in one system call at a time).
std::unique_ptr<EntryProbe> TraceEventBody::entry_probe(const ir::Probe& ret) {
  const ir::SyscallSpec* exit = ret.as<ir::SyscallSpec>();
  if (!exit || !entry_event_) return nullptr;
  auto e = std::make_unique<EntryProbe>();
  ir::SyscallSpec spec = *exit;
  spec.event = "sys_enter" + exit->event.substr(std::string_view("sys_exit").size());
  e->probe.context = ir::Context::kernel;
  e->probe.spec = spec;
  e->probe.pp = ret.pp;
  if (e->probe.pp.ends_with(".return")) e->probe.pp.resize(e->probe.pp.size() - 7);
  e->context = std::make_unique<TraceEventBody>(l_, entry_event_, e->probe, loc_);
  return e;
}

// A field of the probe's event; in an exit probe also `return` (the value
// stap names $return) and the entry's arguments.  `owner` is set to the
// format the field belongs to.
const tracefs::Field* TraceEventBody::syscall_field(const std::string& name,
                                             const tracefs::Format*& owner) {
  owner = event_;
  if (const tracefs::Field* f = owner ? owner->find(name) : nullptr) return f;
  if (!syscall_exit_) return nullptr;
  if (name == "return") return owner ? owner->find("ret") : nullptr;
  owner = entry_event_;
  if (!owner || call_name(owner->name).empty()) return nullptr;  // raw: no named arguments
  const tracefs::Field* f = owner->find(name);
  return f && f->offset >= kFirstSlot ? f : nullptr;
}

// `read` is the record read field_read() made for `f` of `owner`; returns
// the read this probe really does.
ir::Node* TraceEventBody::syscall_read(ir::Node* read, const tracefs::Field& f,
                                const tracefs::Format& owner, const ast::TargetSymbol& n) {
  if (!read || read->op != ir::Op::tp_field || !is_syscall_event(owner.system, owner.name))
    return read;
  bool from_entry = &owner == entry_event_;
  bool is_argument = read->a >= kFirstSlot && !is_exit_event(owner.name);
  if (is_argument && owner.system == "syscalls") {
    Width w = declared_width(f.type);
    read->b = w.size;
    read->c = w.is_signed ? 1 : 0;
  }
  if (!syscall_raw_) {
    if (from_entry) {
      l_.limitation(n.loc,
            "entry argument '" + n.name + "' of " + call_name(owner.name) +
                " cannot be read in its return probe: this engine does not know the call's "
                "number (it is newer than the engine's syscall table)",
            describe_expr(n));
    }
    return read;
  }
  ir::Node* sys;
  if (read->a == kNrOffset) {
    sys = l_.make(ir::Op::sys_nr, ir::Type::long_);
  } else if (is_argument) {
    sys = l_.make(ir::Op::sys_arg, ir::Type::long_);
    sys->a = (read->a - kFirstSlot) / 8;
    sys->b = read->b;
    sys->c = read->c;
  } else {
    sys = l_.make(ir::Op::sys_ret, ir::Type::long_);
  }
  return sys;
}

}  // namespace stap::lower
