// The stap command line: option letters, meanings and errors.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "driver/options.h"

namespace {

// Runs parse_command_line on words with stderr captured, and with no rc
// file unless the test sets one.
struct Run {
  stap::ParsedCommandLine result;
  std::string err;
  std::string out;
};

Run parse(std::vector<std::string> words) {
  setenv("SYSTEMTAP_DIR", "/nonexistent-stap-dir", 1);
  words.insert(words.begin(), "stap");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  std::ostringstream err, out;
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  Run r{stap::parse_command_line(static_cast<int>(argv.size()), argv.data()), "", ""};
  std::cerr.rdbuf(old_err);
  std::cout.rdbuf(old_out);
  r.err = err.str();
  r.out = out.str();
  return r;
}

}  // namespace

TEST_CASE("script from -e with arguments, options permuted as stap does") {
  Run r = parse({"-p2", "-e", "probe begin {}", "a1", "-v", "a2"});
  REQUIRE(r.result.outcome == stap::ParseOutcome::run);
  const stap::Options& o = r.result.options;
  CHECK(o.last_pass == 2);
  CHECK(o.script_name == "<input>");
  CHECK(o.script_text == "probe begin {}");
  CHECK(o.args == std::vector<std::string>{"a1", "a2"});
  CHECK(o.verbosity(1) == 1);
  CHECK(o.verbosity(5) == 1);
}

TEST_CASE("-- ends the options: what follows are script arguments") {
  Run r = parse({"-e", "probe begin {}", "--", "-v", "x"});
  REQUIRE(r.result.outcome == stap::ParseOutcome::run);
  CHECK(r.result.options.args == std::vector<std::string>{"-v", "x"});
  CHECK(r.result.options.verbosity(1) == 0);
}

TEST_CASE("script file and missing file") {
  std::string path = "/tmp/stap_options_test.stp";
  std::ofstream(path) << "probe end {}\n";
  Run r = parse({path, "7"});
  REQUIRE(r.result.outcome == stap::ParseOutcome::run);
  CHECK(r.result.options.script_name == path);
  CHECK(r.result.options.script_text == "probe end {}\n");
  CHECK(r.result.options.args == std::vector<std::string>{"7"});

  Run dir = parse({"/tmp"});
  CHECK(dir.result.outcome == stap::ParseOutcome::exit_error);
  CHECK(dir.err == "Input file '/tmp' is a directory, not a script.\n");

  Run missing = parse({"/tmp/definitely-not-here.stp"});
  CHECK(missing.result.outcome == stap::ParseOutcome::exit_error);
  CHECK(missing.err == "Input file '/tmp/definitely-not-here.stp' is missing.\n");
}

TEST_CASE("unknown options print the usage and fail") {
  Run r = parse({"--frob", "-e", "probe begin {}"});
  CHECK(r.result.outcome == stap::ParseOutcome::exit_error);
  CHECK(r.err.rfind("stap: unrecognized option '--frob'\nUsage: stap", 0) == 0);

  Run s = parse({"-Z", "-e", "x"});
  CHECK(s.result.outcome == stap::ParseOutcome::exit_error);
  CHECK(s.err.rfind("stap: invalid option -- 'Z'\nUsage:", 0) == 0);

  Run m = parse({"-p"});
  CHECK(m.result.outcome == stap::ParseOutcome::exit_error);
  CHECK(m.err.rfind("stap: option requires an argument -- 'p'\n", 0) == 0);
}

TEST_CASE("values are checked") {
  CHECK(parse({"-p", "6", "-e", "x"}).err == "Invalid pass number (should be 1-5).\n");
  CHECK(parse({"-p", "0", "-e", "x"}).result.outcome == stap::ParseOutcome::exit_error);
  CHECK(parse({"-x", "abc", "-e", "x"}).result.outcome == stap::ParseOutcome::exit_error);
  CHECK(parse({"-T", "-3", "-e", "x"}).result.outcome == stap::ParseOutcome::exit_error);
  CHECK(parse({"-D", "1BAD=2", "-e", "x"}).result.outcome == stap::ParseOutcome::exit_error);
  CHECK(parse({"-G", "novalue", "-e", "x"}).result.outcome == stap::ParseOutcome::exit_error);
  CHECK(parse({"--runtime=kernel", "-e", "x"}).err.find("eBPF only") != std::string::npos);
  CHECK(parse({"--vp", "1x", "-e", "x"}).result.outcome == stap::ParseOutcome::exit_error);
  CHECK(parse({"--compatible=2.x", "-e", "x"}).err.find("Invalid --compatible '2.x'") !=
        std::string::npos);
  CHECK(parse({"--compatible=", "-e", "x"}).result.outcome == stap::ParseOutcome::exit_error);
  CHECK(parse({"--compatible=2.9", "-e", "x"}).result.options.compatible == "2.9");
}

