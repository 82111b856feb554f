// Which binaries the runtime builds unwind tables for
// (loader/unwind_tables.h): the script's process probes, -c's program,
// -x PID's mappings and -d files, each with its DT_NEEDED libraries
// (found through its RUNPATH) and its interpreter.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "debuginfo_fixture.h"
#include "loader/symbols/unwind_tables.h"

using stap::UnwindSources;
using stap::UnwindTables;
using stap::test::debuginfo_bin;

namespace {

bool has(const std::vector<std::string>& v, const std::string& path) {
  return std::find(v.begin(), v.end(), std::filesystem::canonical(path).string()) != v.end();
}

bool has_name(const std::vector<std::string>& v, const std::string& prefix) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& p) {
    return std::filesystem::path(p).filename().string().starts_with(prefix);
  });
}

}  // namespace

TEST_CASE("unwind binaries: a process probe's binary, its libraries and ld.so", "[unwind]") {
  stap::ir::Module m;
  stap::ir::Probe p;
  stap::ir::UprobeSpec uprobe;
  uprobe.binary = debuginfo_bin("sample_c_O2");
  p.spec = uprobe;
  m.probes.push_back(p);
  auto bins = UnwindTables::binaries(m, {});
  CHECK(has(bins, debuginfo_bin("sample_c_O2")));
  CHECK(has(bins, debuginfo_bin("libdisample.so.1")));  // through RUNPATH $ORIGIN
  CHECK(has_name(bins, "libc.so"));
  CHECK(has_name(bins, "ld-linux-x86-64.so"));
  // Each once, though the library needs libc too.
  auto sorted = bins;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

TEST_CASE("unwind binaries: -c's program, -x's mappings, -d files", "[unwind]") {
  stap::ir::Module m;
  UnwindSources s;
  s.command = "sh -c 'exit 0'";
  auto bins = UnwindTables::binaries(m, s);
  REQUIRE_FALSE(bins.empty());
  CHECK(std::filesystem::path(bins[0]).filename().string().find("sh") != std::string::npos);
  CHECK(has_name(bins, "libc.so"));

  UnwindSources x;
  x.target_pid = getpid();  // this test binary and what it maps
  bins = UnwindTables::binaries(m, x);
  CHECK(has(bins, "/proc/self/exe"));
  CHECK(has_name(bins, "libc.so"));

  UnwindSources d;
  d.modules = {debuginfo_bin("libdisample.so.1")};
  bins = UnwindTables::binaries(m, d);
  // The library needs nothing (no DT_NEEDED, no interpreter).
  CHECK(bins == std::vector<std::string>{std::filesystem::canonical(debuginfo_bin("libdisample.so.1")).string()});

  CHECK(UnwindTables::binaries(m, {}).empty());
}
