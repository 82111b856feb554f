// StackSymbols' text against facts read independently: this machine's
// /proc/kallsyms (parsed here, not through KernelSymbols) for kernel
// frames, and `nm -S` of this very test binary for user frames.  Formats
// are stap 4.8's (runtime/sym.c _stp_snprint_addr: %p is %#x, _STP_SYM_FULL
// " ADDR : name+0xOFF/0xSIZE [module]", nothing known: the address alone).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <climits>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "loader/symbols/stack_symbols.h"

// A function of this binary to find by address; C linkage so that nm and
// the symbolizer agree on its name without demangling.
extern "C" __attribute__((noinline, used)) int stack_symbols_test_target(int x) {
  volatile int y = x;
  for (int i = 0; i < 8; ++i) y = y * 3 + i;
  return y;
}

namespace stap::test {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

struct KallsymsEntry {
  uint64_t address = 0, next = 0;  // next: the next higher vmlinux address
};

// vmlinux's text symbol `name` from /proc/kallsyms, read line by line.
std::optional<KallsymsEntry> kallsyms_entry(const std::string& name) {
  std::ifstream in("/proc/kallsyms");
  std::string line;
  std::vector<uint64_t> vmlinux;
  std::optional<KallsymsEntry> found;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string addr, type, sym, module;
    f >> addr >> type >> sym >> module;
    if (!module.empty()) continue;
    uint64_t a = std::strtoull(addr.c_str(), nullptr, 16);
    vmlinux.push_back(a);
    if (sym == name && (type == "t" || type == "T") && !found) found = KallsymsEntry{a, 0};
  }
  if (!found || found->address == 0) return std::nullopt;  // kptr_restrict
  uint64_t next = UINT64_MAX;
  for (uint64_t a : vmlinux)
    if (a > found->address && a < next) next = a;
  found->next = next;
  return found;
}

std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  REQUIRE(n > 0);
  return std::string(buf, size_t(n));
}

// `nm -S`'s size of a symbol of this binary.
uint64_t nm_size(const std::string& path, const std::string& name) {
  std::string cmd = "nm -S --defined-only '" + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char line[1024];
  uint64_t size = 0;
  while (std::fgets(line, sizeof line, p)) {
    char value[32], sz[32], type[4], sym[512];
    if (std::sscanf(line, "%31s %31s %3s %511s", value, sz, type, sym) == 4 && name == sym)
      size = std::strtoull(sz, nullptr, 16);
  }
  pclose(p);
  return size;
}

}  // namespace

TEST_CASE("kernel frames name kallsyms' function, offset and size", "[stack_symbols]") {
  std::optional<KallsymsEntry> e = kallsyms_entry("vfs_read");
  if (!e) {
    WARN("no vfs_read address in /proc/kallsyms (not root?)");
    return;
  }
  StackSymbols s(128);
  uint64_t size = e->next - e->address;
  REQUIRE(size > 0x10);
  uint64_t pc = e->address + 0x10;
  CHECK(s.symname(pc, false, 0) == "vfs_read");
  CHECK(s.symdata(pc, false, 0) == "vfs_read+0x10/" + hex(size) + " [kernel]");
  CHECK(s.full_lines({pc, e->address}, false, 0) ==
        " " + hex(pc) + " : vfs_read+0x10/" + hex(size) + " [kernel]\n" + " " +
            hex(e->address) + " : vfs_read+0x0/" + hex(size) + " [kernel]\n");
  CHECK(s.stack_lines(hex(pc) + " " + hex(e->address), false, 0) ==
        s.full_lines({pc, e->address}, false, 0));
}

TEST_CASE("an address no symbol holds prints as its hex", "[stack_symbols]") {
  StackSymbols s(128);
  CHECK(s.symname(0x10, false, 0) == "0x10");
  CHECK(s.symdata(0x10, false, 0) == "0x10");
  CHECK(s.full_lines({0x10}, false, 0) == " 0x10\n");
  // Page 1 of this process is never mapped.
  REQUIRE(s.user().capture(uint32_t(getpid())));
  CHECK(s.symdata(0x1234, true, uint32_t(getpid())) == "0x1234");
  CHECK(s.full_lines({0x1234}, true, uint32_t(getpid())) == " 0x1234\n");
}

TEST_CASE("a user frame in this binary names its function", "[stack_symbols]") {
  uint64_t target = reinterpret_cast<uint64_t>(&stack_symbols_test_target);
  std::string exe = self_path();
  uint64_t size = nm_size(exe, "stack_symbols_test_target");
  REQUIRE(size > 4);
  uint32_t me = uint32_t(getpid());
  StackSymbols s(128);
  REQUIRE(s.user().capture(me));
  uint64_t pc = target + 4;
  CHECK(s.symname(pc, true, me) == "stack_symbols_test_target");
  CHECK(s.symdata(pc, true, me) ==
        "stack_symbols_test_target+0x4/" + hex(size) + " [" + exe + "]");
  CHECK(s.full_lines({pc}, true, me) ==
        " " + hex(pc) + " : stack_symbols_test_target+0x4/" + hex(size) + " [" + exe + "]\n");
  CHECK(s.symname(target + size, true, me) != "stack_symbols_test_target");
}

