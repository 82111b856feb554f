#include "driver/listing.h"

#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "debuginfo/binary_path.h"
#include "debuginfo/process_listing.h"
#include "elaborate/alias_expansion.h"
#include "elaborate/program.h"
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

// What -L prints after one probe's name: its locals, then its target
// variables, each already as "name:type" / "$name:C type".
struct ListedProbe {
  std::vector<std::string> locals;
  std::vector<std::string> target_vars;
};

// Listed name -> the probes listed under it, in program order.
using Listing = std::map<std::string, std::vector<ListedProbe>>;

// The name stap gives a probe derived through aliases: the name of the
// alias the user's point matched, plus the components past it.  Empty
// when that suffix has wildcards (stap then names the concrete point).
std::string alias_listed_name(const ast::ProbeDecl& decl) {
  const ast::AliasDecl& outer = *decl.via_aliases.back();
  for (const ast::ProbePoint* user : decl.origin->points) {
    for (const ast::ProbePoint* name : outer.names) {
      AliasMatch m = match_alias_name(*user, *name);
      if (m.kind == AliasMatch::Kind::none) continue;
      ast::ProbePoint listed;
      listed.components = name->components;
      for (size_t i = m.length; i < user->components.size(); ++i) {
        if (is_wildcard(user->components[i].functor)) return {};
        listed.components.push_back(user->components[i]);
      }
      return listed.to_string();
    }
  }
  return {};
}

// How `stap -l` names one derived probe (stap's pn()).
std::string listed_name(const DerivedProbe& p) {
  const ast::ProbeDecl& decl = *p.decl;
  if (!decl.via_aliases.empty() && decl.origin) {
    std::string name = alias_listed_name(decl);
    if (!name.empty()) return name;
    return p.point->to_string();
  }
  // The user's own point, wildcards expanded, marks and condition kept.
  return point_text(*p.point, /*with_condition=*/true);
}

std::vector<std::string> local_signatures(const ast::ProbeDecl& decl) {
  std::vector<std::string> out;
  for (const ast::VarDecl* v : decl.locals)
    out.push_back(v->name + ":" + ast::type_name(v->type));
  return out;
}

std::vector<std::string> target_var_signatures(const ProbeProvider& provider,
                                               const ast::ProbePoint& point) {
  std::vector<std::string> out;
  for (const auto& [name, type] : provider.target_var_list(point))
    out.push_back("$" + name + ":" + type);
  return out;
}

// The string arguments of a printed point, in order:
// kernel.trace("sched:sched_switch") -> {"sched:sched_switch"}.  The names
// list_points() gives differ from the pattern only in these.
std::vector<std::string> string_args(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = text.find("(\""); at != std::string::npos; at = text.find("(\"", at)) {
    size_t end = text.find("\")", at + 2);
    if (end == std::string::npos) break;
    out.push_back(text.substr(at + 2, end - at - 2));
    at = end + 2;
  }
  return out;
}

// The target variables of one point a pattern of a family resolved later
// lists: the pattern with its string arguments taken from `listed`.
std::vector<std::string> listed_point_vars(const ProbeProvider& provider,
                                           const ast::ProbePoint& pattern,
                                           const std::string& listed) {
  std::vector<std::string> args = string_args(listed);
  ast::ProbePoint concrete = pattern;
  std::vector<ast::StringLit> literals(concrete.components.size());
  size_t next = 0;
  for (size_t i = 0; i < concrete.components.size(); ++i) {
    if (!dynamic_cast<const ast::StringLit*>(concrete.components[i].arg)) continue;
    if (next == args.size()) return {};
    literals[i].value = args[next++];
    concrete.components[i].arg = &literals[i];
  }
  if (next != args.size()) return {};
  return target_var_signatures(provider, concrete);
}

// What a point of a family resolved later stands for here: the kernel
// functions pass 2 resolved it to, else what its provider lists.
std::vector<std::string> resolved_points(const DerivedProbe& p) {
  if (p.kernel_functions.empty()) return p.provider->list_points(*p.point);
  std::vector<std::string> out;
  for (const KernelFunctionRef& f : p.kernel_functions)
    out.push_back(kernel_function_point(*p.point, f));
  return out;
}

