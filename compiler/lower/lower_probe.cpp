// Probe points -> ir::Probe specs: which context runs the body, and what
// the runtime needs to start it (sequence, timer period, trace event).
// kernel.trace points are resolved here, over the running kernel's
// tracefs: one probe per matching event.
#include <string>

#include "elaborate/providers/provider.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

// x86-64 kernels default to CONFIG_HZ=250 (this project's kernel has it),
// used when the driver could not read the target kernel's config.
constexpr int64_t kDefaultHz = 250;

int64_t number_of(const ast::ProbePointComponent& c) {
  auto* n = dynamic_cast<const ast::NumberLit*>(c.arg);
  return n ? n->value : 0;
}

// Nanoseconds per unit of a timer.UNIT(N) point; 0 when not an interval unit.
int64_t unit_ns(const std::string& unit, int64_t hz) {
  if (unit == "s" || unit == "sec") return 1000000000;
  if (unit == "ms" || unit == "msec") return 1000000;
  if (unit == "us" || unit == "usec") return 1000;
  if (unit == "ns" || unit == "nsec") return 1;
  if (unit == "jiffies") return 1000000000 / hz;
  return 0;
}

// Whether a failure to resolve the point must stay silent: the point, or
// any point it was derived through, is optional ('?') or sufficient ('!').
bool optional_point(const DerivedProbe& dp) {
  if (dp.point->optional || dp.point->sufficient) return true;
  for (const ast::ProbePoint* p : dp.decl->derived_from)
    if (p->optional || p->sufficient) return true;
  return false;
}

// "kernel.function.return" for "kernel.function(\"x\").return": the
// names of a point's components, which is what distinguishes its kind.
std::string kind_text(const ast::ProbePoint& point) {
  std::string out;
  for (const ast::ProbePointComponent& c : point.components) {
    if (!out.empty()) out += '.';
    out += c.functor;
  }
  return out;
}

}  // namespace

void Lowerer::unsupported_point(const DerivedProbe& dp) {
  const ast::ProbePointComponent& head = dp.point->components[0];
  error(head.loc,
        "probe point kind '" + kind_text(*dp.point) + "' is not supported yet by this engine",
        "identifier '" + head.functor + "'");
}

void Lowerer::lower_probe(const DerivedProbe& dp) {
  const ast::ProbePoint& point = *dp.point;
  const std::string& family = dp.provider ? dp.provider->name() : std::string();
  const std::string& head = point.components[0].functor;
  ir::Probe probe;
  probe.pp = point.to_string();
  if (family == "begin/end") {
    probe.kind = head == "begin" ? ir::ProbeKind::begin
                 : head == "end" ? ir::ProbeKind::end
                 : head == "error" ? ir::ProbeKind::error
                                   : ir::ProbeKind::never;
    probe.sequence = number_of(point.components[0]);
    probe.context = ir::Context::user;
    lower_body(dp, std::move(probe));
    return;
  }
  if (family == "perf" || (family == "timer" && point.components.size() >= 2 &&
                           point.components[1].functor == "profile")) {
    lower_perf_point(dp);  // lower_perf.cpp
    return;
  }
  if (family == "timer" && point.components.size() >= 2) {
    const ast::ProbePointComponent& unit = point.components[1];
    int64_t hz = options_.kernel_hz > 0 ? options_.kernel_hz : kDefaultHz;
    probe.kind = ir::ProbeKind::timer;
    probe.context = ir::Context::user;
    if (unit.functor == "hz") {
      int64_t n = number_of(unit);
      probe.period_ns = n > 0 ? 1000000000 / n : 0;
    } else {
      int64_t scale = unit_ns(unit.functor, hz);
      probe.period_ns = number_of(unit) * scale;
      if (point.components.size() >= 3 && point.components[2].functor == "randomize")
        probe.randomize_ns = number_of(point.components[2]) * scale;
    }
    lower_body(dp, std::move(probe));
    return;
  }
  if (family == "kernel.trace" && point.components.size() == 2 &&
      point.components[1].functor == "trace") {
    lower_trace_points(dp);
    return;
  }
  if (family == "kernel.function") {
    lower_kfunc_points(dp);
    return;
  }
  if (family == "process" && dp.user_point) {
    lower_uprobe_points(dp);  // lower_uprobe.cpp
    return;
  }
  if (family == "process") {
    lower_process_points(dp);  // lower_process.cpp: begin, end, thread.*, syscall
    return;
  }
  unsupported_point(dp);
}

void Lowerer::lower_trace_points(const DerivedProbe& dp) {
  const ast::ProbePoint& point = *dp.point;
  const ast::ProbePointComponent& head = point.components[0];
  auto* lit = dynamic_cast<const ast::StringLit*>(point.components[1].arg);
  std::string spec = lit ? lit->value : std::string();
  size_t colon = spec.find(':');
  std::string system = colon == std::string::npos ? std::string() : spec.substr(0, colon);
  std::string name = colon == std::string::npos ? spec : spec.substr(colon + 1);
  std::vector<tracefs::Event>* all = nullptr;
  // An optional point resolves to nothing, silently, even without tracefs.
  if (!tracefs_events(all, head.loc, optional_point(dp))) return;
  std::vector<tracefs::Event> matches = tracefs::match_events(*all, system, name);
  if (matches.empty()) {
    if (optional_point(dp)) return;
    // stap's words for a point nothing resolves.
    error(head.loc, "while resolving probe point", "identifier '" + head.functor + "'");
    error({}, "no match");
    return;
  }
  for (const tracefs::Event& e : matches) {
    ir::Probe probe;
    probe.kind = ir::ProbeKind::tracepoint;
    probe.context = ir::Context::kernel;
    probe.system = e.system;
    probe.event = e.name;
    probe.pp = "kernel.trace(\"" + e.system + ":" + e.name + "\")";
    syscall_probe(probe, e);
    lower_body(dp, std::move(probe));
  }
}

// ---------------------------------------------------------------- tracefs

bool Lowerer::tracefs_events(std::vector<tracefs::Event>*& out, SourceLoc loc, bool quiet) {
  if (!tracefs_read_) {
    tracefs_read_ = true;
    std::string why;
    tracefs_root_ = tracefs::find_root(why);
    if (tracefs_root_.empty() || !tracefs::list_events(tracefs_root_, events_, why)) {
      tracefs_root_.clear();
      tracefs_error_ = why;
    }
  }
  if (tracefs_root_.empty()) {
    if (quiet) return false;
    error(loc, "kernel.trace needs the kernel's tracefs: " + tracefs_error_ +
                   " (run as root, or mount it: mount -t tracefs nodev /sys/kernel/tracing)");
    return false;
  }
  out = &events_;
  return true;
}

const tracefs::Format* Lowerer::event_format(const tracefs::Event& e, SourceLoc loc) {
  auto key = std::make_pair(e.system, e.name);
  auto it = formats_.find(key);
  if (it != formats_.end()) return &it->second;
  tracefs::Format format;
  std::string why;
  if (!tracefs::read_format(tracefs_root_, e, format, why)) {
    error(loc, "cannot read the format of trace event " + e.system + ":" + e.name + ": " + why);
    return nullptr;
  }
  return &formats_.emplace(key, std::move(format)).first->second;
}

}  // namespace stap::lower
