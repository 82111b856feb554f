// Kernel trace events: kernel.trace("[sys:]name") (wildcards allowed in
// both parts), their fields from tracefs.  (kernel.tracepoint("name"), the
// typed BTF tracepoints, is btf_tracepoint.cpp's.)  Which events exist is
// known only from tracefs on the target kernel, so pass 2 checks the shape
// and keeps the point for lowering's resolution.
#include <algorithm>
#include <utility>

#include "base/syscall_table.h"
#include "base/tracefs.h"
#include "elaborate/providers/provider.h"
#include "kernel/trace_catalog.h"

namespace stap {

namespace {

class TracepointProvider : public ProbeProvider {
 public:
  TracepointProvider()
      : ProbeProvider("kernel.trace", {"kernel.trace(string)", "kernel.trace(string).maxactive(number)"},
                      /*resolved_later=*/true) {}

  // The tracepoint's fields ($prev, $next ...), from its format or BTF.
  bool has_target_vars(const ast::ProbePoint&) const override { return true; }

  // A system call's exit ("syscalls:sys_exit_NAME", "raw_syscalls:sys_exit")
  // has its entry: @entry(expr) is computed at the call's entry, as in
  // stap's syscall.NAME.return.  Other events have no entry.
  bool has_entry_values(const ast::ProbePoint& point) const override {
    if (point.components.size() < 2) return false;
    const auto* lit = dynamic_cast<const ast::StringLit*>(point.components[1].arg);
    if (!lit) return false;
    const std::string& v = lit->value;
    return v.starts_with("syscalls:sys_exit_") || v == "raw_syscalls:sys_exit";
  }

  bool matches(const ast::ProbePoint& point) const override {
    return point.components.size() >= 2 && point.components[0].functor == "kernel" &&
           point.components[1].functor == "trace";
  }

  // A field is a string when it is one in every event the point matches
  // (char arrays, __data_loc char[]); pass 3 checks each use against the
  // format again.  Without tracefs (not root, -p2 on another machine) the
  // type is left to inference, as before.
  ast::Type target_var_type(const ast::ProbePoint& point, const std::string& name) const override {
    if (point.components.size() < 2 || point.components[1].functor != "trace") return ast::Type::unknown;
    const auto* lit = dynamic_cast<const ast::StringLit*>(point.components[1].arg);
    if (!lit) return ast::Type::unknown;
    const std::vector<tracefs::Format>& formats = formats_of(lit->value);
    ast::Type type = ast::Type::unknown;
    for (const tracefs::Format& f : formats) {
      const tracefs::Field* field = f.find(name);
      if (!field) continue;
      ast::Type t = field->is_string ? ast::Type::string : ast::Type::long_;
      if (type != ast::Type::unknown && type != t) return ast::Type::unknown;
      type = t;
    }
    return type;
  }

  bool may_match(const ast::ProbePoint& point) const override {
    std::vector<tracefs::Event> events;
    return !matching_events(point, events) || !events.empty();
  }

  std::vector<std::string> list_points(const ast::ProbePoint& point) const override {
    std::vector<tracefs::Event> events;
    if (!matching_events(point, events)) return {point.to_string()};
    std::vector<std::string> out;
    for (const tracefs::Event& e : events)
      out.push_back("kernel.trace(\"" + e.system + ":" + e.name + "\")");
    return out;
  }

  // stap -L: the event's own fields (not the common_* header, which
  // scripts do not read), with the C type its format declares, written as
  // stap writes types ("char[16]", "const char*").  A pattern naming
  // several events lists the fields all of them have alike.
  std::vector<std::pair<std::string, std::string>> target_var_list(
      const ast::ProbePoint& point) const override {
    const auto* lit = dynamic_cast<const ast::StringLit*>(point.components[1].arg);
    if (!lit || point.components[1].functor != "trace") return {};
    std::vector<std::pair<std::string, std::string>> common;
    bool first = true;
    for (const tracefs::Format& f : formats_of(lit->value)) {
      std::vector<std::pair<std::string, std::string>> vars = event_vars(f);
      if (!first)
        std::erase_if(vars, [&](const auto& v) {
          return std::find(common.begin(), common.end(), v) == common.end();
        });
      common = std::move(vars);
      first = false;
    }
    return common;
  }

