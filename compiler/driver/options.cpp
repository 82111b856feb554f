#include "driver/options.h"

#include <getopt.h>
#include <unistd.h>
#include <wordexp.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "loader/output/metrics_server.h"

namespace stap {

namespace {

// Long options without a short letter get codes past the ASCII range.
enum LongOnly {
  opt_vp = 256,
  opt_runtime,
  opt_bpf,
  opt_no_global_var_display,
  opt_suppress_handler_errors,
  opt_ldd,
  opt_all_modules,
  opt_folded,
  opt_pprof,
  opt_format,
  opt_metrics,
  opt_dump_probe_types,
  opt_dump_probe_aliases,
  opt_compatible,
  opt_prologue_searching,
  opt_disable_cache,
  opt_unsupported,  // a real stap option this engine has no use for
};

// stap options that make sense only for its kernel-module runtime or its
// compile servers.  They are named in the error so users know they were
// understood, not mistyped.
const char* const kUnsupportedLong[] = {
    "modinfo", "privilege", "unprivileged", "check-version",
    "skip-badvars", "use-server", "list-servers", "trust-servers",
    "use-server-on-error", "remote", "remote-prefix", "tmpdir",
    "download-debuginfo", "dump-functions", "sysroot", "sysenv", "suppress-time-limits",
    "save-uprobes", "target-namespace",
};

bool parse_long(const char* text, long min, long* out) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min) return false;
  *out = v;
  return true;
}

// "4", "4.8", "2.9.1": the form stap's --compatible takes.
bool valid_version(const std::string& v) {
  bool digit = false;
  for (char c : v) {
    if (std::isdigit(static_cast<unsigned char>(c))) digit = true;
    else if (c == '.' && digit) digit = false;
    else return false;
  }
  return digit;
}

bool valid_define(const std::string& d) {
  size_t eq = d.find('=');
  std::string name = d.substr(0, eq);
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string read_rc_file() {
  std::string dir;
  if (const char* d = std::getenv("SYSTEMTAP_DIR")) dir = d;
  else if (const char* h = std::getenv("HOME")) dir = std::string(h) + "/.systemtap";
  if (dir.empty()) return {};
  std::ifstream in(dir + "/rc");
  if (!in) return {};
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// -r accepts a release ("6.1.0-9-amd64") or a build tree holding
// include/config/kernel.release, as stap's does.
std::string kernel_release_of(const std::string& arg) {
  std::ifstream in(arg + "/include/config/kernel.release");
  std::string release;
  if (in && std::getline(in, release) && !release.empty()) return release;
  return arg;
}

ParseOutcome usage_error(const std::string& message) {
  std::cerr << "stap: " << message << "\n";
  print_usage(std::cerr);
  return ParseOutcome::exit_error;
}

// stap's usage(1) after a message of its own (no "stap: " prefix).
ParseOutcome usage_error_plain(const std::string& message) {
  std::cerr << message << "\n";
  print_usage(std::cerr);
  return ParseOutcome::exit_error;
}

ParseOutcome fail(const std::string& message) {
  std::cerr << message << "\n";
  return ParseOutcome::exit_error;
}

// -m NAME, checked as stap checks module names: a ".ko" (or our ".bo")
// suffix is dropped, the rest must be [a-z0-9_]+ and shorter than the
// kernel's module name limit.
ParseOutcome check_module_name(std::string& name) {
  for (const char* suffix : {".ko", ".bo"}) {
    if (name.size() >= 3 && name.compare(name.size() - 3, 3, suffix) == 0) {
      name.erase(name.size() - 3);
      std::cerr << "Truncating module name to '" << name << "'\n";
    }
  }
  if (name.empty()) return fail("Module name cannot be empty.");
  for (char c : name)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '_'))
      return fail("ERROR: Safety pattern mismatch for -m parameter ('" + name +
                  "' vs. '^[a-z0-9_]+$') rc=1");
  constexpr size_t kMaxModuleName = 55;  // MODULE_NAME_LEN - 1 on 64-bit kernels
  if (name.size() >= kMaxModuleName) {
    name.resize(kMaxModuleName - 1);
    std::cerr << "Truncating module name to '" << name << "'\n";
  }
  return ParseOutcome::run;
}

