// Kernel DWARF (debuginfo/kernel_dwarf.h): where vmlinux's DWARF is looked
// for and the message naming the package when it is missing; a module's
// relocatable object read through its relocations (a gcc -c object stands
// for a .ko: the same ET_REL file with RELA debug sections), its points
// resolved to symbol + offset, checked against nm and readelf's decoded
// line table (readelf applies the relocations itself).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

#include "debuginfo/kernel_dwarf.h"
#include "debuginfo_fixture.h"
#include "lower_fixture.h"

using namespace stap::debuginfo;
using stap::test::run_command;

namespace fs = std::filesystem;

namespace {

const char* const kModuleSource = R"(struct pair { int left; long right; };
int counter;
__attribute__((noinline)) static int work(int value, const char *tag)
{
  struct pair p = { value, value * 2L };
  int total = p.left + (int)p.right;
  counter++;
  if (tag[0] == 't')
    total += 1000;
  __asm__ volatile("" : : "r"(&p) : "memory");
  return total + counter;
}
__attribute__((section(".init.text"), noinline)) int setup(int v) { return work(v, "t") + 1; }
int entry(int v, const char *t) { return work(v, t) * 3; }
)";

// A scratch directory holding t.c compiled to t.ko (gcc -c -g -O2).
std::string build_module() {
  static std::string dir;
  if (!dir.empty()) return dir;
  dir = fs::temp_directory_path() / ("stap-kdw-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir + "/t.c") << kModuleSource;
  std::string out = run_command("cd " + dir + " && gcc -g -O2 -fno-pic -mcmodel=kernel -c t.c -o t.ko 2>&1");
  INFO(out);
  REQUIRE(fs::exists(dir + "/t.ko"));
  return dir;
}

// nm's address of a symbol (section-relative in an object file).
uint64_t nm_address(const std::string& object, const std::string& name) {
  for (const std::string& line : stap::test::lines_of(run_command("nm " + object))) {
    std::istringstream in(line);
    std::string addr, type, sym;
    if (in >> addr >> type >> sym && sym == name) return std::stoull(addr, nullptr, 16);
  }
  FAIL("nm has no " << name);
  return 0;
}

// The first address readelf's decoded line table gives a line of t.c.
uint64_t readelf_line_address(const std::string& object, int line) {
  std::regex row(R"(^t\.c\s+(\d+)\s+0x([0-9a-f]+))");
  for (const std::string& text :
       stap::test::lines_of(run_command("readelf --debug-dump=decodedline " + object))) {
    std::smatch m;
    if (std::regex_search(text, m, row) && std::stoi(m[1]) == line)
      return std::stoull(m[2], nullptr, 16);
  }
  FAIL("readelf has no line " << line);
  return 0;
}

}  // namespace

TEST_CASE("kernel dwarf: build id from notes, module names", "[debuginfo][kernel_dwarf]") {
  // namesz 4, descsz 4, type 3 (NT_GNU_BUILD_ID), "GNU\0", desc.
  std::string notes;
  auto word = [&](uint32_t v) { notes.append(reinterpret_cast<const char*>(&v), 4); };
  word(6); word(2); word(1); notes.append("Linux\0\0\0", 8); notes.append("\1\2\0\0", 4);
  word(4); word(4); word(3); notes.append("GNU\0", 4); notes.append("\xde\xad\xbe\xef", 4);
  CHECK(build_id_from_notes(notes) == "deadbeef");
  CHECK(build_id_from_notes(notes.substr(0, 20)) == "");
  CHECK(module_name_of("/lib/modules/x/nf-conntrack.ko") == "nf_conntrack");
  CHECK(module_name_of("ext4") == "ext4");
}

TEST_CASE("kernel dwarf: where vmlinux's DWARF is found, and the message without it",
          "[debuginfo][kernel_dwarf]") {
  std::string dir = build_module();
  std::string root = dir + "/root";
  fs::remove_all(root);
  KernelDebugPlaces at{root, "6.1.0-99-amd64", ""};
  std::string looked;
  CHECK(find_vmlinux_dwarf(at, looked).empty());
  CHECK(looked.find(root + "/usr/lib/debug/boot/vmlinux-6.1.0-99-amd64") != std::string::npos);
  CHECK(looked.find(root + "/lib/modules/6.1.0-99-amd64/build/vmlinux") != std::string::npos);
  std::string message = no_kernel_dwarf_message("kernel.statement", "", looked);
  CHECK(message.starts_with("missing kernel debuginfo: kernel.statement needs the kernel's DWARF"));
  CHECK(message.find("install linux-image-$(uname -r)-dbg") != std::string::npos);
  message = no_kernel_dwarf_message("kernel.statement", "ext4", "/x/ext4.ko");
  CHECK(message == "missing kernel debuginfo: kernel.statement needs the DWARF of module ext4 "
                   "(looked in /x/ext4.ko); install linux-image-$(uname -r)-dbg (Debian; "
                   "kernel-debuginfo on Fedora)");
  // A linked program with DWARF stands in for vmlinux.
  fs::create_directories(root + "/usr/lib/debug/lib/modules/6.1.0-99-amd64");
  std::string exe = root + "/usr/lib/debug/lib/modules/6.1.0-99-amd64/vmlinux";
  std::string out = run_command("cd " + dir + " && printf 'int main(void){return 0;}' > m.c && "
                                "gcc -g m.c -o " + exe + " 2>&1");
  INFO(out);
  looked.clear();
  CHECK(find_vmlinux_dwarf(at, looked) == exe);
  // Another build's vmlinux is not this kernel's.
  at.build_id = "00112233";
  looked.clear();
  CHECK(find_vmlinux_dwarf(at, looked).empty());
  CHECK(looked.find("another build") != std::string::npos);
}

