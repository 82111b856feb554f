// The stap command line, with SystemTap's option letters and meanings.
//
// Every option of stap(1) that a script user relies on is accepted; those
// of passes 3-5 flow into the back end and the run (driver/session.cpp).
// Unknown options print the usage.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stap {

struct Options {
  // What to run.
  std::string script_text;          // -e SCRIPT, or the file/stdin contents
  std::string script_name;          // "<input>" for -e, the path otherwise
  bool script_from_stdin = false;   // "-"
  std::vector<std::string> extra_scripts;  // -E SCRIPT (each like -e)
  std::vector<std::string> args;    // $1.. / @1..
  std::string list_pattern;         // -l / -L PROBE
  bool list_with_vars = false;      // -L
  // --dump-probe-types / --dump-probe-aliases (driver/listing.h).
  enum class Dump { none, probe_types, probe_aliases } dump = Dump::none;

  // Passes and reporting.
  int last_pass = 5;                // -p N
  int verbose[5] = {0, 0, 0, 0, 0}; // -v (all passes), --vp ABCDE (per pass)
  bool keep_unused = false;         // -u
  bool suppress_warnings = false;   // -w
  bool warnings_are_errors = false; // -W
  bool guru = false;                // -g
  std::vector<std::string> include_dirs;  // -I DIR
  std::string kernel_release;       // -r KVER (empty: running kernel)
  std::string compatible;           // --compatible=VERSION: systemtap_v in %( %) (empty: ours)
  // -P, --prologue-searching[=always|never|auto]: where process .function
  // probes go (debuginfo::set_prologue_search).
  std::string prologue_searching = "auto";
  bool use_cache = true;            // --disable-cache: false
  std::map<std::string, std::string> defines;  // -D NAME=VAL
  bool global_var_display = true;   // --no-global-var-display

  // Passes 3-5.
  std::string target_command;       // -c CMD
  long target_pid = 0;              // -x PID
  std::string output_file;          // -o FILE
  std::string module_name;          // -m NAME
  bool keep_temps = false;          // -k
  long time_limit_s = 0;            // -T SEC
  long buffer_mb = 0;               // -s NUM
  bool bulk = false;                // -b
  bool timing = false;              // -t
  std::vector<std::string> symbol_modules;  // -d MOD
  bool ldd = false;                 // --ldd
  bool all_modules = false;         // --all-modules
  std::vector<std::string> global_settings; // -G VAR=VAL
  bool suppress_handler_errors = false;     // --suppress-handler-errors
  std::string folded_file;                  // --folded=FILE (loader/folded_stacks.h)
  std::string pprof_file;                   // --pprof=FILE (loader/output/pprof_profile.h)
  bool json_output = false;                 // --format=json (loader/output/output_sink.h)
  std::string metrics_host;                 // --metrics=[ADDR:]PORT (loader/output/metrics_server.h)
  int metrics_port = -1;

  // "-c", "-o", ... as given, in order: the options of passes 3-5.
  std::vector<std::string> later_pass_options;

  int verbosity(int pass) const { return verbose[pass - 1]; }
};

enum class ParseOutcome { run, exit_ok, exit_error };

struct ParsedCommandLine {
  ParseOutcome outcome = ParseOutcome::run;
  Options options;
};

// argv as main() gets it, plus the options of $SYSTEMTAP_DIR/rc (or
// ~/.systemtap/rc), which come first.  Messages go to stderr; --help and
// --version print to stdout.
ParsedCommandLine parse_command_line(int argc, char** argv);

// Splits an rc file's text into words (whitespace-separated, # comments).
std::vector<std::string> split_rc_words(const std::string& text);

void print_usage(std::ostream& out);

// What a bare process.function/.plt/.mark point probes: the -c command's
// first word (its program, found in $PATH by resolution as stap does), or
// the -x process's executable; "" without either.
std::string target_program(const Options& o);

}  // namespace stap
