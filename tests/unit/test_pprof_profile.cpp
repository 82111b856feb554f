// --pprof's profile (loader/output/pprof_profile.h) built from known
// samples and read back with the protobuf classes generated from pprof's
// own profile.proto: values, labels, frame order (leaf first, as pprof
// reads it), one Location per address and address space, Functions and
// Mappings; and the gzipped file, including its failures.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "loader/output/pprof_profile.h"
#include "profile.pb.h"

namespace {

namespace pb = perftools::profiles;
using stap::PprofFrame;
using stap::PprofInput;
using stap::PprofSample;

pb::Profile parse(const std::string& bytes) {
  pb::Profile p;
  REQUIRE(p.ParseFromString(bytes));
  return p;
}

// The function names of a sample's locations, in the profile's order.
std::vector<std::string> names(const pb::Profile& p, const pb::Sample& s) {
  std::map<uint64_t, std::string> function_name, location_name;
  for (const pb::Function& f : p.function()) function_name[f.id()] = p.string_table(f.name());
  for (const pb::Location& l : p.location())
    location_name[l.id()] = l.line_size() ? function_name.at(l.line(0).function_id()) : "?";
  std::vector<std::string> out;
  for (uint64_t id : s.location_id()) out.push_back(location_name.at(id));
  return out;
}

std::map<std::string, std::string> labels(const pb::Profile& p, const pb::Sample& s) {
  std::map<std::string, std::string> out;
  for (const pb::Label& l : s.label())
    out[p.string_table(l.key())] = l.str() ? p.string_table(l.str()) : "#" + std::to_string(l.num());
  return out;
}

// A user stack of burn_cpu (main -> burn_outer -> burn_leaf_a, leaf
// first) and a kernel stack below it, as one mixed key would give.
PprofInput known_input() {
  const std::string bin = "/opt/burn_cpu", kernel = "[kernel.kallsyms]";
  PprofInput in;
  in.with_sum = true;
  PprofSample a;
  a.frames = {{0xffffffff81000100, "asm_sysvec_apic_timer_interrupt", kernel, false, 0},
              {0x401110, "burn_leaf_a", bin, true, 42},
              {0x401200, "burn_outer", bin, true, 42},
              {0x401300, "main", bin, true, 42}};
  a.labels = {{"global", false, "s", 0}, {"key1", false, "burn_cpu", 0}, {"key2", true, {}, 42}};
  a.count = 7;
  a.sum = 70;
  PprofSample b;
  b.frames = {{0x401400, "burn_leaf_b", bin, true, 42},
              {0x401500, "", bin, true, 42},  // no symbol: a bare address
              {0x401300, "main", bin, true, 42}};
  b.labels = {{"global", false, "s", 0}, {"key1", false, "burn_cpu", 0}, {"key2", true, {}, 42}};
  b.count = 3;
  b.sum = 30;
  // The same address in another process is another place.
  PprofSample c;
  c.frames = {{0x401110, "burn_leaf_a", "/opt/libc.so.6", true, 43}};
  c.labels = {{"global", false, "u", 0}};
  c.count = c.sum = 1;
  in.samples = {a, b, c};
  return in;
}

std::string gunzip_file(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string out;
  char buf[4096];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  gzclose(f);
  return out;
}

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/test_pprof.XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::set<std::string> entries() const {
    std::set<std::string> out;
    DIR* d = opendir(path.c_str());
    while (dirent* e = d ? readdir(d) : nullptr)
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.insert(e->d_name);
    if (d) closedir(d);
    return out;
  }
};

}  // namespace

TEST_CASE("pprof: sample types, values and labels", "[pprof]") {
  pb::Profile p = parse(stap::pprof_encode(known_input()));
  REQUIRE(p.string_table(0).empty());
  REQUIRE(p.sample_type_size() == 2);
  CHECK(p.string_table(p.sample_type(0).type()) == "samples");
  CHECK(p.string_table(p.sample_type(0).unit()) == "count");
  CHECK(p.string_table(p.sample_type(1).type()) == "sum");
  CHECK(p.string_table(p.default_sample_type()) == "samples");
  REQUIRE(p.sample_size() == 3);
  CHECK(p.sample(0).value(0) == 7);
  CHECK(p.sample(0).value(1) == 70);
  CHECK(p.sample(1).value(0) == 3);
  CHECK(p.sample(1).value(1) == 30);
  auto l = labels(p, p.sample(0));
  CHECK(l == std::map<std::string, std::string>{{"global", "s"}, {"key1", "burn_cpu"}, {"key2", "#42"}});
  CHECK(labels(p, p.sample(2)) == std::map<std::string, std::string>{{"global", "u"}});
}

