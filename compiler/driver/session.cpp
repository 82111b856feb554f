#include "driver/session.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "driver/backend.h"
#include "driver/cache.h"
#include "driver/frontend.h"
#include "driver/listing.h"
#include "debuginfo/dwarf_file.h"
#include "elaborate/program.h"
#include "loader/session/object_file.h"
#include "loader/session/session_run.h"
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
  // "using <memory> kb, in ..." (passes 1-3).
  std::string report() const { return "using " + memory_usage() + " kb, " + times(); }
  // "in 10usr/0sys/12real ms." (passes 4-5, as stap words them).
  std::string times() const {
    rusage now{};
    getrusage(RUSAGE_SELF, &now);
    auto ms = [](const timeval& a, const timeval& b) {
      return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_usec - a.tv_usec) / 1000;
    };
    long real = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - wall_).count();
    std::ostringstream s;
    s << "in " << ms(usage_.ru_utime, now.ru_utime) << "usr/" << ms(usage_.ru_stime, now.ru_stime)
      << "sys/" << real << "real ms.";
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
  // stap's --compatible makes %( systemtap_v < "X" %) see that version, so
  // a script written for an older SystemTap takes its old branches.
  if (!o.compatible.empty()) c.env.systemtap_v = o.compatible;
  c.env.args = o.args;
  c.env.guru_mode = o.guru;
  c.elaborate.keep_unused = o.keep_unused;
  c.elaborate.guru = o.guru;
  c.elaborate.target_program = target_program(o);
  c.elaborate.global_var_display = o.global_var_display;
  c.elaborate.list_mode = !o.list_pattern.empty();
  c.elaborate.list_types = o.list_with_vars;
  c.suppress_warnings = o.suppress_warnings;
  c.warnings_are_errors = o.warnings_are_errors;
  return c;
}

// The object of a run: its cache key (also its default name) and where
// the cache keeps it ("" when there is no cache: no home directory).
struct ObjectPlace {
  std::string key;
  std::string cache_file;
};

ObjectPlace object_place(const Options& o, const FrontendConfig& config) {
  CacheInputs in;
  in.engine = engine_identity(STAP_BPF_VERSION);
  in.script_name = o.script_name;
  in.script_text = o.script_text;
  in.extra_scripts = o.extra_scripts;
  in.args = o.args;
  in.defines = o.defines;
  in.tapset_dirs = config.tapset_dirs;
  in.guru = o.guru;
  in.keep_unused = o.keep_unused;
  in.suppress_warnings = o.suppress_warnings;
  in.global_var_display = o.global_var_display;
  in.timing = o.timing;
  in.global_settings = o.global_settings;
  in.kernel_release = config.env.kernel_vr;
  in.compatible = config.env.systemtap_v;
  in.prologue_searching = o.prologue_searching;
  in.target_program = target_program(o);
  ObjectPlace place;
  place.key = cache_key(in);
  std::string root = o.use_cache ? cache_root() : std::string();
  if (!root.empty()) place.cache_file = cache_path(root, place.key);
  return place;
}

RunOptions run_options(const Options& o, const std::string& module_name) {
  RunOptions r;
  r.module_name = module_name;
  r.verbose = o.verbosity(5);
  r.output_file = o.output_file;
  r.command = o.target_command;
  r.target_pid = o.target_pid;
  r.timeout_s = o.time_limit_s;
  r.suppress_warnings = o.suppress_warnings;
  r.buffer_mb = o.buffer_mb;
  r.suppress_handler_errors = o.suppress_handler_errors;
  r.folded_file = o.folded_file;
  r.pprof_file = o.pprof_file;
  r.json = o.json_output;
  r.metrics_host = o.metrics_host;
  r.metrics_port = o.metrics_port;
  r.symbol_modules = o.symbol_modules;
  return r;
}

// After pass 4 (or a cache hit): -p4 and -m leave NAME.bo in the current
// directory, then pass 5 runs the object.
int save_and_run(const Options& o, const std::string& object, const ObjectPlace& place,
                 std::ostream& out, std::ostream& err) {
  std::string module = o.module_name.empty() ? cache_module_name(place.key) : o.module_name;
  std::string name = module + ".bo";
  if (o.last_pass == 4 || !o.module_name.empty()) {
    std::string error;
    if (!write_file_atomically(name, object, error)) {
      err << "ERROR: " << error << "\n";
      return 1;
    }
  }
  if (o.last_pass == 4) {
    out << name << "\n";
    return 0;
  }
  PassTimer timer;
  if (o.verbosity(5) > 0) err << "Pass 5: starting run.\n";
  out.flush();
  err.flush();
  int rc = run_object(object, run_options(o, module));
  if (o.verbosity(5) > 0) err << "Pass 5: run completed " << timer.times() << "\n";
  if (rc != 0) err << "Pass 5: run failed.  [man error::pass5]\n";
  return rc;
}

// What the lowering and code generation take from the command line and
// the target kernel (pass 2's check and passes 3-4 alike).
BackendConfig backend_config(const Options& o, Frontend& fe) {
  BackendConfig config;
  config.script_name = o.script_name;
  config.global_settings = o.global_settings;
  config.timing = o.timing;
  auto hz = fe.config().env.kernel_config.find("CONFIG_HZ");
  if (hz != fe.config().env.kernel_config.end()) config.kernel_hz = std::atoll(hz->second.c_str());
  return config;
}

