// tracefs: format parsing on fixed texts, then the real tracefs of this
// machine (root; mounted when missing).
#include <catch2/catch.hpp>

#include <algorithm>

#include "base/tracefs.h"

namespace stap::test {

using tracefs::Field;

TEST_CASE("tracefs: declarations of every field kind", "[tracefs]") {
  Field f;
  REQUIRE(tracefs::parse_declaration("const char * filename", f));
  CHECK(f.name == "filename");
  CHECK(f.type == "const char *");
  CHECK(f.array_length == -1);
  CHECK(!f.is_string);

  Field c;
  REQUIRE(tracefs::parse_declaration("char prev_comm[16]", c));
  CHECK(c.name == "prev_comm");
  CHECK(c.array_length == 16);
  CHECK(c.is_string);
  CHECK(c.element_type == "char");

  Field d;
  REQUIRE(tracefs::parse_declaration("__data_loc char[] name", d));
  CHECK(d.name == "name");
  CHECK(d.is_data_loc);
  CHECK(d.is_string);

  Field u;
  REQUIRE(tracefs::parse_declaration("__data_loc u64[] phys_addrs", u));
  CHECK(u.is_data_loc);
  CHECK(!u.is_string);
  CHECK(u.element_type == "u64");

  Field a;
  REQUIRE(tracefs::parse_declaration("unsigned long args[6]", a));
  CHECK(a.name == "args");
  CHECK(a.type == "unsigned long");
  CHECK(a.array_length == 6);
  CHECK(!a.is_string);

  Field flex;
  REQUIRE(tracefs::parse_declaration("u32 buf[]", flex));
  CHECK(flex.array_length == 0);

  Field bad;
  CHECK(!tracefs::parse_declaration("   ", bad));
}

TEST_CASE("tracefs: a format file", "[tracefs]") {
  const char* text =
      "name: sys_enter_openat\n"
      "ID: 782\n"
      "format:\n"
      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
      "\n"
      "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
      "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
      "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
      "\n"
      "print fmt: \"dfd: 0x%08lx\", ((unsigned long)(REC->dfd))\n";
  tracefs::Format f;
  std::string error;
  REQUIRE(tracefs::parse_format(text, f, error));
  CHECK(f.name == "sys_enter_openat");
  CHECK(f.id == 782);
  REQUIRE(f.fields.size() == 5);
  CHECK(f.fields[0].is_common());
  CHECK(f.fields[1].is_signed);
  const Field* dfd = f.find("dfd");
  REQUIRE(dfd);
  CHECK(dfd->offset == 16);
  CHECK(dfd->size == 8);
  CHECK(!dfd->is_signed);
  CHECK(f.find("nope") == nullptr);

  tracefs::Format broken;
  CHECK(!tracefs::parse_format("name: x\n\tfield:int a offset:0;\n", broken, error));
  CHECK(error.find("malformed field line") != std::string::npos);
}

TEST_CASE("tracefs: glob matching of events", "[tracefs]") {
  std::vector<tracefs::Event> all = {
      {"sched", "sched_switch"}, {"sched", "sched_process_fork"},
      {"sched", "sched_process_exit"}, {"syscalls", "sys_enter_openat"},
      {"other", "sched_switch"}};
  CHECK(tracefs::match_events(all, "sched", "sched_process_*").size() == 2);
  CHECK(tracefs::match_events(all, "", "sched_switch").size() == 2);
  CHECK(tracefs::match_events(all, "s*", "*").size() == 4);
  CHECK(tracefs::match_events(all, "sched", "nope").empty());
}

TEST_CASE("tracefs: this machine's events and formats", "[tracefs]") {
  std::string error;
  std::string root = tracefs::find_root(error);
  INFO(error);
  REQUIRE(!root.empty());
  std::vector<tracefs::Event> events;
  REQUIRE(tracefs::list_events(root, events, error));
  CHECK(events.size() > 100);
  tracefs::Event openat{"syscalls", "sys_enter_openat"};
  REQUIRE(std::find(events.begin(), events.end(), openat) != events.end());
  tracefs::Format format;
  REQUIRE(tracefs::read_format(root, openat, format, error));
  CHECK(format.name == "sys_enter_openat");
  CHECK(format.id > 0);
  const Field* filename = format.find("filename");
  REQUIRE(filename);
  CHECK(filename->offset == 24);
  CHECK(filename->size == 8);
  CHECK(filename->type == "const char *");
  tracefs::Format missing;
  CHECK(!tracefs::read_format(root, {"nosuch", "event"}, missing, error));
  CHECK(error.find("cannot read") != std::string::npos);
}

}  // namespace stap::test
