// User-space probes in codegen (compiler/codegen/emit_uprobe.cpp) and the
// loader (loader/attach_uprobe.cpp): both program variants are compiled,
// and a probe over two functions of this test binary fires at each with
// the right cookie, through uprobe.multi where the kernel has it (this
// host) and per-site uprobes where not (the guest, or
// STAP_UPROBE_MECHANISM=uprobe).
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "codegen_fixture.h"
#include "kernel/uprobe_support.h"
#include "loader/attach/attach.h"

using namespace codegen_test;

extern "C" __attribute__((noinline)) int stap_test_site_a(int x) {
  asm volatile("" ::: "memory");
  return x + 1;
}
extern "C" __attribute__((noinline)) int stap_test_site_b(int x) {
  asm volatile("" ::: "memory");
  return x + 2;
}

namespace {

// The file offset of code at `addr` in this process, from its mapping.
uint64_t file_offset(const void* addr) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  while (std::getline(maps, line)) {
    unsigned long start = 0, end = 0, offset = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx %*s %lx", &start, &end, &offset) != 3) continue;
    if (a >= start && a < end) return a - start + offset;
  }
  FAIL("no mapping holds " << addr);
  return 0;
}

std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  REQUIRE(n > 0);
  return std::string(buf, size_t(n));
}

Node* mine(Builder& t, Node* body) {
  Node* guard =
      t.bin(Op::eq, t.call_builtin("pid", Type::long_), t.call_builtin("target", Type::long_));
  return t.node(Op::if_, Type::none, {guard, body, t.node(Op::nop, Type::none)});
}

ir::Probe two_sites(Node* body) {
  ir::Probe p;
  p.context = ir::Context::kernel;
  p.pp = "process(\"unit_tests\").function(\"stap_test_site_*\")";
  ir::UprobeSpec spec;
  spec.binary = self_path();
  spec.offsets = {file_offset(reinterpret_cast<const void*>(&stap_test_site_a)),
                  file_offset(reinterpret_cast<const void*>(&stap_test_site_b))};
  spec.semaphores = {0, 0};
  spec.functions = {"stap_test_site_a", "stap_test_site_b"};
  spec.site_points = {"site_a", "site_b"};
  p.spec = std::move(spec);
  p.body = body;
  return p;
}

}  // namespace

TEST_CASE("uprobe attach: both variants compiled in the uprobe section", "[uprobe_attach]") {
  Builder t;
  size_t g = t.global("g", Type::long_);
  t.m.probes.push_back(two_sites(t.set_global(g, t.num(1))));
  CodegenResult r = generate_object(t.m, CodegenOptions{});
  INFO(r.error);
  REQUIRE(r.ok);
  bpf_object* obj = bpf_object__open_mem(r.object.data(), r.object.size(), nullptr);
  REQUIRE(obj);
  std::map<std::string, std::string> sections;
  bpf_program* prog;
  bpf_object__for_each_program(prog, obj) sections[bpf_program__name(prog)] = bpf_program__section_name(prog);
  bpf_object__close(obj);
  CHECK(sections["uprobe_0"] == "uprobe");
  CHECK(sections["uprobe_0_multi"] == "uprobe");
}

TEST_CASE("uprobe attach: two sites fire with their cookies", "[uprobe_attach]") {
  Builder t;
  size_t count = t.global("count", Type::long_), name = t.global("name", Type::string);
  Node* arg = t.node(Op::fn_arg, Type::long_, {}, 0, 4, 1);
  t.m.probes.push_back(two_sites(mine(t, t.block({
      t.set_global(count, t.bin(Op::add, t.get_global(count), arg)),
      t.set_global(name, t.node(Op::fn_name, Type::string, {}, 0, 1))}))));
  CodegenResult r = generate_object(t.m, CodegenOptions{});
  INFO(r.error);
  REQUIRE(r.ok);
  bpf_object* obj = bpf_object__open_mem(r.object.data(), r.object.size(), nullptr);
  REQUIRE(obj);
  std::string why;
  REQUIRE(prepare_probe(obj, t.m.probes[0], why));
  REQUIRE(bpf_object__load(obj) == 0);
  start_running(obj);
  bpf_map* map = bpf_object__find_map_by_name(obj, STAP_GLOBALS_MAP);
  std::vector<char> v(bpf_map__value_size(map));
  uint32_t zero = 0;
  std::vector<bpf_link*> links;
  std::string error;
  bool attached = attach_uprobe(obj, t.m.probes[0], std::get<ir::UprobeSpec>(t.m.probes[0].spec),
                                links, AttachReport{}, error);
  INFO(error);
  REQUIRE(attached);
  // uprobe.multi holds its one link by descriptor; per-site uprobes are two links.
  CHECK(links.size() == (kernel::uprobe_support().multi ? 0u : 2u));
  auto read_globals = [&] {
    REQUIRE(bpf_map_lookup_elem(bpf_map__fd(map), &zero, v.data()) == 0);
  };
  REQUIRE(stap_test_site_a(5) == 6);
  read_globals();
  int64_t c = 0;
  std::memcpy(&c, v.data() + t.m.globals[count].offset, 8);
  CHECK(c == 5);
  CHECK(std::string(v.data() + t.m.globals[name].offset) == "site_a");
  REQUIRE(stap_test_site_b(7) == 9);
  read_globals();
  std::memcpy(&c, v.data() + t.m.globals[count].offset, 8);
  CHECK(c == 12);
  CHECK(std::string(v.data() + t.m.globals[name].offset) == "site_b");
  destroy_links(links);
  REQUIRE(stap_test_site_a(1) == 2);  // detached: no longer counted
  read_globals();
  std::memcpy(&c, v.data() + t.m.globals[count].offset, 8);
  CHECK(c == 12);
  bpf_object__close(obj);
}
