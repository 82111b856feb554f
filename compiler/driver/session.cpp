#include "driver/session.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

#include "driver/frontend.h"
#include "elaborate/alias_expansion.h"
#include "elaborate/program.h"
#include "parse/printer.h"

namespace stap {

namespace {

// Measures one pass for the -v line "... in 10usr/0sys/12real ms.".
class PassTimer {
 public:
  PassTimer() { start(); }
  void start() {
    getrusage(RUSAGE_SELF, &usage_);
    wall_ = std::chrono::steady_clock::now();
  }
  std::string report() const {
    rusage now{};
    getrusage(RUSAGE_SELF, &now);
    auto ms = [](const timeval& a, const timeval& b) {
      return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_usec - a.tv_usec) / 1000;
    };
    long real = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - wall_).count();
    std::ostringstream s;
    s << "using " << memory_usage() << " kb, in " << ms(usage_.ru_utime, now.ru_utime) << "usr/"
      << ms(usage_.ru_stime, now.ru_stime) << "sys/" << real << "real ms.";
    return s.str();
  }

 private:
  // "virt/res/shr/data" in kB, from /proc/self/statm, as stap prints it.
  static std::string memory_usage() {
    std::ifstream statm("/proc/self/statm");
    long size = 0, resident = 0, shared = 0, text = 0, lib = 0, data = 0;
    statm >> size >> resident >> shared >> text >> lib >> data;
    long kb = sysconf(_SC_PAGESIZE) / 1024;
    std::ostringstream s;
    s << size * kb << "virt/" << resident * kb << "res/" << shared * kb << "shr/" << data * kb
      << "data";
    return s.str();
  }
  rusage usage_{};
  std::chrono::steady_clock::time_point wall_;
};

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

FrontendConfig frontend_config(const Options& o) {
  FrontendConfig c;
  c.tapset_dirs.push_back(default_tapset_dir());
  for (const std::string& dir : o.include_dirs) c.tapset_dirs.push_back(dir);
  c.env = kernel_preprocessor_env(o.kernel_release);
  c.env.args = o.args;
  c.env.guru_mode = o.guru;
  c.elaborate.keep_unused = o.keep_unused;
  c.elaborate.guru = o.guru;
  c.elaborate.global_var_display = o.global_var_display;
  c.elaborate.list_mode = !o.list_pattern.empty();
  c.suppress_warnings = o.suppress_warnings;
  c.warnings_are_errors = o.warnings_are_errors;
  return c;
}

// How `stap -l` names one derived probe: the alias name the user's point
// matched (plus the components past it), or the concrete point.
std::string listed_name(const DerivedProbe& p) {
  const ast::ProbeDecl& decl = *p.decl;
  if (decl.via_aliases.empty() || !decl.origin) return p.point->to_string();
  const ast::AliasDecl& outer = *decl.via_aliases.back();
  for (const ast::ProbePoint* user : decl.origin->points) {
    for (const ast::ProbePoint* name : outer.names) {
      AliasMatch m = match_alias_name(*user, *name);
      if (m.kind == AliasMatch::Kind::none) continue;
      ast::ProbePoint listed;
      listed.components = name->components;
      for (size_t i = m.length; i < user->components.size(); ++i)
        listed.components.push_back(user->components[i]);
      return listed.to_string();
    }
  }
  return p.point->to_string();
}

// -l / -L: elaborate "probe PATTERN {}" and print each resolved point once,
// sorted, as stap does.
int list_probes(const Options& o, Frontend& fe, std::ostream& out, std::ostream& err) {
  if (o.list_with_vars) {
    err << "stap: -L (probe points with their variables) is not supported yet; "
           "use -l to list the points.\n";
    return 1;
  }
  Diagnostics& diags = fe.diagnostics();
  bool ok = fe.load_tapsets() && fe.parse_script("<input>", "probe " + o.list_pattern + " {}");
  for (const std::string& extra : o.extra_scripts) ok = fe.parse_script("<input>", extra) && ok;
  ok = ok && fe.elaborate();
  diags.flush(err);
  if (!ok) return 1;
  FileId listed_file = fe.program().files.front()->id;
  std::set<std::string> points;
  for (const DerivedProbe& p : fe.program().probes) {
    const ast::ProbeDecl* user = p.decl->origin ? p.decl->origin : p.decl;
    if (user->loc.file == listed_file) points.insert(listed_name(p));
  }
  for (const std::string& p : points) out << p << "\n";
  return 0;
}

}  // namespace

int run_session(const Options& o, std::ostream& out, std::ostream& err) {
  Frontend fe(frontend_config(o));
  Diagnostics& diags = fe.diagnostics();
  if (!o.list_pattern.empty()) return list_probes(o, fe, out, err);

  // Pass 1: parse the library's macros and scripts, then the user's.
  PassTimer timer;
  bool ok = fe.load_tapsets();
  ok = fe.parse_script(o.script_name, o.script_text) && ok;
  for (const std::string& extra : o.extra_scripts) ok = fe.parse_script("<input>", extra) && ok;
  diags.flush(err);
  if (!ok) {
    size_t n = diags.count_of("parse error");
    if (n > 0 && diags.count_of("") == 0)  // an "is empty" message replaces the count
      err << plural(n, "parse error.", "parse errors.") << "\n";
    err << "Pass 1: parse failed.  [man error::pass1]\n";
    return 1;
  }
  if (o.verbosity(1) > 0)
    err << "Pass 1: parsed user script and " << fe.library().file_count()
        << " library scripts " << timer.report() << "\n";
  if (o.last_pass == 1) {
    out << "# parse tree dump\n";
    for (const auto& file : fe.program().files) print_file(*file, out);
    return 0;
  }

  // Pass 2: elaborate.
  timer.start();
  ok = fe.elaborate();
  diags.flush(err);
  if (!ok) {
    err << "Pass 2: analysis failed.  [man error::pass2]\n";
    return 1;
  }
  const Program& program = fe.program();
  if (o.verbosity(2) > 0)
    err << "Pass 2: analyzed script: " << plural(program.probes.size(), "probe", "probes")
        << ", " << plural(program.functions.size(), "function", "functions") << ", 0 embeds, "
        << plural(program.globals.size(), "global", "globals") << " " << timer.report()
        << "\n";
  if (o.last_pass == 2) {
    print_program(program, out, o.verbosity(2));
    return 0;
  }

  // Passes 3-5 are the next capability (issue 3); say so by name rather
  // than pretend.
  err << "stap: pass 3 (translation to BPF) is not supported yet by this engine; "
         "stop after pass 2 with -p2";
  if (!o.later_pass_options.empty()) {
    err << " (options for the run:";
    for (const std::string& opt : o.later_pass_options) err << " " << opt;
    err << ")";
  }
  err << ".\n";
  return 1;
}

}  // namespace stap