TEST_CASE("kernel dwarf: a relocatable module's points as symbol + offset",
          "[debuginfo][kernel_dwarf]") {
  std::string ko = build_module() + "/t.ko";
  std::string why;
  ProcessPattern p;
  p.kind = "function";
  p.spec = "*@t.c";
  ResolvedPoint r;
  REQUIRE(resolve_kernel_point(p, ko, r, why));
  INFO(why);
  CHECK(r.process == "t");
  std::map<std::string, const ProbeSite*> by_function;
  for (const ProbeSite& s : r.sites)
    if (!s.fn->inlined) by_function[s.function] = &s;
  REQUIRE(by_function.count("work"));
  REQUIRE(by_function.count("entry"));
  REQUIRE(by_function.count("setup"));
  // Functions of .text and .init.text (both at 0 in the object) are
  // apart once laid out, each at its own symbol + where its probe goes
  // (after the prologue when its variables have no location lists).
  for (const char* name : {"work", "entry", "setup"}) {
    const ProbeSite& s = *by_function[name];
    CHECK(s.symbol == name);
    CHECK(s.pc == r.binary->dwarf->function_probe_pc(*s.fn));
    CHECK(s.offset == s.pc - s.fn->entry_pc);
    CHECK(s.offset < 16);
    CHECK(s.point.starts_with("module(\"" + ko + "\").function(\"" + std::string(name) + "@"));
  }
  CHECK(by_function["setup"]->pc != by_function["entry"]->pc);
  // Names and types come through the relocated .debug_str / .debug_info.
  const DwarfFunction& work = *by_function["work"]->fn;
  std::string vars;
  for (const DwarfVariable& v : r.binary->dwarf->variables_at(work, work.entry_pc, false))
    vars += " " + v.name + ":" + type_name(v.type);
  CHECK(vars == " value:int tag:char const* p:struct pair total:int");

  // A statement: its offset in `work` is readelf's line address minus nm's.
  int line = 9;  // "total += 1000;"
  ProcessPattern st;
  st.kind = "statement";
  st.spec = "work@t.c:" + std::to_string(line);
  ResolvedPoint rs;
  REQUIRE(resolve_kernel_point(st, ko, rs, why));
  REQUIRE(rs.sites.size() >= 1);
  CHECK(rs.sites[0].symbol == "work");
  CHECK(rs.sites[0].offset == readelf_line_address(ko, line) - nm_address(ko, "work"));
  CHECK(rs.sites[0].point ==
        "module(\"" + ko + "\").statement(\"work@" + build_module() + "/t.c:9\")");

  // The same statement by address, as nm and readelf give it in the .ko.
  ProcessPattern by_address;
  by_address.kind = "statement";
  by_address.has_address = true;
  by_address.address = readelf_line_address(ko, line);
  ResolvedPoint ra;
  REQUIRE(resolve_kernel_point(by_address, ko, ra, why));
  REQUIRE(ra.sites.size() == 1);
  CHECK(ra.sites[0].symbol == "work");
  CHECK(ra.sites[0].offset == rs.sites[0].offset);
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(by_address.address));
  CHECK(ra.sites[0].point == "module(\"" + ko + "\").statement(" + hex + ")");
}

TEST_CASE("kernel dwarf: a module statement lowers to a kprobe at symbol + offset reading "
          "DWARF locals", "[debuginfo][kernel_dwarf]") {
  std::string dir = build_module();
  std::string ko = dir + "/t.ko";
  std::string point = "module(\"" + ko + "\").statement(\"work@t.c:9\")";
  stap::test::Lowered l =
      stap::test::lower_script("probe " + point + " { printf(\"%d %d %s\\n\", $total, $p->right, $$locals) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  REQUIRE(l.module.probes.size() == 1);
  const stap::ir::Probe& p = l.module.probes[0];
    CHECK(stap::test::kfunc_of(p).module == "t");
  CHECK(stap::test::kfunc_of(p).functions == std::vector<std::string>{"work"});
  REQUIRE(stap::test::kfunc_of(p).offsets.size() == 1);
  CHECK(stap::test::kfunc_of(p).offsets[0] == readelf_line_address(ko, 9) - nm_address(ko, "work"));
  CHECK(stap::test::kfunc_of(p).arg_count == -1);  // kprobes only: no trampoline variant
  CHECK(p.pp == "module(\"" + ko + "\").statement(\"work@" + dir + "/t.c:9\")");
  // Registers of the kprobe's pt_regs; the struct on the stack read as
  // kernel memory, never as user memory.
  CHECK(stap::test::find_op(p.body, stap::ir::Op::reg));
  CHECK(stap::test::find_op(p.body, stap::ir::Op::kread));
  CHECK_FALSE(stap::test::find_op(p.body, stap::ir::Op::uread));
  // A .return reads $return, and its entry values in a kfunc entry probe
  // at the function's symbol.
  stap::test::Lowered r = stap::test::lower_script(
      "probe module(\"" + ko + "\").function(\"work\").return { printf(\"%d %d\\n\", $return, $value) }");
  INFO(r.messages);
  REQUIRE(r.ok);
  REQUIRE(r.module.probes.size() == 2);
  for (const stap::ir::Probe& q : r.module.probes) {
        CHECK(stap::test::kfunc_of(q).functions == std::vector<std::string>{"work"});
    CHECK(stap::test::kfunc_of(q).offsets == std::vector<uint64_t>{0});
  }
}