class CommandLineParser {
 public:
  explicit CommandLineParser(Options& o) : o_(o) {}
  ParseOutcome parse(std::vector<std::string>& words);

 private:
  ParseOutcome apply(int c, const char* arg, const char* long_name);
  void later(const std::string& what) { o_.later_pass_options.push_back(what); }
  ParseOutcome set_module_name(const char* arg) {
    o_.module_name = arg;
    return check_module_name(o_.module_name);
  }
  Options& o_;
  bool have_e_ = false;
};

ParseOutcome CommandLineParser::apply(int c, const char* arg, const char* long_name) {
  long n = 0;
  switch (c) {
    case 'h': print_usage(std::cout); return ParseOutcome::exit_ok;
    case 'V':
      std::cout << "Systemtap translator/driver (version 5.0/stap-bpf " STAP_BPF_VERSION
                   ", runtime bpf)\n"
                   "This stap runs SystemTap scripts on eBPF: no kernel module, no "
                   "compiler at run time.\n";
      return ParseOutcome::exit_ok;
    case 'p':
      if (!parse_long(arg, 1, &n) || n > 5) return fail("Invalid pass number (should be 1-5).");
      o_.last_pass = static_cast<int>(n);
      break;
    case 'v': for (int& v : o_.verbose) ++v; break;
    case opt_vp: {
      std::string digits = arg;
      if (digits.size() > 5) return fail("Invalid --vp argument: at most 5 digits.");
      for (size_t i = 0; i < digits.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(digits[i])))
          return fail("Invalid --vp argument: it takes digits, one per pass.");
        o_.verbose[i] += digits[i] - '0';
      }
      break;
    }
    case 'e':
      if (have_e_) return fail("Only one script can be given with -e (use -E for more).");
      have_e_ = true;
      o_.script_text = arg;
      o_.script_name = "<input>";
      break;
    case 'E': o_.extra_scripts.push_back(arg); break;
    case 'l': case 'L':
      if (!o_.list_pattern.empty() || o_.dump != Options::Dump::none)
        return fail("ERROR: only one of the -l/-L/--dump-* switches may be specified");
      o_.list_pattern = arg;
      o_.list_with_vars = c == 'L';
      break;
    case 'u': o_.keep_unused = true; break;
    case 'w': o_.suppress_warnings = true; break;
    case 'W': o_.warnings_are_errors = true; break;
    case 'g': o_.guru = true; break;
    case 'I': o_.include_dirs.push_back(arg); break;
    case 'r': o_.kernel_release = kernel_release_of(arg); break;
    case 'D':
      if (!valid_define(arg)) return fail(std::string("Invalid -D argument '") + arg +
                                          "': expected NAME=VALUE.");
      {
        std::string d = arg;
        size_t eq = d.find('=');
        o_.defines[d.substr(0, eq)] = eq == std::string::npos ? "" : d.substr(eq + 1);
      }
      break;
    case opt_no_global_var_display: o_.global_var_display = false; break;
    case opt_bpf: break;  // this engine only has the bpf runtime
    case opt_runtime:
      if (std::string(arg) != "bpf")
        return fail(std::string("Invalid --runtime=") + arg +
                    ": this stap runs scripts on eBPF only (--runtime=bpf).");
      break;
    // Recorded for pass 5.
    case 'c': o_.target_command = arg; later("-c"); break;
    case 'x':
      if (!parse_long(arg, 1, &o_.target_pid)) return fail(std::string("Invalid target process ID number '") + arg + "'.");
      later("-x");
      break;
    case 'o': o_.output_file = arg; later("-o"); break;
    case 'm':
      if (ParseOutcome r = set_module_name(arg); r != ParseOutcome::run) return r;
      later("-m");
      break;
    case 'k': o_.keep_temps = true; later("-k"); break;
    case 'T':
      if (!parse_long(arg, 1, &o_.time_limit_s)) return fail(std::string("Invalid -T argument '") + arg + "': expected a number of seconds.");
      later("-T");
      break;
    case 's':
      if (!parse_long(arg, 1, &o_.buffer_mb) || o_.buffer_mb > 4095)
        return fail(std::string("Invalid buffer size '") + arg + "' (should be 1-4095).");
      later("-s");
      break;
    case 'b': o_.bulk = true; later("-b"); break;
    case 't': o_.timing = true; later("-t"); break;
    case 'd': o_.symbol_modules.push_back(arg); later("-d"); break;
    case opt_ldd: o_.ldd = true; later("--ldd"); break;
    case opt_all_modules: o_.all_modules = true; later("--all-modules"); break;
    case 'G':
      if (!valid_define(arg) || std::string(arg).find('=') == std::string::npos)
        return fail(std::string("Invalid -G argument '") + arg + "': expected VAR=VALUE.");
      o_.global_settings.push_back(arg);
      later("-G");
      break;
    case opt_folded: o_.folded_file = arg; break;
    case opt_pprof: o_.pprof_file = arg; break;
    case opt_metrics:
      if (!parse_listen_address(arg, o_.metrics_host, o_.metrics_port))
        return fail(std::string("Invalid --metrics '") + arg + "': expected [ADDR:]PORT.");
      break;
    case opt_format:
      if (std::string(arg) != "text" && std::string(arg) != "json")
        return fail(std::string("Invalid --format '") + arg + "': expected text or json.");
      o_.json_output = std::string(arg) == "json";
      break;
    case opt_dump_probe_types: case opt_dump_probe_aliases:
      if (!o_.list_pattern.empty() || o_.dump != Options::Dump::none)
        return fail("ERROR: only one of the -l/-L/--dump-* switches may be specified");
      o_.dump = c == opt_dump_probe_types ? Options::Dump::probe_types
                                          : Options::Dump::probe_aliases;
      break;
    case opt_suppress_handler_errors:
      o_.suppress_handler_errors = true;
      later("--suppress-handler-errors");
      break;
    case opt_compatible:
      if (!valid_version(arg))
        return fail(std::string("Invalid --compatible '") + arg +
                    "': expected a SystemTap version such as 4.0 or 2.9.");
      o_.compatible = arg;
      break;
    case opt_unsupported:
      return fail(std::string("stap: option '--") + long_name +
                  "' belongs to SystemTap's kernel-module runtime or compile servers; "
                  "this engine runs on eBPF and does not support it.");
    case 'P':
      o_.prologue_searching = "always";
      break;
    case opt_disable_cache:
      o_.use_cache = false;
      break;
    case opt_prologue_searching: {
      std::string when = arg ? arg : "always";
      if (when != "always" && when != "never" && when != "auto")
        return fail("Invalid --prologue-searching '" + when + "': expected always, never or auto.");
      o_.prologue_searching = when;
      break;
    }
    case 'B': case 'R': case 'a': case 'F': case 'S': case 'q': case 'i':
      return fail(std::string("stap: option '-") + static_cast<char>(c) +
                  "' belongs to SystemTap's kernel-module runtime; this engine runs on "
                  "eBPF and does not support it.");
    default: return ParseOutcome::exit_error;
  }
  return ParseOutcome::run;
}

