// stap -l / -L (driver/listing.h): names, locals and their types, what is
// listed once, what is not listed, and the exit status.  The expected
// texts were checked against SystemTap 4.8 (ostap) with the same aliases.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/listing.h"

namespace {

struct Listed {
  int rc = 0;
  std::string out;
  std::string err;
};

// A tapset directory of its own holding `aliases`, next to the library.
std::string tapset_dir(const std::string& aliases) {
  static int serial = 0;
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("stap_listing_test_" + std::to_string(getpid()) + "_" +
                               std::to_string(serial++));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "list_test_aliases.stp") << aliases;
  return dir.string();
}

Listed list(const std::string& pattern, bool with_vars, const std::string& aliases = "",
            std::vector<std::string> extra = {}, int verbose = 0) {
  stap::Options o;
  o.list_pattern = pattern;
  o.list_with_vars = with_vars;
  o.extra_scripts = std::move(extra);
  for (int& v : o.verbose) v = verbose;
  stap::FrontendConfig config;
  config.tapset_dirs = {STAP_SOURCE_TAPSET_DIR};
  std::string dir = aliases.empty() ? std::string() : tapset_dir(aliases);
  if (!dir.empty()) config.tapset_dirs.push_back(dir);
  config.elaborate.list_mode = true;
  config.elaborate.list_types = with_vars;
  stap::Frontend fe(config);
  std::ostringstream out, err;
  Listed r;
  r.rc = stap::list_probes(o, fe, out, err);
  r.out = out.str();
  r.err = err.str();
  if (!dir.empty()) std::filesystem::remove_all(dir);
  return r;
}

const char* kAliases =
    "probe lt.a = begin { name = \"a\"; n = 1 }\n"
    "probe lt.b = begin, end { name = \"b\" }\n"
    "probe lt.twice = begin { name = \"x\"; only_first = 1 }\n"
    "probe lt.twice = end { name = \"y\"; only_second = \"s\" }\n"
    "probe lt.outer = lt.a { extra = \"e\" }\n"
    "probe lt.bad = lt_no_such_point {}\n";

}  // namespace

TEST_CASE("-l lists an alias under its name, once, sorted", "[listing]") {
  Listed r = list("lt.*", false, kAliases);
  CHECK(r.rc == 0);
  CHECK(r.out == "lt.a\nlt.b\nlt.outer\nlt.twice\n");
  CHECK(r.err.empty());  // lt.bad resolves to nothing: silently left out
}

TEST_CASE("-L prints alias locals with their types, only those every probe has", "[listing]") {
  Listed r = list("lt.*", true, kAliases);
  CHECK(r.out ==
        "lt.a name:string n:long\n"
        "lt.b name:string\n"
        "lt.outer name:string n:long extra:string\n"
        "lt.twice name:string\n");
}

TEST_CASE("-l of begin/end lists the points themselves, with marks", "[listing]") {
  CHECK(list("end,begin?", false).out == "begin?\nend\n");
  CHECK(list("begin", true).out == "begin\n");
}

TEST_CASE("probes of -E scripts are not listed", "[listing]") {
  Listed r = list("begin", false, "", {"probe end {}"});
  CHECK(r.out == "begin\n");
}

TEST_CASE("nothing matched: exit 1, no message unless -vv", "[listing]") {
  Listed quiet = list("lt_no_such_point", false);
  CHECK(quiet.rc == 1);
  CHECK(quiet.out.empty());
  CHECK(quiet.err.empty());
  Listed loud = list("lt_no_such_point", false, "", {}, 2);
  CHECK(loud.rc == 1);
  CHECK(loud.err.find("probe point mismatch") != std::string::npos);
}

TEST_CASE("a pattern that does not parse reports the parse error", "[listing]") {
  Listed r = list("begin{", false);
  CHECK(r.rc == 1);
  CHECK(r.err.find("parse error: expected statement") != std::string::npos);
  CHECK(r.err.find("1 parse error.\n") != std::string::npos);
}

TEST_CASE("one matching point is enough for exit 0", "[listing]") {
  Listed r = list("lt.bad,end", false, kAliases);
  CHECK(r.rc == 0);
  CHECK(r.out == "end\n");
}

TEST_CASE("--dump-probe-types prints every provider pattern once, sorted", "[listing]") {
  std::ostringstream out;
  CHECK(stap::dump_probe_types(out) == 0);
  std::istringstream lines(out.str());
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  CHECK(std::is_sorted(all.begin(), all.end()));
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
  for (const char* want : {"begin", "timer.ms(number)", "kernel.trace(string)",
                           "kernel.function(string).return", "process(string).function(string)",
                           "perf.type(number).config(number)"})
    CHECK(std::find(all.begin(), all.end(), want) != all.end());
}

TEST_CASE("--dump-probe-aliases prints each alias name with its points", "[listing]") {
  stap::FrontendConfig config;
  config.tapset_dirs = {tapset_dir(kAliases)};
  stap::Frontend fe(config);
  std::ostringstream out, err;
  CHECK(stap::dump_probe_aliases(fe, out, err) == 0);
  CHECK(out.str() ==
        "lt.a = begin\n"
        "lt.b = begin, end\n"
        "lt.bad = lt_no_such_point\n"
        "lt.outer = lt.a\n"
        "lt.twice = begin\n"
        "lt.twice = end\n");
  std::filesystem::remove_all(config.tapset_dirs[0]);
}
