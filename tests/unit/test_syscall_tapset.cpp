// The generated syscall tapset: the decoding table, the stap text written
// for sample tracefs formats, that text parsing, and the library
// generating it only when a probe point names a syscall alias.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "elaborate/syscall_tapset.h"
#include "parse_fixture.h"
#include "probe_fixture.h"

namespace stap::test {

namespace {

namespace fs = std::filesystem;

const char* openat_format =
    "name: sys_enter_openat\nID: 782\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \"dfd: 0x%08lx\", ((unsigned long)(REC->dfd))\n";

const char* frob_format =
    "name: sys_enter_frob\nID: 9\nformat:\n"
    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:const char * pathname;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:struct stat * statbuf;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\tfield:long next;\toffset:40;\tsize:8;\tsigned:1;\n\n"
    "print fmt: \"\"\n";

SyscallFormat format_of(const char* text) {
  tracefs::Format f;
  std::string error;
  REQUIRE(tracefs::parse_format(text, f, error));
  std::string name = f.name.substr(std::string("sys_enter_").size());
  return {name, syscall_arguments(f)};
}

const char* openat_line =
    "openat dfd:dfd filename:s flags:fn=_sys_open_flag_str(@) mode:u | flags & 64 ? "
    "sprintf(\"%s, %s, %s, %#o\", dfd_str, filename, flags_str, mode) : "
    "sprintf(\"%s, %s, %s\", dfd_str, filename, flags_str)\n";

}  // namespace

TEST_CASE("syscall table: entries, options and errors", "[syscall_tapset]") {
  SyscallTable t;
  std::string error;
  REQUIRE(t.parse("# comment\n\nmmap ret=2 start:p len:u\nkill pid:d sig/sig_name:fn=_signal_name(@)\n",
                  error));
  CHECK(t.size() == 2);
  const SyscallEntry* mmap = t.find("mmap");
  REQUIRE(mmap);
  CHECK(mmap->ret_format == 2);
  REQUIRE(mmap->args.size() == 2);
  CHECK(mmap->args[1].var == "len");
  CHECK(mmap->args[1].kind == "u");
  const SyscallEntry* kill = t.find("kill");
  REQUIRE(kill);
  CHECK(kill->args[1].var == "sig");
  CHECK(kill->args[1].string_var == "sig_name");
  CHECK(t.find("read") == nullptr);

  SyscallTable bad;
  CHECK(!bad.parse("read fd:d\nwrite fd:q\n", error));
  CHECK(error == "line 2: unknown kind 'q'");
  CHECK(!bad.parse("read fd\n", error));
  CHECK(error == "line 1: 'fd' is not VAR:KIND");
  CHECK(!bad.parse("mmap ret=5\n", error));
}

TEST_CASE("syscall tapset: a table entry and the C-type defaults", "[syscall_tapset]") {
  SyscallTable t;
  std::string error;
  REQUIRE(t.parse(openat_line, error));
  std::string text = generate_syscall_aliases({format_of(openat_format), format_of(frob_format)}, t);
  CHECK(text.find("probe syscall.openat = "
                  "kernel.trace(\"syscalls:sys_enter_openat\")\n{\n  name = \"openat\"\n"
                  "  dfd = __int32($dfd)\n  filename = user_string_quoted($filename)\n"
                  "  flags = __int32($flags)\n  mode = $mode\n  dfd_str = _dfd_str(dfd)\n"
                  "  flags_str = _sys_open_flag_str(flags)\n  argstr = flags & 64 ? ") !=
        std::string::npos);
  CHECK(text.find("probe syscall.openat.return = "
                  "kernel.trace(\"syscalls:sys_exit_openat\")\n{\n  name = \"openat\"\n"
                  "  retval = $ret\n  retstr = return_str(1, $ret)\n}\n") != std::string::npos);
  // No entry: unsigned int -> %u (narrowed), const char * -> quoted
  // string, other pointers %p, a keyword-named field gets a '_'.
  CHECK(text.find("  fd = __uint32($fd)\n  pathname = user_string_quoted($pathname)\n"
                  "  statbuf = $statbuf\n  next_ = $next\n"
                  "  argstr = sprintf(\"%u, %s, %p, %d\", fd, pathname, statbuf, next_)\n") !=
        std::string::npos);
}

TEST_CASE("syscall tapset: stap's name for a call, and a C int in a wider field",
          "[syscall_tapset]") {
  SyscallTable t;
  std::string error;
  REQUIRE(t.parse("frob name=frobnicate fd:i pathname:s statbuf:p next:d\n", error));
  CHECK(t.find("frob")->stap_name == "frobnicate");
  std::string text = generate_syscall_aliases({format_of(frob_format)}, t);
  // The alias keeps the kernel's name; `name` is stap's, entry and return.
  CHECK(text.find("probe syscall.frob = kernel.trace(\"syscalls:sys_enter_frob\")\n"
                  "{\n  name = \"frobnicate\"\n  fd = __int32($fd)\n") != std::string::npos);
  CHECK(text.find("probe syscall.frob.return = kernel.trace(\"syscalls:sys_exit_frob\")\n"
                  "{\n  name = \"frobnicate\"\n") != std::string::npos);
  CHECK(!t.parse("frob name= fd:d\n", error));
  CHECK(error == "line 1: name= takes a name");
}

TEST_CASE("syscall tapset: a call without arguments has an empty argstr", "[syscall_tapset]") {
  SyscallFormat getpid{"getpid", {}};
  std::string text = generate_syscall_aliases({getpid}, SyscallTable{});
  CHECK(text.find("  name = \"getpid\"\n  argstr = \"\"\n}") != std::string::npos);
}

TEST_CASE("syscall tapset: the generated text parses", "[syscall_tapset]") {
  SyscallTable t;
  std::string error;
  REQUIRE(t.parse(openat_line, error));
  std::string text = generate_syscall_aliases({format_of(openat_format), format_of(frob_format)}, t);
  Parsed p(text, true, "<syscall tapset>");
  CHECK(p.errors() == "");
  REQUIRE(p.file);
  CHECK(p.file->aliases.size() == 8);
}

TEST_CASE("syscall tapset: the shipped table parses", "[syscall_tapset]") {
  std::ifstream in(std::string(STAP_SOURCE_TAPSET_DIR) + "/syscalls/syscalls.table");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  SyscallTable t;
  std::string error;
  CHECK(t.parse(text.str(), error));
  CHECK(error == "");
  CHECK(t.find("openat"));
  CHECK(t.find("futex"));
}

// A tapset directory with a table, and a fake tracefs holding two calls.
struct FakeSyscalls {
  fs::path dir = fs::temp_directory_path() / ("stap_sys_" + std::to_string(getpid()));
  FakeSyscalls() {
    fs::create_directories(dir / "tapset" / "syscalls");
    std::ofstream(dir / "tapset" / "syscalls" / "syscalls.table") << openat_line;
    for (const char* text : {openat_format, frob_format}) {
      SyscallFormat f = format_of(text);
      fs::path event = dir / "tracefs" / "events" / "syscalls" / ("sys_enter_" + f.name);
      fs::create_directories(event);
      std::ofstream(event / "format") << text;
    }
  }
  ~FakeSyscalls() { fs::remove_all(dir); }
};

TEST_CASE("syscall tapset: generated only for the calls a point names", "[syscall_tapset]") {
  FakeSyscalls fake;
  ProbeFixture f;
  f.load({(fake.dir / "tapset").string()});
  f.library.set_tracefs_root((fake.dir / "tracefs").string());
  f.parse("probe begin {}");
  REQUIRE(f.expand());
  CHECK(f.library.all_aliases().empty());

  f.parse("probe syscall.open* {}");
  REQUIRE(f.expand());
  CHECK(f.library.all_aliases().size() == 4);  // openat, .return, nd_ of both
  CHECK(f.points() == std::vector<std::string>{"begin", "kernel.trace(\"syscalls:sys_enter_openat\")"});

  f.parse("probe nd_syscall.*.return {}");
  REQUIRE(f.expand());
  CHECK(f.library.all_aliases().size() == 8);
  CHECK(f.points().back() == "kernel.trace(\"syscalls:sys_exit_openat\")");
  CHECK(f.points().size() == 4);
}

TEST_CASE("syscall tapset: an unknown call is reported with the nearest names",
          "[syscall_tapset]") {
  FakeSyscalls fake;
  ProbeFixture f;
  f.load({(fake.dir / "tapset").string()});
  f.library.set_tracefs_root((fake.dir / "tracefs").string());
  f.parse("probe syscall.openaat {}");
  CHECK_FALSE(f.expand());
  INFO(f.messages());
  CHECK(f.messages().find("semantic error: probe point mismatch (similar: openat): "
                          "identifier 'openaat' at <input>:1:15") != std::string::npos);
  // An optional point's miss is silent and generates nothing.
  ProbeFixture g;
  g.load({(fake.dir / "tapset").string()});
  g.library.set_tracefs_root((fake.dir / "tracefs").string());
  g.parse("probe syscall.openaat ? {}");
  g.expand();
  CHECK(g.library.all_aliases().empty());
}

TEST_CASE("syscall tapset: no table, no generation", "[syscall_tapset]") {
  FakeSyscalls fake;
  ProbeFixture f;
  f.load({test_tapset_dir()});
  f.library.set_tracefs_root((fake.dir / "tracefs").string());
  size_t before = f.library.all_aliases().size();
  f.parse("probe syscall.open* ? {}");
  f.expand();
  CHECK(f.library.all_aliases().size() == before);
}

}  // namespace stap::test
