// Probe providers: which family owns a point, pattern shapes, value checks
// and stap's wording for points that match nothing.
#include <catch2/catch.hpp>

#include "elaborate/providers/provider.h"
#include "probe_fixture.h"

using stap::test::ProbeFixture;
using stap::test::first_point;

namespace {

// Resolves one point as pass 2 does for points no alias claims; returns the
// concrete points printed, and leaves the diagnostics in the fixture.
std::vector<std::string> resolve(ProbeFixture& f, const std::string& text, bool quiet = false) {
  stap::ast::ProbePoint& p = first_point(f, text);
  REQUIRE(f.diags.error_count() == 0);
  std::vector<std::string> out;
  for (stap::ast::ProbePoint* c : stap::resolve_builtin_point(p, f.arena, {}, quiet, f.diags))
    out.push_back(stap::point_text(*c));
  return out;
}

}  // namespace

TEST_CASE("patterns parse into components with argument kinds") {
  stap::ProbePattern p = stap::parse_pattern("process(string).library(string).mark(string)");
  REQUIRE(p.components.size() == 3);
  CHECK(p.components[0].name == "process");
  CHECK(p.components[0].arg == stap::ArgKind::string);
  CHECK(p.components[2].name == "mark");
  stap::ProbePattern t = stap::parse_pattern("timer.ms(number).randomize(number)");
  REQUIRE(t.components.size() == 3);
  CHECK(t.components[1].arg == stap::ArgKind::number);
  stap::ProbePattern b = stap::parse_pattern("timer.profile.tick");
  REQUIRE(b.components.size() == 3);
  CHECK(b.components[2].arg == stap::ArgKind::none);
}

TEST_CASE("each family's points find their provider") {
  ProbeFixture f;
  struct Case {
    const char* point;
    const char* provider;
    bool later;
  };
  const Case cases[] = {
      {"begin", "begin/end", false},
      {"end(5)", "begin/end", false},
      {"never", "begin/end", false},
      {"timer.ms(5)", "timer", false},
      {"timer.profile.tick", "timer", false},
      {"kernel.trace(\"sched:sched_switch\")", "kernel.trace", true},
      {"kernel.tracepoint(\"sched_switch\")", "kernel.tracepoint", true},
      {"module(\"ext4\").tracepoint(\"ext4_sync_fs\")", "kernel.tracepoint", true},
      {"kernel.lsm(\"file_open\")", "kernel.lsm", true},
      {"kernel.function(\"vfs_read\").return", "kernel.function", true},
      {"module(\"ext4\").function(\"*\")", "kernel.function", true},
      {"kprobe.function(\"do_sys_open\")", "kernel.function", true},
      {"process(\"/bin/ls\").function(\"main\")", "process", true},
      {"process.begin", "process", true},
      {"process(123).end", "process", true},
      {"perf.type(1).config(0).sample(1000)", "perf", true},
      {"procfs(\"a\").read", "procfs", false},
      {"netfilter.hook(\"NF_INET_LOCAL_IN\").pf(\"NFPROTO_IPV4\")", "netfilter", false},
      {"netfilter.pf(\"NFPROTO_IPV6\").hook(\"NF_IP6_FORWARD\").priority(\"1\")", "netfilter",
       false},
  };
  for (const Case& c : cases) {
    INFO(c.point);
    stap::ast::ProbePoint& p = first_point(f, c.point);
    const stap::ProbeProvider* provider = stap::find_provider(p);
    REQUIRE(provider != nullptr);
    CHECK(provider->name() == c.provider);
    CHECK(provider->resolved_later() == c.later);
    CHECK(provider->validate(p, f.diags));
  }
  CHECK(f.diags.error_count() == 0);
  CHECK(stap::find_provider(first_point(f, "foo.bar")) == nullptr);
}

TEST_CASE("every pattern of the table is claimed by its own provider") {
  for (const stap::ProbeProvider* provider : stap::all_providers()) {
    REQUIRE_FALSE(provider->patterns().empty());
    for (const stap::ProbePattern& pattern : provider->patterns()) {
      stap::ast::ProbePoint point;
      for (const stap::PatternComponent& c : pattern.components) {
        stap::ast::ProbePointComponent pc;
        pc.functor = c.name;
        point.components.push_back(pc);
      }
      INFO(pattern.text);
      CHECK(stap::find_provider(point) == provider);
    }
  }
}

TEST_CASE("timer intervals are checked against stap's ranges") {
  struct Case {
    const char* point;
    const char* error;  // empty when valid
  };
  const Case cases[] = {
      {"timer.ms(5)", ""},
      {"timer.ms(0)", "interval value out of range (1, 86400000)"},
      {"timer.s(86400)", ""},
      {"timer.sec(86401)", "interval value out of range (1, 86400)"},
      {"timer.us(99)", "interval value out of range (100, 86400000000)"},
      {"timer.nsec(100)", "interval value out of range (100000, 86400000000000)"},
      {"timer.jiffies(0)", "invalid interval for jiffies timer"},
      {"timer.jiffies(1000000)", ""},
      {"timer.hz(0)", "frequency must be greater than 0"},
      {"timer.hz(1000)", ""},
      {"timer.hz(1000000)", "interval value out of range (100000, 86400000000000)"},
      {"timer.ms(5).randomize(5)", ""},
      {"timer.ms(5).randomize(6)", "randomization value out of range"},
  };
  for (const Case& c : cases) {
    INFO(c.point);
    ProbeFixture f;
    std::vector<std::string> got = resolve(f, c.point);
    if (*c.error == 0) {
      CHECK(got.size() == 1);
      CHECK(f.diags.error_count() == 0);
    } else {
      CHECK(got.empty());
      std::string msg = f.messages();
      CHECK(msg.find("while resolving probe point: identifier 'timer'") != std::string::npos);
      CHECK(msg.find(std::string("semantic error: ") + c.error) != std::string::npos);
    }
  }
}

