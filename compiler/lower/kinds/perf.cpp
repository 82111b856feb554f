// Sampling probes -> ir::PerfSpec: a perf event on every online CPU (or
// on the tasks of .process) whose overflow runs the body in the kernel.
//
//   timer.profile.tick             the CPU clock, sampled once a tick (1/HZ s),
//                                  which is what stap's profile hook fires at
//   perf.type(T).config(C)         sampled every 1,000,000 events (stap's default)
//     .sample(N)                   ... every N events
//     .hz(N)                       ... N times a second (the kernel adapts the period)
//     .process("P")                counting only in P's processes: the runtime
//                                  opens the event on each of their tasks
//                                  (loader/attach_perf_task.cpp); the body
//                                  runs only while the image is P's (a child
//                                  that execs another program keeps the
//                                  inherited event, not the probe)
//     .process                     counting only in the -c/-x target's
//                                  process tree (stap: the -c command's
//                                  program); PerfSpec::target_only
//
// timer.profile, timer.profile.freq.hz(N) and the named perf.sw/hw/hw_cache
// events are tapset aliases over these (tapsets/timers.stp, perf.stp).
// pp() is stap's rewritten point: perf.type(T).config(C).sample(N), N
// being the frequency for .hz(N), as stap writes it;
// .process adds .process("PATH"), P's canonical path, as stap does.
#include <string>

#include "debuginfo/binary_path.h"
#include "lower/kinds/kinds.h"

namespace stap::lower {

namespace {

// x86-64 kernels default to CONFIG_HZ=250 when the config is unknown.
constexpr int64_t kDefaultTickHz = 250;
constexpr int64_t kPerfTypeSoftware = 1;   // PERF_TYPE_SOFTWARE
constexpr int64_t kSwCpuClock = 0;         // PERF_COUNT_SW_CPU_CLOCK
// stap's period for a perf point without .sample or .hz (tapset-perfmon.cxx).
constexpr int64_t kDefaultPerfPeriod = 1000000;

int64_t number_arg_of(const ast::ProbePointComponent& c) {
  auto* n = dynamic_cast<const ast::NumberLit*>(c.arg);
  return n ? n->value : 0;
}

const ast::ProbePointComponent* component(const ast::ProbePoint& p, const char* name) {
  for (const ast::ProbePointComponent& c : p.components)
    if (c.functor == name) return &c;
  return nullptr;
}

// .process("P") or .process: the probe's scope in `spec` (P's path, or
// the -c/-x target); false after an error.
bool scope_to_process(Lowerer& l, const ast::ProbePointComponent& c, ir::PerfSpec& spec) {
  auto* name = dynamic_cast<const ast::StringLit*>(c.arg);
  if (!name) {
    spec.target_only = true;
    return true;
  }
  std::string why;
  spec.process = debuginfo::find_executable(name->value, why);
  if (spec.process.empty()) {
    l.error(c.loc, why.empty() ? "cannot find executable '" + name->value + "'" : why,
            "identifier 'process'");
    return false;
  }
  return true;
}

// A perf probe's body: no target variables; with .process("P") it runs
// only while the sampled task runs P's image (its event is inherited by
// the children of P's processes, also by those that exec another program).
class PerfBody : public BodyContext {
 public:
  PerfBody(Lowerer& l, std::string image, SourceLoc loc)
      : BodyContext(l), image_(std::move(image)), loc_(loc) {}

  ir::Node* guard(ir::Node* body, ir::Probe& probe) override {
    if (image_.empty()) return body;
    ir::Node* runs = runs_image(l_, image_, probe.slots, loc_);
    if (!runs) {
      l_.error(loc_, "cannot stat " + image_ + " to scope the perf probe to it",
               "identifier 'process'");
      return body;
    }
    ir::Node* guarded = l_.make(ir::Op::if_);
    guarded->kids = {runs, body, l_.nop()};
    ir::Node* block = l_.make(ir::Op::block);
    block->kids.push_back(guarded);
    return block;
  }

 private:
  std::string image_;
  SourceLoc loc_;
};

class PerfLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;
  void lower(const DerivedProbe& dp) override;
};

void PerfLowering::lower(const DerivedProbe& dp) {
  const ast::ProbePoint& point = *dp.point;
  ir::Probe probe;
  probe.context = ir::Context::kernel;
  ir::PerfSpec spec;
  if (point.components[0].functor == "timer") {  // timer.profile.tick
    int64_t hz = l_.options().kernel_hz > 0 ? l_.options().kernel_hz : kDefaultTickHz;
    spec.type = kPerfTypeSoftware;
    spec.config = kSwCpuClock;
    spec.period = 1000000000 / hz;  // cpu-clock counts nanoseconds
    probe.pp = "timer.profile.tick";
    probe.spec = spec;
    PerfBody context(l_, "", point.components[0].loc);
    l_.lower_body(dp, std::move(probe), context);
    return;
  }
  if (const ast::ProbePointComponent* c = component(point, "counter")) {
    l_.limitation(c->loc,
             "perf probes with .counter are not supported yet by this engine: sample the event "
             "and count in the body",
             "identifier 'counter'");
    return;
  }
  const ast::ProbePointComponent* process = component(point, "process");
  if (process && !scope_to_process(l_, *process, spec)) return;
  spec.type = number_arg_of(point.components[1]);
  spec.config = number_arg_of(point.components[2]);
  spec.period = kDefaultPerfPeriod;
  if (const ast::ProbePointComponent* c = component(point, "sample")) {
    spec.period = number_arg_of(*c);
  } else if (const ast::ProbePointComponent* h = component(point, "hz")) {
    spec.period = number_arg_of(*h);
    spec.freq = true;
  }
  probe.pp = "perf.type(" + std::to_string(spec.type) + ").config(" +
             std::to_string(spec.config) + ").sample(" + std::to_string(spec.period) + ")";
  if (process) probe.pp += spec.process.empty() ? ".process" : ".process(\"" + spec.process + "\")";
  std::string image = spec.process;
  probe.spec = spec;
  PerfBody context(l_, image, process ? process->loc : point.components[0].loc);
  l_.lower_body(dp, std::move(probe), context);
}

}  // namespace

std::unique_ptr<KindLowering> make_perf_lowering(Lowerer& l) {
  return std::make_unique<PerfLowering>(l);
}

}  // namespace stap::lower
