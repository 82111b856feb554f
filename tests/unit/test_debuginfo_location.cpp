// Variable locations and SDT arguments evaluated in a real process: the
// test program runs under ptrace, stops at a breakpoint on the probe
// address (moved by the load bias of the PIE), and each location is
// evaluated the way the code generator will: registers through their
// pt_regs offsets (struct user_regs_struct has pt_regs' layout on x86-64),
// memory read from the process.  The values are the ones the program
// computes, so a wrong register, frame base or offset fails.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "debuginfo/sdt_notes.h"
#include "debuginfo_fixture.h"

using namespace stap::debuginfo;
using stap::test::debuginfo_bin;
using stap::test::open_binary;
using stap::test::run_command;

namespace {

class Tracee {
 public:
  explicit Tracee(const std::string& path) : path_(std::filesystem::canonical(path).string()) {
    pid_ = fork();
    if (pid_ == 0) {
      ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      execl(path_.c_str(), path_.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    waitpid(pid_, &status, 0);  // stopped at exec
    stopped_ = WIFSTOPPED(status);
  }
  ~Tracee() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool stopped() const { return stopped_; }

  // The load bias of the program (0 for a fixed-address one).
  uint64_t bias(const ElfFile& elf) const {
    if (!elf.relocatable()) return 0;
    std::ifstream maps("/proc/" + std::to_string(pid_) + "/maps");
    std::string line;
    while (std::getline(maps, line)) {
      if (!line.ends_with(" " + path_)) continue;
      uint64_t start = std::stoull(line, nullptr, 16);
      return start - (elf.segments().at(0).vaddr & ~uint64_t(0xfff));
    }
    return 0;
  }

  // Runs to `address` (a breakpoint there) and reads the registers.
  bool run_to(uint64_t address) {
    long word = ptrace(PTRACE_PEEKTEXT, pid_, address, nullptr);
    ptrace(PTRACE_POKETEXT, pid_, address, (word & ~0xffL) | 0xcc);
    int status = 0;
    ptrace(PTRACE_CONT, pid_, nullptr, nullptr);
    waitpid(pid_, &status, 0);
    ptrace(PTRACE_POKETEXT, pid_, address, word);
    if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) return false;
    ptrace(PTRACE_GETREGS, pid_, nullptr, &regs_);
    regs_.rip = address;
    ptrace(PTRACE_SETREGS, pid_, nullptr, &regs_);
    return true;
  }

  uint64_t reg(int dwarf_reg) const {
    auto offset = pt_regs_offset(dwarf_reg);
    REQUIRE(offset);
    uint64_t value;
    memcpy(&value, reinterpret_cast<const char*>(&regs_) + *offset, 8);
    return value;
  }

  uint64_t read(uint64_t address, size_t size) const {
    uint64_t value = 0;
    int fd = open(("/proc/" + std::to_string(pid_) + "/mem").c_str(), O_RDONLY);
    bool ok = pread(fd, &value, size, static_cast<off_t>(address)) == static_cast<ssize_t>(size);
    close(fd);
    REQUIRE(ok);
    return value;
  }

  std::string read_string(uint64_t address) const {
    std::string out;
    for (char c; out.size() < 256 && (c = static_cast<char>(read(address + out.size(), 1)));)
      out += c;
    return out;
  }

  // A variable's value (up to 8 bytes) per its location.
  uint64_t evaluate(const Location& loc, uint64_t bias, size_t size) const {
    if (loc.kind == LocKind::register_) return reg(loc.reg);
    if (loc.kind == LocKind::constant) {
      uint64_t value = 0;
      memcpy(&value, loc.bytes.data(), std::min(size, loc.bytes.size()));
      return value;
    }
    std::vector<uint64_t> stack;
    for (const auto& op : loc.ops) {
      switch (op.kind) {
        case LocOpKind::push_reg: stack.push_back(reg(op.reg) + op.value); break;
        case LocOpKind::push_addr: stack.push_back(op.value + bias); break;
        case LocOpKind::push_const: stack.push_back(op.value); break;
        case LocOpKind::plus_const: stack.back() += op.value; break;
        case LocOpKind::deref: stack.back() = read(stack.back(), op.size); break;
        default: {
          REQUIRE(stack.size() >= 2);
          uint64_t b = stack.back();
          stack.pop_back();
          REQUIRE(op.kind == LocOpKind::plus);
          stack.back() += b;
        }
      }
    }
    REQUIRE(stack.size() == 1);
    return loc.kind == LocKind::value ? stack.back() : read(stack.back(), size);
  }

 private:
  std::string path_;
  pid_t pid_ = -1;
  bool stopped_ = false;
  user_regs_struct regs_{};
};

struct Probe {
  stap::test::OpenedBinary bin;
  const DwarfFunction* fn = nullptr;
  uint64_t pc = 0;

