#include "driver/backend.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>

#include "elaborate/providers/provider.h"
#include "kernel/trace_catalog.h"
#include "lower/lower.h"

namespace stap {

namespace {

bool parse_limit(const std::string& name, const std::string& text, int64_t min, int64_t max,
                 int64_t& out, std::string& error) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (errno != 0 || end == text.c_str() || *end != '\0' || v < min || v > max) {
    error = "Invalid -D " + name + "=" + text + ": expected a number from " +
            std::to_string(min) + " to " + std::to_string(max) + ".";
    return false;
  }
  out = v;
  return true;
}

}  // namespace

bool limits_from_defines(const std::map<std::string, std::string>& defines, ir::Limits& limits,
                         std::string& error) {
  struct Limit {
    const char* name;
    int64_t ir::Limits::*field;
    int64_t min, max;
  };
  // MAXSTRINGLEN is bounded by the BPF side's per-CPU scratch space and
  // the ring buffer's record size; MAXMAPENTRIES by what a map may hold.
  static const Limit kLimits[] = {
      {"MAXSTRINGLEN", &ir::Limits::maxstringlen, 8, 65536},
      {"MAXMAPENTRIES", &ir::Limits::maxmapentries, 1, 1 << 24},
      {"MAXERRORS", &ir::Limits::maxerrors, 0, INT32_MAX},
      {"MAXACTION", &ir::Limits::maxaction, 1, INT32_MAX},
      // The kernel's perf_event_max_stack default bounds a stack map's depth.
      {"MAXBACKTRACE", &ir::Limits::maxbacktrace, 1, 127},
  };
  for (const Limit& l : kLimits) {
    auto it = defines.find(l.name);
    if (it != defines.end() && !parse_limit(l.name, it->second, l.min, l.max, limits.*l.field, error))
      return false;
  }
  return true;
}

bool lower_pass(const Program& program, const BackendConfig& config, const SourceManager& sources,
                Diagnostics& diags, ir::Module& out) {
  LowerOptions options;
  options.limits = config.limits;
  options.script_name = config.script_name;
  options.kernel_hz = config.kernel_hz;
  options.checking = config.checking;
  // The kernel facts pass 3 reads: the running kernel's, as pass 2's.
  options.btf = running_kernel_btf_if_loaded;
  options.trace_events = &kernel::running_trace_catalog();
  if (!lower_program(program, options, sources, diags, out)) return false;
  out.timing = config.timing;
  return true;
}

bool apply_global_settings(const std::vector<std::string>& settings, ir::Module& module,
                           std::string& error) {
  for (const std::string& setting : settings) {
    size_t eq = setting.find('=');
    std::string name = setting.substr(0, eq), value = setting.substr(eq + 1);
    ir::Global* global = nullptr;
    for (ir::Global& g : module.globals)
      if (g.name == name) global = &g;
    if (!global || !global->in_globals_map()) {
      error = "-G " + setting + ": the script has no scalar global '" + name + "'.";
      return false;
    }
    if (global->type == ir::Type::string) {
      global->init_str = value;
      continue;
    }
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(value.c_str(), &end, 0);
    if (errno != 0 || end == value.c_str() || *end != '\0') {
      error = "-G " + setting + ": '" + value + "' is no number for the long global '" + name + "'.";
      return false;
    }
    global->init_num = v;
  }
  return true;
}

CodegenResult codegen_pass(ir::Module& module, bool want_ir_text) {
  CodegenOptions options;
  options.want_ir_text = want_ir_text;
  return generate_object(module, options);
}

}  // namespace stap
