// USDT notes: marks read from .note.stapsdt cross-checked with readelf -n,
// and argument strings parsed into operands.
#include <catch2/catch.hpp>

#include <map>

#include "debuginfo/sdt_notes.h"
#include "debuginfo_fixture.h"

using namespace stap::debuginfo;
using stap::test::debuginfo_bin;
using stap::test::lines_of;
using stap::test::run_command;

namespace {

struct NoteText {
  std::string provider, name, args;
  uint64_t pc = 0, semaphore = 0;
};

// readelf -n's stapsdt entries: "Provider: P", "Name: N", "Location: 0x..,
// Base: 0x.., Semaphore: 0x..", "Arguments: ...".
std::vector<NoteText> readelf_marks(const std::string& path) {
  std::vector<NoteText> out;
  for (const auto& raw : lines_of(run_command("readelf -n " + path))) {
    std::string line = raw.substr(std::min(raw.find_first_not_of(' '), raw.size()));
    auto value = [&](const std::string& key) { return line.substr(key.size()); };
    if (line.starts_with("Provider: ")) {
      out.emplace_back();
      out.back().provider = value("Provider: ");
    } else if (out.empty()) {
      continue;
    } else if (line.starts_with("Name: ")) {
      out.back().name = value("Name: ");
    } else if (line.starts_with("Location: ")) {
      out.back().pc = std::stoull(value("Location: "), nullptr, 16);
      out.back().semaphore = std::stoull(line.substr(line.find("Semaphore: ") + 11), nullptr, 16);
    } else if (line.starts_with("Arguments: ")) {
      out.back().args = value("Arguments: ");
    } else if (line.starts_with("Arguments:")) {
      out.back().args = "";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("debuginfo: SDT marks match readelf -n", "[debuginfo]") {
  for (const char* name : {"sample_c_O0", "sample_c_O2", "libdisample.so.1"}) {
    std::string path = debuginfo_bin(name), why;
    auto elf = ElfFile::open(path, why);
    REQUIRE(elf);
    auto expected = readelf_marks(path);
    auto marks = read_sdt_marks(*elf);
    INFO(name);
    REQUIRE(marks.size() == expected.size());
    REQUIRE(marks.size() == (std::string(name) == "libdisample.so.1" ? 1u : 3u));
    for (size_t i = 0; i < marks.size(); ++i) {
      CHECK(marks[i].provider == expected[i].provider);
      CHECK(marks[i].name == expected[i].name);
      CHECK(marks[i].pc == expected[i].pc);
      CHECK(marks[i].semaphore == expected[i].semaphore);
      CHECK(marks[i].arg_text == expected[i].args);
      CHECK(marks[i].arg_error == "");
      // Semaphores live in .probes, a file-backed section: the uprobe's
      // reference counter offset is a file offset too.
      if (marks[i].semaphore) CHECK(elf->file_offset(marks[i].semaphore));
      CHECK(elf->file_offset(marks[i].pc));
    }
    if (std::string(name) == "libdisample.so.1") CHECK(marks[0].semaphore == 0);
    else CHECK(marks[0].semaphore != 0);
  }
}

TEST_CASE("debuginfo: SDT argument strings", "[debuginfo]") {
  std::vector<SdtOperand> ops;
  std::string why;
  REQUIRE(parse_sdt_args("-4@%edi 8@-16(%rbp) 1@%ah -2@$-5 8@8(%rax,%rbx,4) 8@counter+8(%rip) 4@%r8d 8@$0x10",
                         ops, why));
  REQUIRE(ops.size() == 8);
  CHECK(ops[0].kind == SdtOperand::in_reg);
  CHECK(ops[0].reg == 5);
  CHECK(ops[0].size == 4);
  CHECK(ops[0].is_signed);
  CHECK(ops[1].kind == SdtOperand::in_mem);
  CHECK(ops[1].reg == 6);
  CHECK(ops[1].value == -16);
  CHECK_FALSE(ops[1].is_signed);
  CHECK(ops[2].reg == 0);
  CHECK(ops[2].reg_shift == 8);
  CHECK(ops[3].kind == SdtOperand::immediate);
  CHECK(ops[3].value == -5);
  CHECK(ops[3].size == 2);
  CHECK(ops[4].reg == 0);
  CHECK(ops[4].index_reg == 3);
  CHECK(ops[4].scale == 4);
  CHECK(ops[4].value == 8);
  CHECK(ops[5].symbol == "counter");
  CHECK(ops[5].value == 8);
  CHECK(ops[5].reg == 16);
  CHECK(ops[6].reg == 8);
  CHECK(ops[7].value == 16);

  ops.clear();
  REQUIRE(parse_sdt_args("%rsi", ops, why));  // no size: a signed long
  CHECK(ops[0].size == 8);
  CHECK(ops[0].is_signed);

  ops.clear();
  CHECK_FALSE(parse_sdt_args("8@%rax 3@%rbx", ops, why));
  CHECK(why == "argument 2 '3@%rbx': bad size '3'");
  CHECK_FALSE(parse_sdt_args("8@%xmm0", ops, why));
  CHECK(why == "argument 1 '8@%xmm0': unknown register '%xmm0'");
  CHECK_FALSE(parse_sdt_args("8@4(%rax", ops, why));
}