TEST_CASE("every accepted option lands in Options") {
  Run r = parse({"-u", "-w", "-W", "-g", "-I", "/d1", "-I", "/d2", "-D", "MAXSTRINGLEN=256",
                 "-D", "STP_NO_OVERLOAD", "-r", "6.1.0-9-amd64", "-c", "ls -l",
                 "-o", "out.txt", "-m", "mod", "-k", "-T", "10", "-s", "8", "-b", "-t",
                 "-d", "/bin/ls", "--ldd", "--all-modules", "-G", "g=1", "--bpf",
                 "--runtime=bpf", "--no-global-var-display", "--suppress-handler-errors",
                 "--vp", "01002", "-E", "probe end {}", "-e", "probe begin {}"});
  REQUIRE(r.result.outcome == stap::ParseOutcome::run);
  const stap::Options& o = r.result.options;
  CHECK((o.keep_unused && o.suppress_warnings && o.warnings_are_errors && o.guru));
  CHECK(o.include_dirs == std::vector<std::string>{"/d1", "/d2"});
  CHECK(o.defines.at("MAXSTRINGLEN") == "256");
  CHECK(o.defines.at("STP_NO_OVERLOAD") == "");
  CHECK(o.kernel_release == "6.1.0-9-amd64");
  CHECK(o.target_command == "ls -l");
  // -x goes alone: stap refuses it together with -c.
  CHECK(parse({"-x", "42", "-e", "x"}).result.options.target_pid == 42);
  CHECK(o.output_file == "out.txt");
  CHECK(o.module_name == "mod");
  CHECK((o.keep_temps && o.bulk && o.timing && o.ldd && o.all_modules));
  CHECK(o.time_limit_s == 10);
  CHECK(o.buffer_mb == 8);
  CHECK(o.symbol_modules == std::vector<std::string>{"/bin/ls"});
  CHECK(o.global_settings == std::vector<std::string>{"g=1"});
  CHECK(!o.global_var_display);
  CHECK(o.suppress_handler_errors);
  CHECK(o.verbosity(1) == 0);
  CHECK(o.verbosity(2) == 1);
  CHECK(o.verbosity(5) == 2);
  CHECK(o.extra_scripts == std::vector<std::string>{"probe end {}"});
  CHECK(o.later_pass_options.size() == 13);
}

TEST_CASE("-l and -L need no script") {
  Run r = parse({"-l", "begin"});
  REQUIRE(r.result.outcome == stap::ParseOutcome::run);
  CHECK(r.result.options.list_pattern == "begin");
  CHECK(!r.result.options.list_with_vars);
  CHECK(parse({"-L", "timer.s(1)"}).result.options.list_with_vars);
}

TEST_CASE("--dump-probe-types and --dump-probe-aliases need no script, one at a time") {
  Run t = parse({"--dump-probe-types"});
  REQUIRE(t.result.outcome == stap::ParseOutcome::run);
  CHECK(t.result.options.dump == stap::Options::Dump::probe_types);
  CHECK(parse({"--dump-probe-aliases"}).result.options.dump ==
        stap::Options::Dump::probe_aliases);
  CHECK(parse({"--dump-probe-types", "-l", "begin"}).result.outcome ==
        stap::ParseOutcome::exit_error);
  CHECK(parse({"--dump-probe-aliases", "-e", "probe begin {}"}).result.outcome ==
        stap::ParseOutcome::exit_error);
}

TEST_CASE("kernel-module-only options are refused by name") {
  Run r = parse({"-B", "x=y", "-e", "probe begin {}"});
  CHECK(r.result.outcome == stap::ParseOutcome::exit_error);
  CHECK(r.err.find("option '-B'") != std::string::npos);
  Run l = parse({"--remote=host", "-e", "probe begin {}"});
  CHECK(l.err.find("option '--remote'") != std::string::npos);
}

TEST_CASE("--help and --version print and exit 0") {
  Run h = parse({"--help"});
  CHECK(h.result.outcome == stap::ParseOutcome::exit_ok);
  CHECK(h.out.rfind("Usage: stap", 0) == 0);
  Run v = parse({"-V"});
  CHECK(v.result.outcome == stap::ParseOutcome::exit_ok);
  CHECK(v.out.find("Systemtap translator/driver") != std::string::npos);
}

TEST_CASE("rc file words come first and the command line can add to them") {
  std::string dir = "/tmp/stap_rc_test";
  std::system(("mkdir -p " + dir).c_str());
  std::ofstream(dir + "/rc") << "# defaults\n-I /rc/tapsets  -v\n";
  setenv("SYSTEMTAP_DIR", dir.c_str(), 1);
  std::vector<std::string> words = {"stap", "-p1", "-e", "probe begin {}"};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  stap::ParsedCommandLine r = stap::parse_command_line(static_cast<int>(argv.size()), argv.data());
  REQUIRE(r.outcome == stap::ParseOutcome::run);
  CHECK(r.options.include_dirs == std::vector<std::string>{"/rc/tapsets"});
  CHECK(r.options.verbosity(1) == 1);
  CHECK(r.options.last_pass == 1);
  CHECK(stap::split_rc_words(" a  b # c\n\n d") == std::vector<std::string>{"a", "b", "d"});
}