  uint64_t value(Tracee& t, const std::string& name, std::string* described = nullptr) {
    std::vector<DwarfVariable> vars = bin.dwarf->parameters(*fn);
    for (const auto& v : bin.dwarf->locals(*fn, pc)) vars.push_back(v);
    for (const auto& v : vars) {
      if (v.name != name) continue;
      std::string why;
      auto loc = bin.dwarf->location(*fn, v, pc, why);
      INFO(name << ": " << why);
      REQUIRE(loc);
      if (described) *described = describe(*loc);
      return t.evaluate(*loc, t.bias(*bin.elf), type_size(v.type));
    }
    FAIL("no variable " << name);
    return 0;
  }
};

Probe probe_at(const std::string& binary, const std::string& function, bool after_prologue) {
  Probe p{stap::test::open_binary(debuginfo_bin(binary))};
  INFO(p.bin.why);
  REQUIRE(p.bin.dwarf);
  auto found = p.bin.dwarf->match_functions(function);
  REQUIRE(found.size() == 1);
  p.fn = found[0];
  p.pc = after_prologue ? p.bin.dwarf->prologue_end(*p.fn) : p.fn->entry_pc;
  return p;
}

// sample_c's output: "SUM SCALED TWICE"; SUM is what sample_marks gets.
int64_t sample_sum_result(const std::string& binary) {
  return std::stoll(run_command(debuginfo_bin(binary)));
}

}  // namespace

TEST_CASE("debuginfo: -O0 parameters after the prologue, through the frame base", "[debuginfo]") {
  auto p = probe_at("sample_c_O0", "sample_sum", true);
  REQUIRE(p.pc > p.fn->entry_pc);
  Tracee t(debuginfo_bin("sample_c_O0"));
  REQUIRE(t.stopped());
  REQUIRE(t.run_to(p.pc + t.bias(*p.bin.elf)));
  std::string described;
  CHECK(p.value(t, "scale", &described) == 3);
  // gcc's frame base is DW_OP_call_frame_cfa: the CFI says CFA = rbp+16
  // once the prologue has set rbp up.
  INFO(described);
  CHECK(described.starts_with("memory: reg(rbp)+16 plus_const(-"));
  CHECK(p.value(t, "label") == 0);
  uint64_t r = p.value(t, "r");
  CHECK(t.read(r, 4) == 1);  // r->id = argc
  std::string why;
  auto x = find_member(p.bin.dwarf->parameters(*p.fn)[0].type, "where", why);
  REQUIRE(x);
  CHECK(t.read(r + x->offset, 8) == 40);  // r->where.x
  auto name = find_member(p.bin.dwarf->parameters(*p.fn)[0].type, "name", why);
  REQUIRE(name);
  CHECK(t.read_string(r + name->offset) == "abc");
  // A static local: DW_OP_addr, moved by the PIE's load bias.
  CHECK(p.value(t, "calls", &described) == 41);
  CHECK(described.starts_with("memory: addr 0x"));
}

TEST_CASE("debuginfo: -O0 frame base at the entry pc is the CFA from rsp", "[debuginfo]") {
  auto p = probe_at("sample_c_O0", "sample_sum", false);
  std::string why;
  auto params = p.bin.dwarf->parameters(*p.fn);
  auto loc = p.bin.dwarf->location(*p.fn, params[1], p.pc, why);
  REQUIRE(loc);
  // At entry the CFA is rsp+8 (the return address was just pushed); the
  // slot is only written by the prologue, hence prologue_end for -O0.
  INFO(describe(*loc));
  CHECK(describe(*loc).starts_with("memory: reg(rsp)+8 plus_const(-"));
  CHECK(loc->ops.size() == 2);
}

TEST_CASE("debuginfo: -O2 parameters at the entry pc, in registers", "[debuginfo]") {
  auto p = probe_at("sample_c_O2", "sample_sum", false);
  Tracee t(debuginfo_bin("sample_c_O2"));
  REQUIRE(t.stopped());
  REQUIRE(t.run_to(p.pc + t.bias(*p.bin.elf)));
  std::string described;
  CHECK(p.value(t, "scale", &described) % (1ull << 32) == 3);
  CHECK(described == "register: rsi");
  CHECK(p.value(t, "label", &described) == 0);
  CHECK(described == "register: rdx");
  CHECK(t.read(p.value(t, "r"), 4) == 1);

  auto marks = probe_at("sample_c_O2", "sample_marks", false);
  REQUIRE(t.run_to(marks.pc + t.bias(*marks.bin.elf)));
  CHECK(static_cast<int64_t>(marks.value(t, "a")) == sample_sum_result("sample_c_O2"));
  CHECK(t.read_string(marks.value(t, "s")) == "marked");
}

TEST_CASE("debuginfo: SDT mark arguments evaluate to the values passed", "[debuginfo]") {
  for (const char* binary : {"sample_c_O0", "sample_c_O2"}) {
    INFO(binary);
    std::string why;
    auto elf = ElfFile::open(debuginfo_bin(binary), why);
    REQUIRE(elf);
    const SdtMark* three = nullptr;
    auto marks = read_sdt_marks(*elf);
    for (const auto& m : marks)
      if (m.name == "three") three = &m;
    REQUIRE(three);
    REQUIRE(three->args.size() == 3);
    Tracee t(debuginfo_bin(binary));
    REQUIRE(t.stopped());
    REQUIRE(t.run_to(three->pc + t.bias(*elf)));
    std::vector<uint64_t> values;
    for (const auto& op : three->args) {
      INFO(op.text);
      uint64_t v = 0;
      if (op.kind == SdtOperand::in_reg) {
        v = t.reg(op.reg) >> op.reg_shift;
      } else if (op.kind == SdtOperand::in_mem) {
        REQUIRE(op.symbol.empty());
        uint64_t address = t.reg(op.reg) + op.value;
        if (op.index_reg >= 0) address += t.reg(op.index_reg) * op.scale;
        v = t.read(address, op.size);
      } else {
        v = static_cast<uint64_t>(op.value);
      }
      if (op.size < 8) v &= (1ull << (8 * op.size)) - 1;
      values.push_back(v);
    }
    CHECK(three->args[0].size == 8);
    CHECK(three->args[0].is_signed);
    CHECK(static_cast<int64_t>(values[0]) == sample_sum_result(binary));
    CHECK(three->args[1].size == 4);
    CHECK(values[1] == 1);
    CHECK(t.read_string(values[2]) == "marked");
  }
}

TEST_CASE("debuginfo: a local under a location list, at a mark inside the function",
          "[debuginfo]") {
  for (const char* binary : {"sample_c_O0", "sample_c_O2"}) {
    INFO(binary);
    auto p = probe_at(binary, "sample_sum", false);
    const SdtMark* summed = nullptr;
    auto marks = read_sdt_marks(*p.bin.elf);
    for (const auto& m : marks)
      if (m.name == "summed") summed = &m;
    REQUIRE(summed);
    p.pc = summed->pc;
    REQUIRE(p.bin.dwarf->function_at(p.pc) == p.fn);
    // total = id * scale + (calls - 41) + weights of "abc" = 1*3 + 0 + 3.
    Tracee t(debuginfo_bin(binary));
    REQUIRE(t.stopped());
    REQUIRE(t.run_to(p.pc + t.bias(*p.bin.elf)));
    std::string described;
    CHECK(p.value(t, "total", &described) % (1ull << 32) == 6);
    UNSCOPED_INFO(described);
    // At -O2 total's DW_AT_location is a location list: at the entry pc it
    // is not yet computed, or somewhere else than at the mark.
    if (std::string(binary) == "sample_c_O2") {
      auto locals = p.bin.dwarf->locals(*p.fn, p.pc);
      auto total = std::find_if(locals.begin(), locals.end(),
                                [](const DwarfVariable& v) { return v.name == "total"; });
      REQUIRE(total != locals.end());
      std::string why;
      auto at_entry = p.bin.dwarf->location(*p.fn, *total, p.fn->entry_pc, why);
      CHECK((!at_entry || describe(*at_entry) != described));
      if (!at_entry) CHECK(why.find("not available at this address") != std::string::npos);
    }
  }
}