ParseOutcome CommandLineParser::parse(std::vector<std::string>& words) {
  std::vector<struct option> longs = {
      {"help", no_argument, nullptr, 'h'},
      {"version", no_argument, nullptr, 'V'},
      {"vp", required_argument, nullptr, opt_vp},
      {"runtime", required_argument, nullptr, opt_runtime},
      {"bpf", no_argument, nullptr, opt_bpf},
      {"no-global-var-display", no_argument, nullptr, opt_no_global_var_display},
      {"suppress-handler-errors", no_argument, nullptr, opt_suppress_handler_errors},
      {"ldd", no_argument, nullptr, opt_ldd},
      {"all-modules", no_argument, nullptr, opt_all_modules},
      {"folded", required_argument, nullptr, opt_folded},
      {"pprof", required_argument, nullptr, opt_pprof},
      {"format", required_argument, nullptr, opt_format},
      {"metrics", required_argument, nullptr, opt_metrics},
      {"compatible", required_argument, nullptr, opt_compatible},
      {"prologue-searching", optional_argument, nullptr, opt_prologue_searching},
      {"disable-cache", no_argument, nullptr, opt_disable_cache},
      {"dump-probe-types", no_argument, nullptr, opt_dump_probe_types},
      {"dump-probe-aliases", no_argument, nullptr, opt_dump_probe_aliases},
  };
  for (const char* name : kUnsupportedLong)
    longs.push_back({name, optional_argument, nullptr, opt_unsupported});
  longs.push_back({nullptr, 0, nullptr, 0});

  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(argv.size()) - 1;

  optind = 0;  // full re-initialisation: the parser may run more than once
  opterr = 0;
  // stap permutes arguments (options may follow the script name), as
  // getopt does by default; "--" ends the options.
  const std::string shorts = "hVvp:e:E:l:L:uwWgI:r:D:c:x:o:m:kT:s:btd:G:PB:R:a:FS:qi";
  for (;;) {
    int index = -1;
    int c = getopt_long(argc, argv.data(), shorts.c_str(), longs.data(), &index);
    if (c == -1) break;
    if (c == '?') {
      std::string word = optind > 0 && optind <= argc ? argv[optind - 1] : "";
      if (optopt > 0 && optopt < 256) {
        bool known = shorts.find(static_cast<char>(optopt)) != std::string::npos;
        return usage_error(std::string(known ? "option requires an argument -- '"
                                             : "invalid option -- '") +
                           static_cast<char>(optopt) + "'");
      }
      if (optopt >= 256) return usage_error("option '" + word + "' requires an argument");
      return usage_error("unrecognized option '" + word + "'");
    }
    const char* long_name = index >= 0 ? longs[index].name : "";
    ParseOutcome r = apply(c, optarg, long_name);
    if (r != ParseOutcome::run) return r;
  }

  // getopt permuted argv (not `words`): the operands are argv[optind..].
  std::vector<std::string> rest(argv.begin() + optind, argv.begin() + argc);
  size_t next = 0;
  // -l/-L elaborate the pattern alone: the operands are script arguments.
  bool listing = !o_.list_pattern.empty() || o_.dump != Options::Dump::none;
  if (listing && have_e_)
    return usage_error_plain("Cannot specify a script with -l/-L/--dump-* switches.");
  if (listing && o_.last_pass != 5)
    return usage_error_plain("Cannot specify -p with -l/-L/--dump-* switches.");
  bool need_script = !have_e_ && !listing;
  if (need_script) {
    if (rest.empty()) return usage_error("a script is needed: FILE, - (stdin) or -e SCRIPT");
    std::string file = rest[next++];
    if (file == "-") {
      o_.script_from_stdin = true;
      o_.script_name = "<input>";
      o_.script_text.assign(std::istreambuf_iterator<char>(std::cin), {});
    } else {
      std::error_code ec;
      if (!std::filesystem::exists(file, ec)) return fail("Input file '" + file + "' is missing.");
      if (std::filesystem::is_directory(file, ec))
        return fail("Input file '" + file + "' is a directory, not a script.");
      std::ifstream in(file);
      std::string text;
      if (in) text.assign(std::istreambuf_iterator<char>(in), {});
      if (!in && !in.eof())
        return fail("Input file '" + file + "' cannot be read: " + std::strerror(errno) + ".");
      o_.script_name = file;
      o_.script_text = std::move(text);
    }
  }
  o_.args.assign(rest.begin() + static_cast<long>(next), rest.end());
  if (!o_.target_command.empty() && o_.target_pid != 0)
    return usage_error_plain("You can't specify -c and -x together.");
  return ParseOutcome::run;
}

}  // namespace