TEST_CASE("pprof: one sample type without statistics", "[pprof]") {
  PprofInput in = known_input();
  in.with_sum = false;
  pb::Profile p = parse(stap::pprof_encode(in));
  REQUIRE(p.sample_type_size() == 1);
  for (const pb::Sample& s : p.sample()) CHECK(s.value_size() == 1);
}

TEST_CASE("pprof: frames leaf first, one location per address", "[pprof]") {
  pb::Profile p = parse(stap::pprof_encode(known_input()));
  CHECK(names(p, p.sample(0)) ==
        std::vector<std::string>{"asm_sysvec_apic_timer_interrupt", "burn_leaf_a", "burn_outer", "main"});
  CHECK(names(p, p.sample(1)) == std::vector<std::string>{"burn_leaf_b", "?", "main"});
  // main's address is one Location in both samples; burn_leaf_a's address
  // in process 43 is another Location than in process 42.
  CHECK(p.sample(0).location_id(3) == p.sample(1).location_id(2));
  CHECK(p.sample(2).location_id(0) != p.sample(0).location_id(1));
  CHECK(p.location_size() == 7);  // 4 + 2 new in b + 1 in c
  std::set<uint64_t> ids;
  for (const pb::Location& loc : p.location()) {
    CHECK(loc.id() != 0);
    ids.insert(loc.id());
  }
  CHECK(ids.size() == size_t(p.location_size()));
  // A frame without a symbol: its address, no line (pprof may symbolize it).
  for (const pb::Location& loc : p.location())
    if (loc.address() == 0x401500) CHECK(loc.line_size() == 0);
  // burn_leaf_a is one Function per binary.
  int leaf_a = 0;
  for (const pb::Function& f : p.function()) leaf_a += p.string_table(f.name()) == "burn_leaf_a";
  CHECK(leaf_a == 2);
}

TEST_CASE("pprof: mappings hold their locations, the program's first", "[pprof]") {
  pb::Profile p = parse(stap::pprof_encode(known_input()));
  REQUIRE(p.mapping_size() == 3);
  CHECK(p.string_table(p.mapping(0).filename()) == "/opt/burn_cpu");
  CHECK_FALSE(p.mapping(0).has_functions());  // 0x401500 has no name
  std::map<uint64_t, const pb::Mapping*> by_id;
  for (const pb::Mapping& m : p.mapping()) by_id[m.id()] = &m;
  for (const pb::Location& loc : p.location()) {
    REQUIRE(by_id.count(loc.mapping_id()));
    const pb::Mapping& m = *by_id[loc.mapping_id()];
    CHECK(loc.address() >= m.memory_start());
    CHECK(loc.address() < m.memory_limit());
  }
}

TEST_CASE("pprof: the gzipped file reads back", "[pprof]") {
  TempDir dir;
  std::string path = dir.path + "/profile.pb.gz", error;
  std::string bytes = stap::pprof_encode(known_input());
  REQUIRE(stap::write_gzipped(path, bytes, error));
  std::ifstream raw(path, std::ios::binary);
  unsigned char magic[2] = {};
  raw.read(reinterpret_cast<char*>(magic), 2);
  CHECK((magic[0] == 0x1f && magic[1] == 0x8b));  // gzip, as pprof expects
  CHECK(gunzip_file(path) == bytes);
  CHECK(dir.entries() == std::set<std::string>{"profile.pb.gz"});  // no temporary left
  // Written again over the old one.
  PprofInput empty;
  REQUIRE(stap::write_gzipped(path, stap::pprof_encode(empty), error));
  pb::Profile p = parse(gunzip_file(path));
  CHECK(p.sample_size() == 0);
  CHECK(p.sample_type_size() == 1);  // an empty profile is still a valid one
}

TEST_CASE("pprof: an unwritable path fails and leaves nothing", "[pprof]") {
  TempDir dir;
  std::string error;
  std::string bytes = stap::pprof_encode(known_input());
  // Root ignores permission bits: a missing directory, a file as a
  // directory and a directory as the file fail for everyone.
  CHECK_FALSE(stap::write_gzipped(dir.path + "/missing/p.pb.gz", bytes, error));
  CHECK(error == "cannot write the pprof profile to " + dir.path +
                     "/missing/p.pb.gz: No such file or directory");
  std::ofstream(dir.path + "/file") << "x";
  CHECK_FALSE(stap::write_gzipped(dir.path + "/file/p.pb.gz", bytes, error));
  CHECK(error.find("Not a directory") != std::string::npos);
  mkdir((dir.path + "/sub").c_str(), 0755);
  CHECK_FALSE(stap::write_gzipped(dir.path + "/sub", bytes, error));
  CHECK(error.find("Is a directory") != std::string::npos);
  CHECK(dir.entries() == std::set<std::string>{"file", "sub"});
}
