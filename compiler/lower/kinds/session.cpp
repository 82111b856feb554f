// begin, end, error and never probes (ir::SessionSpec): run in user
// context by the runtime, in sequence order (begin(-1) before begin).
#include "lower/kinds/kinds.h"

namespace stap::lower {

namespace {

class SessionLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;

  void lower(const DerivedProbe& dp) override {
    const ast::ProbePointComponent& head = dp.point->components[0];
    ir::SessionSpec spec;
    spec.event = head.functor == "begin" ? ir::SessionSpec::Event::begin
                 : head.functor == "end" ? ir::SessionSpec::Event::end
                 : head.functor == "error" ? ir::SessionSpec::Event::error
                                           : ir::SessionSpec::Event::never;
    auto* n = dynamic_cast<const ast::NumberLit*>(head.arg);
    spec.sequence = n ? n->value : 0;
    ir::Probe probe;
    probe.pp = dp.point->to_string();
    probe.context = ir::Context::user;
    probe.spec = spec;
    BodyContext context(l_);  // no probe context to read
    l_.lower_body(dp, std::move(probe), context);
  }
};

}  // namespace

std::unique_ptr<KindLowering> make_session_lowering(Lowerer& l) {
  return std::make_unique<SessionLowering>(l);
}

}  // namespace stap::lower