TEST_CASE("an exited process's frames still resolve through its captured mappings",
          "[stack_symbols]") {
  uint64_t target = reinterpret_cast<uint64_t>(&stack_symbols_test_target);
  int gate[2];
  REQUIRE(pipe(gate) == 0);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // the same mappings as ours; lives until the pipe closes
    close(gate[1]);
    char c;
    ssize_t r = read(gate[0], &c, 1);
    _exit(r < 0 ? 1 : 0);
  }
  close(gate[0]);
  StackSymbols s(128);
  bool captured = s.user().capture(uint32_t(child));
  close(gate[1]);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(captured);
  CHECK(s.symname(target + 1, true, uint32_t(child)) == "stack_symbols_test_target");
  // A process never captured and gone names nothing.
  StackSymbols fresh(128);
  CHECK(fresh.symname(target + 1, true, uint32_t(child)) == hex(target + 1));
}

TEST_CASE("leading frames of the BPF plumbing are dropped from kernel stacks",
          "[stack_symbols]") {
  CHECK(StackSymbols::bpf_dispatch_frame("trace_call_bpf"));
  CHECK(StackSymbols::bpf_dispatch_frame("perf_trace_run_bpf_submit"));
  CHECK(StackSymbols::bpf_dispatch_frame("__bpf_trace_sched_switch"));
  CHECK(StackSymbols::bpf_dispatch_frame("bpf_trace_run4"));
  CHECK_FALSE(StackSymbols::bpf_dispatch_frame("__schedule"));
  CHECK_FALSE(StackSymbols::bpf_dispatch_frame("vfs_read"));
  std::optional<KallsymsEntry> call = kallsyms_entry("trace_call_bpf");
  std::optional<KallsymsEntry> submit = kallsyms_entry("perf_trace_run_bpf_submit");
  std::optional<KallsymsEntry> sched = kallsyms_entry("__schedule");
  std::optional<KallsymsEntry> read = kallsyms_entry("vfs_read");
  if (!call || !submit || !sched || !read) {
    WARN("kallsyms lacks the functions or their addresses (not root?)");
    return;
  }
  StackSymbols s(128);
  std::vector<uint64_t> ours{call->address + 8, submit->address + 8};
  std::vector<uint64_t> rest{sched->address + 8, read->address + 8, call->address + 8};
  std::vector<uint64_t> all = ours;
  all.insert(all.end(), rest.begin(), rest.end());
  // Only the leading ones go: the same name deeper down stays.
  CHECK(s.drop_bpf_frames(all) == rest);
  CHECK(s.drop_bpf_frames(rest) == rest);
  // A stack of nothing but plumbing stays whole rather than empty.
  CHECK(s.drop_bpf_frames(ours) == ours);
}

// The first vmlinux data symbol in /proc/kallsyms with room after it.
std::optional<std::pair<std::string, uint64_t>> kallsyms_data_symbol() {
  std::ifstream in("/proc/kallsyms");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string addr, type, sym, module;
    f >> addr >> type >> sym >> module;
    uint64_t a = std::strtoull(addr.c_str(), nullptr, 16);
    if (module.empty() && a != 0 && (type == "D" || type == "d" || type == "B" || type == "b") &&
        kallsyms_entry(sym) == std::nullopt)
      return std::make_pair(sym, a);
  }
  return std::nullopt;
}

TEST_CASE("a stack frame is named by code only, a data address by data too",
          "[stack_symbols]") {
  // A text cut at MAXSTRINGLEN can end in part of an address; on the 6.1
  // guest an idle CPU's "0xffffffff810" printed as
  // __per_cpu_end+0xffffffca810/0xffffffff80fcb000 (a data symbol near 0).
  std::optional<std::pair<std::string, uint64_t>> data = kallsyms_data_symbol();
  if (!data) {
    WARN("no data symbol address in /proc/kallsyms (not root?)");
    return;
  }
  StackSymbols s(128);
  uint64_t a = data->second;
  CHECK(s.stack_lines(hex(a), false, 0) == " " + hex(a) + " : " + hex(a) + "\n");
  CHECK(s.full_lines({a}, false, 0) == " " + hex(a) + "\n");
  CHECK(s.symname(a, false, 0) == data->first);
  CHECK(s.symdata(a, false, 0).rfind(data->first + "+0x0/", 0) == 0);
}

}  // namespace stap::test
