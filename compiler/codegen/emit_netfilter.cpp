// Netfilter hook probes (ir::NetfilterSpec): one program per probe in
// section "netfilter", which libbpf 1.1 does not know: the loader sets its
// type and attach type (loader/attach/attach_netfilter.cpp).  Its context
// is struct bpf_nf_ctx, two u64 slots (state, skb), read as a trampoline's
// arguments are; its return value is the packet's verdict
// (ProgramContext::Verdict::netfilter).
#include "codegen/emitter.h"

namespace stap::codegen {

bool emit_netfilter_program(ModuleState& ms, ir::Probe& p, const ir::NetfilterSpec&,
                            size_t index, std::string& error) {
  std::string name = "netfilter_" + std::to_string(index);
  ProgramContext context;
  context.registers = ProgramContext::Registers::trampoline;
  context.arg_count = 2;
  context.verdict = ProgramContext::Verdict::netfilter;
  return emit_probe_programs(p, name, error, [&] {
    ProgramEmitter(ms, p, context).emit(name, "netfilter");
  });
}

}  // namespace stap::codegen