std::vector<std::string> split_rc_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream ws(line);
    std::string w;
    while (ws >> w) words.push_back(w);
  }
  return words;
}

ParsedCommandLine parse_command_line(int argc, char** argv) {
  ParsedCommandLine result;
  std::vector<std::string> words;
  words.push_back(argc > 0 ? argv[0] : "stap");
  for (std::string& w : split_rc_words(read_rc_file())) words.push_back(std::move(w));
  for (int i = 1; i < argc; ++i) words.push_back(argv[i]);
  CommandLineParser parser(result.options);
  result.outcome = parser.parse(words);
  return result;
}

void print_usage(std::ostream& out) {
  out << "Usage: stap [options] FILE [ARGS]        Run script in file.\n"
         "   or: stap [options] - [ARGS]           Run script on stdin.\n"
         "   or: stap [options] -e SCRIPT [ARGS]   Run given script.\n"
         "   or: stap [options] -l PROBE           List matching probes.\n"
         "   or: stap [options] -L PROBE           List matching probes and local variables.\n"
         "\n"
         "Options (in $SYSTEMTAP_DIR/rc and on the command line):\n"
         "   --         end of options, script arguments follow\n"
         "   -h --help  show this help\n"
         "   -V --version\n"
         "   -p NUM     stop after pass NUM 1-5 (parse, elaborate, translate, compile, run)\n"
         "   -v         more verbose, all passes; --vp ABCDE per pass\n"
         "   -u         unoptimized: keep unused functions, variables and statements\n"
         "   -w         suppress warnings;  -W  turn warnings into errors\n"
         "   -g         guru mode\n"
         "   -I DIR     look in DIR for more tapset (.stp/.stpm) files\n"
         "   -D NM=VAL  set a limit such as MAXSTRINGLEN, MAXMAPENTRIES, MAXACTION\n"
         "   -G VAR=VAL set a global variable at start\n"
         "   -r RELEASE compile for the kernel release RELEASE\n"
         "   -E SCRIPT  run SCRIPT in addition to the main script\n"
         "   -c CMD     start the probes, run CMD, and exit when it finishes\n"
         "   -x PID     set target() to PID\n"
         "   -o FILE    send script output to FILE\n"
         "   -m NAME    name the compiled object (with -p4)\n"
         "   -k         keep the temporary directory\n"
         "   -T SEC     stop the script after SEC seconds\n"
         "   -s NUM, -b buffer size in MB, bulk mode\n"
         "   -t         collect probe timing information\n"
         "   -d OBJECT  add symbol data for OBJECT;  --ldd, --all-modules\n"
         "   --runtime=bpf, --bpf   accepted: this stap always runs on eBPF\n"
         "   --no-global-var-display   do not print unread globals at exit\n"
         "   --suppress-handler-errors quietly skip probe handlers that fail\n"
         "   --folded=FILE  write stack-keyed aggregates as folded stacks for flame graphs\n"
         "   --pprof=FILE   write stack-keyed aggregates as a gzipped pprof profile\n"
         "   --format=json  print the output as JSON lines (default: text)\n"
         "   --compatible=VERSION   preprocess as SystemTap VERSION would (%( systemtap_v %))\n"
         "   --disable-cache        neither use nor fill the object cache\n"
         "   -P, --prologue-searching[=always|never|auto]\n"
         "                          place process .function probes after the prologue\n"
         "   --metrics=[ADDR:]PORT  serve the globals at http://ADDR:PORT/metrics (OpenMetrics)\n"
         "   --dump-probe-types     list the probe point patterns this engine supports\n"
         "   --dump-probe-aliases   list the probe aliases of the tapset library\n";
}

// The first word as the shell would take it; where wordexp refuses the
// command (a $(...) in it), its first blank-separated word.
std::string target_program(const Options& o) {
  if (!o.target_command.empty()) {
    wordexp_t words{};
    if (wordexp(o.target_command.c_str(), &words, WRDE_NOCMD) == 0) {
      std::string program = words.we_wordc > 0 ? words.we_wordv[0] : "";
      wordfree(&words);
      return program;
    }
    std::istringstream in(o.target_command);
    std::string first;
    in >> first;
    return first;
  }
  if (o.target_pid > 0) {
    char exe[PATH_MAX];
    std::string link = "/proc/" + std::to_string(o.target_pid) + "/exe";
    ssize_t n = readlink(link.c_str(), exe, sizeof exe - 1);
    if (n > 0) return std::string(exe, size_t(n));
  }
  return {};
}

}  // namespace stap