// The probes that come from the listed pattern (not from -E scripts or
// tapset files), under their listed names.
Listing collect(const Program& program, bool with_vars) {
  Listing listing;
  FileId listed_file = program.files.front()->id;
  for (const DerivedProbe& p : program.probes) {
    const ast::ProbeDecl* user = p.decl->origin ? p.decl->origin : p.decl;
    if (user->loc.file != listed_file || !p.point) continue;
    ListedProbe probe;
    if (with_vars) probe.locals = local_signatures(*p.decl);
    // A family resolved later lists what it matches here (each tracepoint).
    if (p.provider && p.provider->resolved_later() && p.decl->via_aliases.empty()) {
      for (const std::string& name : resolved_points(p)) {
        if (with_vars) probe.target_vars = listed_point_vars(*p.provider, *p.point, name);
        listing[name].push_back(probe);
      }
      continue;
    }
    if (with_vars && p.provider) probe.target_vars = target_var_signatures(*p.provider, *p.point);
    listing[listed_name(p)].push_back(std::move(probe));
  }
  return listing;
}

// " a:long b:string": each signature once, in first-seen order, and only
// those every probe of the name has (stap prints the intersection).
std::string common_signatures(const std::vector<ListedProbe>& probes,
                              std::vector<std::string> ListedProbe::*field) {
  std::map<std::string, size_t> count;
  std::vector<std::string> order;
  for (const ListedProbe& p : probes) {
    std::set<std::string> mine;
    for (const std::string& s : p.*field) {
      if (!mine.insert(s).second) continue;
      if (count[s]++ == 0) order.push_back(s);
    }
  }
  std::string out;
  for (const std::string& s : order)
    if (count[s] == probes.size()) out += " " + s;
  return out;
}

}  // namespace

int list_probes(const Options& o, Frontend& fe, std::ostream& out, std::ostream& err) {
  // process("P") code points are listed from the binary directly
  // (debuginfo/process_listing.h): the same resolution the process
  // provider does (debuginfo/process_points.h), plus each site's
  // variables from DWARF or SDT notes, which the provider's generic
  // listing cannot give.
  // A bare code point under -c/-x lists the target's program's.
  std::string pattern = o.list_pattern;
  if (std::string program = target_program(o); pattern.starts_with("process.") && !program.empty())
    pattern = "process(\"" + program + "\")" + pattern.substr(7);
  if (auto process = debuginfo::parse_process_pattern(pattern)) {
    std::string why;
    std::vector<std::string> programs{process->process};
    if (debuginfo::is_program_glob(process->process))
      programs = debuginfo::glob_programs(process->process);
    std::vector<std::string> points;
    for (const std::string& program : programs) {
      debuginfo::ProcessPattern one = *process;
      one.process = program;
      for (std::string& p : debuginfo::list_process_points(one, o.list_with_vars, why))
        points.push_back(std::move(p));
    }
    for (const std::string& point : points) out << point << "\n";
    if (!why.empty() && o.verbosity(2) > 1) err << "semantic error: " << why << "\n";
    return points.empty() ? 1 : 0;
  }
  Diagnostics& diags = fe.diagnostics();
  // Parse errors are shown, with their count; pass 2's are not (stap
  // shows them only with -vv: a pattern that matches nothing exits 1).
  fe.load_tapsets();
  bool parsed = fe.parse_script("<input>", "probe " + o.list_pattern + " {}");
  for (const std::string& extra : o.extra_scripts) parsed = fe.parse_script("<input>", extra) && parsed;
  diags.flush(err);
  if (!parsed) {
    size_t n = diags.count_of("parse error");
    if (n > 0) err << n << (n == 1 ? " parse error." : " parse errors.") << "\n";
    return 1;
  }
  fe.elaborate();
  std::ostringstream hidden;
  diags.flush(o.verbosity(2) > 1 ? err : hidden);

  Listing listing = collect(fe.program(), o.list_with_vars);
  for (const auto& [name, probes] : listing) {
    out << name;
    if (o.list_with_vars)
      out << common_signatures(probes, &ListedProbe::locals)
          << common_signatures(probes, &ListedProbe::target_vars);
    out << "\n";
  }
  return listing.empty() ? 1 : 0;
}

int dump_probe_types(std::ostream& out) {
  std::set<std::string> patterns;
  for (const ProbeProvider* p : all_providers())
    for (const ProbePattern& pattern : p->patterns()) patterns.insert(pattern.text);
  for (const std::string& p : patterns) out << p << "\n";
  return 0;
}

int dump_probe_aliases(Frontend& fe, std::ostream& out, std::ostream& err) {
  bool ok = fe.load_tapsets();
  fe.diagnostics().flush(err);
  if (!ok) return 1;
  std::set<std::string> lines;
  for (const ast::AliasDecl* alias : fe.library().all_aliases()) {
    std::string points;
    for (const ast::ProbePoint* p : alias->points)
      points += (points.empty() ? "" : ", ") + point_text(*p);
    for (const ast::ProbePoint* name : alias->names)
      lines.insert(name->to_string() + (alias->epilogue ? " += " : " = ") + points);
  }
  for (const std::string& line : lines) out << line << "\n";
  return 0;
}

}  // namespace stap