TEST_CASE("shape errors say what was expected, as stap words them") {
  struct Case {
    const char* point;
    const char* error;
  };
  const Case cases[] = {
      {"timer.ms", "probe point mismatch (similar: ms,"},
      {"timer.ms(\"x\")", "probe point mismatch (similar: ms,"},
      {"begin.bar", "invalid suffix for probe: identifier 'bar'"},
      {"begin(\"x\")", "probe point mismatch"},
      {"kernel", "probe point truncated (follow: "},
      {"perf.type(1)", "probe point truncated (follow:  config(number)): identifier 'type'"},
      {"kernel.function(\"f\").foo", "invalid suffix for probe: identifier 'foo'"},
      {"kernel.trace(1)", "probe point mismatch (similar: trace"},
      {"kernel.trace(\"\")", "invalid tracepoint string provided"},
      {"kernel.tracepoint(\"\")", "empty tracepoint name"},
      {"kernel.tracepoint(\"sched:sched_switch\")", "does not use system:name syntax"},
      {"module(\"m\").tracepoint(\"a:b\")", "does not use system:name syntax"},
      {"kernel.lsm(\"\")", "empty LSM hook name"},
      {"process(0).begin", "process id must be positive"},
      {"perf.type(1).config(0).sample(0)", "perf sample value must be positive"},
      {"foo.bar", "probe point mismatch"},
  };
  for (const Case& c : cases) {
    INFO(c.point);
    ProbeFixture f;
    CHECK(resolve(f, c.point).empty());
    std::string msg = f.messages();
    CHECK(msg.find("while resolving probe point") != std::string::npos);
    CHECK(msg.find(c.error) != std::string::npos);
  }
}

TEST_CASE("a truncated point lists what may follow") {
  ProbeFixture f;
  resolve(f, "kernel");
  std::string msg = f.messages();
  CHECK(msg.find("function(string)") != std::string::npos);
  CHECK(msg.find("trace(string)") != std::string::npos);
  CHECK(msg.find("statement(number)") != std::string::npos);
}

TEST_CASE("the mismatch hint offers nearby names and alias heads") {
  ProbeFixture f;
  stap::ast::ProbePoint& p = first_point(f, "begn");
  CHECK(stap::resolve_builtin_point(p, f.arena, {"syscall"}, false, f.diags).empty());
  CHECK(f.messages().find("(similar: begin") != std::string::npos);
  ProbeFixture g;
  stap::ast::ProbePoint& q = first_point(g, "syscal");
  stap::resolve_builtin_point(q, g.arena, {"syscall"}, false, g.diags);
  CHECK(g.messages().find("(similar: syscall") != std::string::npos);
}

TEST_CASE("wildcard component names expand over the providers' patterns") {
  ProbeFixture f;
  CHECK(resolve(f, "timer.m*(5)") == std::vector<std::string>{"timer.ms(5)", "timer.msec(5)"});
  CHECK(resolve(f, "beg*") == std::vector<std::string>{"begin"});
  CHECK(f.diags.error_count() == 0);
  ProbeFixture g;
  CHECK(resolve(g, "timer.x*(5)").empty());
  CHECK(g.messages().find("didn't find any wildcard matches") != std::string::npos);
}

TEST_CASE("an optional point fails silently, even when malformed") {
  ProbeFixture f;
  CHECK(resolve(f, "timer.ms(0)", /*quiet=*/true).empty());
  CHECK(resolve(f, "foo.bar", /*quiet=*/true).empty());
  CHECK(f.diags.error_count() == 0);
}

TEST_CASE("families say whether their probes have target variables and @entry") {
  struct Case {
    const char* point;
    bool target_vars;
    bool entry;
  };
  const Case cases[] = {
      {"begin", false, false},
      {"end(5)", false, false},
      {"error", false, false},
      {"never", false, false},
      {"timer.ms(10)", false, false},
      {"timer.profile.tick", false, false},
      {"perf.type(0).config(0)", false, false},
      {"kernel.function(\"vfs_read\")", true, false},
      {"kernel.function(\"vfs_read\").return", true, true},
      {"module(\"ext4\").function(\"f\").return.maxactive(4)", true, true},
      {"kernel.trace(\"sched_switch\")", true, false},
      {"process(\"/bin/ls\").function(\"main\")", true, false},
      {"process(\"/bin/ls\").function(\"main\").return", true, true},
      {"process(\"/bin/ls\").syscall", true, false},
      {"process(\"/bin/ls\").syscall.return", true, false},
      {"process.begin", false, false},
      {"process(\"/bin/ls\").thread.end", false, false},
  };
  for (const Case& c : cases) {
    ProbeFixture f;
    stap::ast::ProbePoint& p = first_point(f, c.point);
    const stap::ProbeProvider* provider = stap::find_provider(p);
    INFO(c.point);
    REQUIRE(provider != nullptr);
    CHECK(provider->has_target_vars(p) == c.target_vars);
    CHECK(provider->has_entry_values(p) == c.entry);
  }
  ProbeFixture f;
  stap::ast::ProbePoint& life = first_point(f, "process.end");
  CHECK(stap::find_provider(life)->no_target_vars_message(life).starts_with(
      "only \"process(PATH_OR_PID).syscall\""));
  stap::ast::ProbePoint& begin = first_point(f, "begin");
  CHECK(stap::find_provider(begin)->no_target_vars_message(begin) ==
        "unresolved target-symbol expression");
}