  // One event's variables.  A syscall event lists the call's arguments
  // as stap lists a syscall's (the record's __syscall_nr is not one); its
  // exit event lists the entry's arguments, which stay readable there
  // when the engine knows the call's number, then `$return` (the
  // record's `ret`), as stap lists a .return probe's.
  static std::vector<std::pair<std::string, std::string>> event_vars(const tracefs::Format& f) {
    bool syscall = f.system == "syscalls";
    bool exit = syscall && f.name.starts_with("sys_exit_");
    std::vector<std::pair<std::string, std::string>> vars;
    auto add_arguments = [&](const tracefs::Format& event) {
      for (const tracefs::Field& field : event.fields)
        if (!field.is_common() && !(syscall && field.name == "__syscall_nr"))
          vars.emplace_back(field.name, field_c_type(field));
    };
    if (!exit) {
      add_arguments(f);
      return vars;
    }
    std::string call = f.name.substr(std::string_view("sys_exit_").size());
    if (syscalls::number(call) >= 0)
      for (const tracefs::Format& entry : formats_of("syscalls:sys_enter_" + call))
        add_arguments(entry);
    if (const tracefs::Field* ret = f.find("ret")) vars.emplace_back("return", field_c_type(*ret));
    return vars;
  }

  // "char prev_comm[16]" -> "char[16]", "__data_loc char[] name" ->
  // "char[]", "const char * filename" -> "const char*".
  static std::string field_c_type(const tracefs::Field& field) {
    if (field.is_data_loc) return field.element_type + "[]";
    std::string type = field.type;
    for (size_t at = type.find(" *"); at != std::string::npos; at = type.find(" *"))
      type.erase(at, 1);
    if (field.array_length > 0) return type + "[" + std::to_string(field.array_length) + "]";
    if (field.array_length == 0) return type + "[]";
    return type;
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    const ast::ProbePointComponent& c = point.components[1];
    const std::string& name = string_arg(c);
    // "sys:" alone, ":name" or "" name nothing.
    size_t colon = name.find(':');
    bool bad = name.empty() || colon == 0 ||
               (colon != std::string::npos && colon + 1 == name.size());
    if (bad) {
      value_error(point, c.arg->loc,
                  "invalid tracepoint string provided (expected \"[system:]name\")", diags);
      return false;
    }
    // .maxactive(N) sizes a kretprobe's instances.  stap's syscall.NAME.return
    // is a kretprobe, so scripts write syscall.open.return.maxactive(10);
    // here that alias is the call's exit event, which misses no return, and
    // the suffix is accepted and has nothing to size.  Other events have no
    // return to size.
    const ast::ProbePointComponent* max = find(point, "maxactive");
    if (max && !name.starts_with("syscalls:sys_exit_") && name != "raw_syscalls:sys_exit") {
      value_error(point, max->loc,
                  "maxactive applies to return probes: " + name + " is not a system call's exit",
                  diags);
      return false;
    }
    return true;
  }

 private:
  // The events a kernel.trace point names on this system; false when that
  // cannot be told (no tracefs, not root).
  static bool matching_events(const ast::ProbePoint& point, std::vector<tracefs::Event>& out) {
    const auto* lit = dynamic_cast<const ast::StringLit*>(point.components[1].arg);
    if (!lit || point.components[1].functor != "trace") return false;
    return kernel::running_trace_catalog().matching(lit->value, out);
  }

  static const std::vector<tracefs::Format>& formats_of(const std::string& spec) {
    return kernel::running_trace_catalog().formats_matching(spec);
  }
};

}  // namespace

const ProbeProvider& tracepoint_provider() {
  static const TracepointProvider provider;
  return provider;
}

}  // namespace stap