// Passes 3 and 4 over the elaborated program, then the rest.
int run_backend(const Options& o, Frontend& fe, const ObjectPlace& place, std::ostream& out,
                std::ostream& err) {
  PassTimer timer;
  BackendConfig config = backend_config(o, fe);
  std::string error;
  ir::Module module;
  bool ok = limits_from_defines(o.defines, config.limits, error);
  if (!ok) err << error << "\n";
  ok = ok && lower_pass(fe.program(), config, fe.sources(), fe.diagnostics(), module);
  fe.diagnostics().flush(err);
  if (ok && !apply_global_settings(o.global_settings, module, error)) {
    err << error << "\n";
    ok = false;
  }
  CodegenResult result;
  if (ok && o.last_pass == 3) {
    result = codegen_pass(module, true);
    if (result.ok) out << result.ir_text;
    else err << "ERROR: " << result.error << "\n";
    ok = result.ok;
  }
  if (o.verbosity(3) > 0) err << "Pass 3: translated to BPF " << timer.report() << "\n";
  if (!ok) err << "Pass 3: translation failed.  [man error::pass3]\n";
  if (!ok || o.last_pass == 3) return ok ? 0 : 1;

  timer.start();
  result = codegen_pass(module, false);
  std::string name = (o.module_name.empty() ? cache_module_name(place.key) : o.module_name) + ".bo";
  if (o.verbosity(4) > 0)
    err << "Pass 4: compiled BPF into \"" << name << "\" " << timer.times() << "\n";
  if (!result.ok) {
    err << "ERROR: " << result.error << "\n";
    err << "Pass 4: compilation failed.  [man error::pass4]\n";
    return 1;
  }
  // A cache that cannot be written only costs the next run its speed.
  // Probes placed from kernel DWARF hold a module build's offsets and the
  // running kernel's addresses, which the cache key does not cover.
  bool kernel_dwarf = std::any_of(module.probes.begin(), module.probes.end(), [](const ir::Probe& p) {
    const ir::KfuncSpec* k = p.as<ir::KfuncSpec>();
    return k && k->placed_from_dwarf();
  });
  if (!place.cache_file.empty() && !kernel_dwarf) {
    if (cache_store(place.cache_file, result.object, error)) clean_cache(cache_root());
    else if (o.verbosity(4) > 1) err << "WARNING: not cached: " << error << "\n";
  }
  return save_and_run(o, result.object, place, out, err);
}

}  // namespace

// stap refuses a TMPDIR it could not use safely (characters a shell or
// make would trip on) or at all (its temporary directory goes there; so
// do LLVM's and libbpf's temporary files here), before any pass.
bool tmpdir_usable(std::ostream& err) {
  const char* tmpdir = std::getenv("TMPDIR");
  if (!tmpdir) return true;
  std::string dir = tmpdir;
  bool safe = !dir.empty() && std::all_of(dir.begin(), dir.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '/' || c == '.' || c == '_';
  });
  if (!safe) {
    err << "ERROR: Safety pattern mismatch for TMPDIR ('" << dir
        << "' vs. '^[-/._0-9a-z]+$') rc=1\n";
    return false;
  }
  // As stap makes its directory there: one made and removed again.
  std::string probe = dir + "/stapXXXXXX";
  if (!mkdtemp(probe.data())) {
    err << "ERROR: cannot create temporary directory (\" " << dir << "/stapXXXXXX \"): "
        << std::strerror(errno) << "\n";
    return false;
  }
  rmdir(probe.c_str());
  return true;
}

int run_session(const Options& o, std::ostream& out, std::ostream& err) {
  if (!tmpdir_usable(err)) return 1;
  debuginfo::set_prologue_search(o.prologue_searching == "always"  ? debuginfo::PrologueSearch::always
                                 : o.prologue_searching == "never" ? debuginfo::PrologueSearch::never
                                                                   : debuginfo::PrologueSearch::automatic);
  Frontend fe(frontend_config(o));
  Diagnostics& diags = fe.diagnostics();
  if (!o.list_pattern.empty()) return list_probes(o, fe, out, err);
  if (o.dump == Options::Dump::probe_types) return dump_probe_types(out);
  if (o.dump == Options::Dump::probe_aliases) return dump_probe_aliases(fe, out, err);

  // A cached object of the same inputs skips passes 1-4 (-p1..-p3 always
  // run their passes: they print what the passes produce).
  ObjectPlace place;
  if (o.last_pass >= 4) {
    place = object_place(o, fe.config());
    std::optional<std::string> object;
    if (!place.cache_file.empty()) object = cache_load(place.cache_file);
    // An object this runtime cannot read (damaged, or from another build)
    // is compiled again and replaced.
    ir::Module cached;
    std::string why;
    if (object && read_object_module(*object, cached, why)) {
      if (o.verbosity(3) > 0) err << "Pass 3: using cached " << place.cache_file << "\n";
      if (o.verbosity(4) > 0) err << "Pass 4: using cached " << place.cache_file << "\n";
      return save_and_run(o, *object, place, out, err);
    }
  }

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

  // Pass 2: elaborate.  Probes that will be loaded must be attachable
  // here; -p2 and -p3 resolve names only (listing is not attaching).
  timer.start();
  fe.program().will_run = o.last_pass >= 4;
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
    // stap's pass 2 also types every target expression ($var->field,
    // @cast, autocasts): lowering checks them here, lets pass what only
    // this engine lacks (pass 3 says so), and its output is dropped.
    ir::Module checked;
    BackendConfig config = backend_config(o, fe);
    config.checking = true;
    if (!lower_pass(program, config, fe.sources(), diags, checked)) {
      diags.flush(err);
      err << "Pass 2: analysis failed.  [man error::pass2]\n";
      return 1;
    }
    diags.flush(err);
    print_program(program, out, o.verbosity(2));
    return 0;
  }

  return run_backend(o, fe, place, out, err);
}

}  // namespace stap
