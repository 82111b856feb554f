// User space: process("PATH"|PID) or bare process (every process, or the
// -c/-x target), with .begin/.end/.thread.begin/.thread.end/.syscall
// [.return] (scheduler and syscall tracepoints filtered in BPF), and the
// uprobe forms .function(PAT)[...], .statement(...), .plt, .mark("name"),
// .provider("p").mark("name"), optionally under .library("L").  Binaries,
// symbols and SDT notes are read from the target's ELF later, so pass 2
// checks the shape and keeps the point for the provider's resolution.
#include <memory>

#include "ast/clone.h"
#include "debuginfo/binary_path.h"
#include "debuginfo/process_points.h"
#include "elaborate/program.h"
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

// What pass 2 resolves of a process point: a code point as a pattern over
// the binary, or a refusal (a form not built yet, located at its
// component); a life event (begin, end, syscall) is neither.
struct CodePoint {
  bool is_code = false;
  debuginfo::ProcessPattern pattern;
  std::string refusal;
  SourceLoc refusal_loc;
};

CodePoint read_code_point(const ast::ProbePoint& point) {
  CodePoint out;
  debuginfo::ProcessPattern& p = out.pattern;
  const auto& comps = point.components;
  auto refuse = [&](const ast::ProbePointComponent& c, std::string why) {
    out.refusal = std::move(why);
    out.refusal_loc = c.loc;
    return out;
  };
  auto number = [](const ast::ProbePointComponent& c) {
    auto* n = dynamic_cast<const ast::NumberLit*>(c.arg);
    return n ? n->value : 0;
  };
  auto string = [](const ast::ProbePointComponent& c) {
    auto* s = dynamic_cast<const ast::StringLit*>(c.arg);
    return s ? s->value : std::string();
  };
  size_t i = 1;
  if (i < comps.size() && comps[i].functor == "library") p.library = string(comps[i++]);
  if (i < comps.size() && comps[i].functor == "provider") p.provider = string(comps[i++]);
  if (i >= comps.size()) return out;
  const ast::ProbePointComponent& kind = comps[i++];
  if (kind.functor != "function" && kind.functor != "statement" && kind.functor != "plt" &&
      kind.functor != "mark") {
    if (kind.functor == "insn") return refuse(kind, "process(...).insn probes are not supported by this engine");
    return out;  // begin, end, thread, syscall
  }
  out.is_code = true;
  if (comps[0].arg && dynamic_cast<const ast::NumberLit*>(comps[0].arg)) p.pid = number(comps[0]);
  else if (comps[0].arg) p.process = string(comps[0]);
  else
    return refuse(comps[0], "a bare process." + kind.functor +
                                " probe needs the program: write process(\"PATH\") or process(PID), "
                                "or give one with -c or -x");
  p.kind = kind.functor;
  if (dynamic_cast<const ast::NumberLit*>(kind.arg)) {
    p.has_address = true;
    p.address = static_cast<uint64_t>(number(kind));
  } else {
    p.spec = string(kind);
  }
  for (; i < comps.size(); ++i) {
    const std::string& f = comps[i].functor;
    if (f == "callee" || f == "callees") {
      p.callee = f == "callee" ? string(comps[i]) : "*";
      p.callee_depth = f == "callee" || !comps[i].arg ? 1 : number(comps[i]);
      if (p.callee_depth < 1)
        return refuse(comps[i], ".callees(N) only acceptable for N >= 1");
      continue;
    }
    if (f == "call" || f == "return" || f == "inline" || f == "exported" || f == "absolute") {
      if (p.suffix.empty() || (p.suffix == ".absolute" && f == "return")) p.suffix = "." + f;
      continue;
    }
    return refuse(comps[i], "process probes with ." + f + " are not supported by this engine");
  }
  if (p.kind == "plt" && p.suffix == ".return") p.suffix = ".return";
  return out;
}

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

  // A bare code point (process.function("F"), process.plt ...) under -c
  // or -x probes the target's program, as in stap: it becomes
  // process("PROGRAM").  Without either it stays bare, and resolution says
  // that it needs the program.  A glob path is a point per file it
  // names (none: the point as written, which resolution reports).
  std::vector<ast::ProbePoint*> expand_point(ast::ProbePoint& point, const ResolveRequest& request,
                                             ast::Arena& arena) const override {
    ast::ProbePointComponent& head = point.components[0];
    auto path_lit = [&](const std::string& value) {
      auto* lit = arena.make<ast::StringLit>();
      lit->value = value;
      lit->loc = head.arg ? head.arg->loc : head.loc;
      return lit;
    };
    if (!head.arg && !request.target_program.empty() && read_code_point(point).is_code)
      head.arg = path_lit(request.target_program);
    auto* path = dynamic_cast<const ast::StringLit*>(head.arg);
    if (!path || !debuginfo::is_program_glob(path->value)) return {&point};
    std::vector<std::string> files = debuginfo::glob_programs(path->value);
    if (files.empty()) return {&point};
    std::vector<ast::ProbePoint*> out;
    for (const std::string& file : files) {
      ast::ProbePoint* copy = ast::clone(&point, arena);
      copy->components[0].arg = path_lit(file);
      out.push_back(copy);
    }
    return out;
  }

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

  // stap -L: a system call probe's registers (stap lists them for every
  // task-finder point; only .syscall probes can read them here).
  std::vector<std::pair<std::string, std::string>> target_var_list(
      const ast::ProbePoint& point) const override {
    if (!find(point, "syscall")) return {};
    std::vector<std::pair<std::string, std::string>> vars{{"syscall", "long"}};
    for (int i = 1; i <= 6; ++i) vars.emplace_back("arg" + std::to_string(i), "long");
    return vars;
  }

  // Code points: the sites in the binary (debuginfo/process_points.h),
  // kept in out.user_point for lowering.  Life events resolve later.
  size_t resolve(const ast::ProbePoint& point, const ResolveRequest& request, DerivedProbe& out,
                 Diagnostics& diags) const override {
    CodePoint code = read_code_point(point);
    if (!code.refusal.empty()) {
      if (!request.quiet) value_error(point, code.refusal_loc, code.refusal, diags);
      return 0;
    }
    if (!code.is_code) return 1;
    auto resolved = std::make_shared<debuginfo::ResolvedPoint>();
    std::string why;
    bool ok = debuginfo::resolve_process_point(code.pattern, *resolved, why);
    if (!ok || resolved->sites.empty()) {
      if (request.quiet) return 0;
      const ast::ProbePointComponent& head = point.components[0];
      diags.semantic_error(head.loc, "while resolving probe point", "identifier '" + head.functor + "'");
      diags.semantic_error({}, why.empty() ? std::string("no match") : why);
      return 0;
    }
    if (!request.quiet)
      for (const std::string& w : resolved->warnings) diags.warning(point.components[0].loc, w);
    size_t n = resolved->sites.size();
    out.user_point = std::move(resolved);
    return n;
  }

  std::vector<std::string> list_points(const ast::ProbePoint& point) const override {
    CodePoint code = read_code_point(point);
    if (!code.refusal.empty()) return {};
    if (!code.is_code) {
      // A life event: process("P") by P's canonical path, as stap lists it.
      auto* path = dynamic_cast<const ast::StringLit*>(point.components[0].arg);
      std::string why, exe = path ? debuginfo::find_executable(path->value, why) : "";
      if (exe.empty()) return ProbeProvider::list_points(point);
      ast::ProbePoint listed = point;
      ast::StringLit canonical;
      canonical.value = exe;
      listed.components[0].arg = &canonical;
      return {listed.to_string()};
    }
    debuginfo::ResolvedPoint resolved;
    std::string why;
    std::vector<std::string> out;
    if (debuginfo::resolve_process_point(code.pattern, resolved, why))
      for (const auto& site : resolved.sites) out.push_back(site.point);
    return out;
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
