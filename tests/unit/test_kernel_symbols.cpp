// KernelSymbols against this machine's /proc/kallsyms (root: real
// addresses), then on small fixed files for the formats' corners.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "kernel/kernel_symbols.h"

namespace stap::test {

using kernel::KernelSymbols;

namespace {

const KernelSymbols& host_symbols() {
  static KernelSymbols ks;
  if (!ks.loaded()) {
    std::string why;
    INFO(why);
    REQUIRE(ks.load(why));
  }
  return ks;
}

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/stap_kallsyms_XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, text.data(), text.size()) == ssize_t(text.size()));
  close(fd);
  return path;
}

}  // namespace

TEST_CASE("kernel_symbols: host kallsyms round trips", "[kernel_symbols]") {
  const KernelSymbols& ks = host_symbols();
  auto vfs_read = ks.function("vfs_read");
  REQUIRE(vfs_read);
  CHECK(vfs_read->name == "vfs_read");
  CHECK(vfs_read->module.empty());
  CHECK((vfs_read->type == 'T' || vfs_read->type == 't'));
  if (vfs_read->address == 0) {
    WARN("kallsyms addresses are hidden (kptr_restrict): lookups not tested");
    return;
  }
  CHECK(vfs_read->size > 0);
  CHECK(vfs_read->size < 4096);

  uint64_t off = 99;
  auto at = ks.lookup(vfs_read->address, &off);
  REQUIRE(at);
  CHECK(at->name == "vfs_read");
  CHECK(off == 0);
  auto inside = ks.lookup(vfs_read->address + vfs_read->size - 1, &off);
  REQUIRE(inside);
  CHECK(inside->name == "vfs_read");
  CHECK(off == vfs_read->size - 1);
  // The byte after vfs_read belongs to whatever follows it.
  auto after = ks.lookup(vfs_read->address + vfs_read->size);
  REQUIRE(after);
  CHECK(after->name != "vfs_read");
  CHECK(after->address == vfs_read->address + vfs_read->size);

  // Cross-check against a plain scan of the file for a second function.
  std::ifstream in("/proc/kallsyms");
  std::string addr, type, name;
  uint64_t vfs_write = 0;
  while (in >> addr >> type >> name) {
    if (name == "vfs_write") {
      vfs_write = std::stoull(addr, nullptr, 16);
      break;
    }
    in.ignore(1 << 20, '\n');
  }
  REQUIRE(vfs_write != 0);
  auto w = ks.function("vfs_write");
  REQUIRE(w);
  CHECK(w->address == vfs_write);
  auto lw = ks.lookup(vfs_write + 3, &off);
  REQUIRE(lw);
  CHECK(lw->name == "vfs_write");
  CHECK(off == 3);

  CHECK(!ks.function("no_such_symbol_in_any_kernel"));
  CHECK(!ks.lookup(0x10));  // below the first symbol
}

TEST_CASE("kernel_symbols: match_functions excludes clones and blocklisted names",
          "[kernel_symbols]") {
  const KernelSymbols& ks = host_symbols();
  auto vfs = ks.match_functions("vfs_*", "");
  CHECK(std::find(vfs.begin(), vfs.end(), "vfs_read") != vfs.end());
  CHECK(std::find(vfs.begin(), vfs.end(), "vfs_write") != vfs.end());
  CHECK(std::is_sorted(vfs.begin(), vfs.end()));
  CHECK(std::adjacent_find(vfs.begin(), vfs.end()) == vfs.end());
  for (const auto& f : vfs) {
    INFO(f);
    CHECK(f.rfind("vfs_", 0) == 0);
    CHECK(f.find('.') == std::string::npos);
  }
  // The kernel has clones of some function; none of them is offered.
  auto all = ks.match_functions("*", "");
  CHECK(all.size() > 1000);
  CHECK(std::none_of(all.begin(), all.end(),
                     [](const std::string& f) { return f.find('.') != std::string::npos; }));
  // stap's blocklist: spin locks and atomics never match.
  CHECK(KernelSymbols::blocklisted("_raw_spin_lock"));
  CHECK(KernelSymbols::blocklisted("atomic_notifier_call_chain"));
  CHECK(!KernelSymbols::blocklisted("vfs_read"));
  CHECK(KernelSymbols::blocklisted("do_exit", true));
  CHECK(!KernelSymbols::blocklisted("do_exit", false));
  CHECK(ks.match_functions("_raw_spin_lock", "").empty());
  CHECK(ks.match_functions("vfs_read", "") == std::vector<std::string>{"vfs_read"});
  CHECK(ks.match_functions("vfs_read", "no_such_module").empty());
  CHECK(ks.match_functions("vfs_read", "*") == std::vector<std::string>{"vfs_read"});
}

TEST_CASE("kernel_symbols: loads the host's kallsyms", "[kernel_symbols]") {
  // How long it takes is a figure of tests/bench/bench_frontend, not a
  // limit here.
  KernelSymbols ks;
  std::string why;
  REQUIRE(ks.load(why));
  CHECK(ks.symbols().size() > 10000);
  CHECK(ks.function("vfs_read").has_value());
}

TEST_CASE("kernel_symbols: modules, sizes per module, duplicates", "[kernel_symbols]") {
  std::string path = write_temp(
      "ffffffff81000000 T _text\n"
      "ffffffff81000000 T _stext\n"
      "ffffffff81000100 t helper\n"
      "ffffffff81000180 t helper.isra.0\n"
      "ffffffff81000200 D some_data\n"
      "ffffffffc0001000 t mod_fn\t[mymod]\n"
      "ffffffffc0001000 t dup_fn\t[other]\n"
      "ffffffffc0001040 T dup_fn\t[mymod]\n"
      "ffffffffc0002000 t other_fn\t[other]\n"
      "ffffffffc0001080 t mod_last\t[mymod]\n"
      "ffffffffa0000000 t bpf_prog_abc_x\t[bpf]\n");
  KernelSymbols ks;
  std::string why;
  REQUIRE(ks.load(why, path));
  unlink(path.c_str());

  // Equal addresses share the size to the next distinct start.
  auto text = ks.function("_text");
  REQUIRE(text);
  CHECK(text->size == 0x100);
  CHECK(ks.function("_stext")->size == 0x100);
  CHECK(ks.function("helper")->size == 0x80);
  CHECK(!ks.function("some_data"));  // not text

  // Module symbols end at their own module's next symbol.
  auto mod_fn = ks.function("mod_fn");
  REQUIRE(mod_fn);
  CHECK(mod_fn->module == "mymod");
  CHECK(mod_fn->size == 0x40);
  CHECK(ks.function("dup_fn", "other")->size == 0x1000);
  CHECK(ks.function("dup_fn", "mymod")->address == 0xffffffffc0001040);
  CHECK(ks.function("mod_last")->size == 0);  // last of its module
  CHECK(ks.function("bpf_prog_abc_x")->module == "bpf");
  CHECK(!ks.function("mod_fn", "kernel"));

  uint64_t off = 0;
  auto l = ks.lookup(0xffffffff81000104, &off);
  REQUIRE(l);
  CHECK(l->name == "helper");
  CHECK(off == 4);
  auto m = ks.lookup(0xffffffffc0001050, &off);
  REQUIRE(m);
  CHECK(m->name == "dup_fn");
  CHECK(m->module == "mymod");
  CHECK(off == 0x10);
}

}  // namespace stap::test
