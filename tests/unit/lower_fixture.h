// Scripts through passes 1-3 for the lowering tests (test_lower,
// test_kfunc_resolve, test_kfunc_target): the Frontend with the source
// tapsets, then lower_program, with every message collected.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <sstream>
#include <string>

#include "driver/frontend.h"
#include "elaborate/providers/provider.h"
#include "ir/print.h"
#include "kernel/trace_catalog.h"
#include "lower/lower.h"

namespace stap::test {

struct Lowered {
  std::unique_ptr<Frontend> frontend;
  ir::Module module;
  bool elaborated = false;  // passes 1-2 succeeded
  bool ok = false;          // and pass 3
  std::string messages;
  std::string dump() const { return ir::print_module(module); }
};

// `will_run` as the driver sets it for -p4 and -p5 (kernel.function points
// then also need a mechanism the kernel offers).
inline Lowered lower_script(const std::string& script, LowerOptions options = {},
                            bool will_run = false) {
  Lowered out;
  FrontendConfig config;
  config.tapset_dirs = {STAP_SOURCE_TAPSET_DIR};
  config.elaborate.global_var_display = false;
  out.frontend = std::make_unique<Frontend>(config);
  Frontend& fe = *out.frontend;
  REQUIRE(fe.load_tapsets());
  REQUIRE(fe.parse_script("<input>", script));
  fe.program().will_run = will_run;
  out.elaborated = fe.elaborate();
  if (out.elaborated) {
    options.script_name = "<input>";
    if (!options.btf) options.btf = running_kernel_btf_if_loaded;  // as the driver
    if (!options.trace_events) options.trace_events = &kernel::running_trace_catalog();
    out.ok = lower_program(fe.program(), options, fe.sources(), fe.diagnostics(), out.module);
  }
  std::ostringstream messages;
  fe.diagnostics().flush(messages);
  out.messages = messages.str();
  return out;
}

// A probe's spec of the kind the test expects (a failed check otherwise).
inline const ir::KfuncSpec& kfunc_of(const ir::Probe& p) {
  REQUIRE(p.is<ir::KfuncSpec>());
  return std::get<ir::KfuncSpec>(p.spec);
}
inline const ir::UprobeSpec& uprobe_of(const ir::Probe& p) {
  REQUIRE(p.is<ir::UprobeSpec>());
  return std::get<ir::UprobeSpec>(p.spec);
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The first node of `op` in a pre-order walk, or null.
inline const ir::Node* find_op(const ir::Node* n, ir::Op op) {
  if (!n) return nullptr;
  if (n->op == op) return n;
  for (const ir::Node* k : n->kids)
    if (const ir::Node* f = find_op(k, op)) return f;
  return nullptr;
}

}  // namespace stap::test
