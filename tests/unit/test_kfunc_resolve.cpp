// kernel.function / kprobe.function points: pass 2 resolves them over the
// running kernel's symbols and BTF, lowering turns them into kfunc probes
// (one per function when the body reads the function's context, else one
// over all of a module's functions).  These read this machine's kernel:
// vfs_read and the vfs_* family exist in every kernel this project runs on.
#include <catch2/catch.hpp>

#include <memory>
#include <sstream>
#include <string>

#include "driver/frontend.h"
#include "ir/print.h"
#include "kernel/kfunc_support.h"
#include "lower/lower.h"
#include "lower_fixture.h"

namespace stap::test {

namespace {

// Passes 1-3; `will_run` as the driver sets it for -p4 and -p5.
Lowered lower(const std::string& script, bool will_run = false) {
  return lower_script(script, {}, will_run);
}

// The string literal a probe's first printf/println argument lowers to.
const ir::Node* find_str(const ir::Node* n, const std::string& value) {
  if (!n) return nullptr;
  if (n->op == ir::Op::str && n->s == value) return n;
  for (const ir::Node* k : n->kids)
    if (const ir::Node* f = find_str(k, value)) return f;
  return nullptr;
}

}  // namespace

TEST_CASE("kfunc: kernel.function(\"vfs_read\") is one kfunc probe", "[kfunc_resolve]") {
  Lowered l = lower("global n\nprobe kernel.function(\"vfs_read\") { n++ }");
  INFO(l.messages);
  REQUIRE(l.ok);
  REQUIRE(l.module.probes.size() == 1);
  const ir::Probe& p = l.module.probes[0];
  CHECK(p.is<ir::KfuncSpec>());
  CHECK(p.context == ir::Context::kernel);
  CHECK(kfunc_of(p).functions == std::vector<std::string>{"vfs_read"});
  CHECK(kfunc_of(p).module.empty());
  CHECK_FALSE(kfunc_of(p).is_return);
  CHECK(kfunc_of(p).arg_count == 4);  // file, buf, count, pos
  CHECK(p.pp == "kernel.function(\"vfs_read\")");

  Lowered r = lower("global n\nprobe kernel.function(\"vfs_read\").return { n++ }");
  REQUIRE(r.ok);
  REQUIRE(r.module.probes.size() == 1);
  CHECK(kfunc_of(r.module.probes[0]).is_return);
  CHECK(r.module.probes[0].pp == "kernel.function(\"vfs_read\").return");

  // kprobe.function and .call resolve the same way; pp keeps the point's shape.
  Lowered k = lower("global n\nprobe kprobe.function(\"vfs_read\").return { n++ }\n"
                    "probe kernel.function(\"vfs_write\").call { n++ }");
  REQUIRE(k.ok);
  REQUIRE(k.module.probes.size() == 2);
  CHECK(k.module.probes[0].pp == "kprobe.function(\"vfs_read\").return");
  CHECK(k.module.probes[1].pp == "kernel.function(\"vfs_write\").call");
  CHECK(kfunc_of(k.module.probes[1]).functions == std::vector<std::string>{"vfs_write"});
}

TEST_CASE("kfunc: a wildcard whose body reads no target variable is one group", "[kfunc_resolve]") {
  Lowered l = lower("global n\nprobe kernel.function(\"vfs_*\") { n++ }");
  INFO(l.messages);
  REQUIRE(l.ok);
  REQUIRE(l.module.probes.size() == 1);
  const ir::Probe& p = l.module.probes[0];
  CHECK(kfunc_of(p).functions.size() > 10);
  bool read = false, write = false;
  for (const std::string& f : kfunc_of(p).functions) {
    CHECK(f.starts_with("vfs_"));
    CHECK(f.find('.') == std::string::npos);  // no compiler clones (foo.isra.0)
    read = read || f == "vfs_read";
    write = write || f == "vfs_write";
  }
  CHECK(read);
  CHECK(write);
  CHECK(kfunc_of(p).arg_count == -1);
  CHECK(p.pp == "kernel.function(\"vfs_*\")");
}

TEST_CASE("kfunc: kernel.function(\"*\") resolves every traceable function",
          "[kfunc_resolve]") {
  // Its time is a figure of tests/bench/bench_frontend, not a limit here.
  Lowered l = lower("global n\nprobe kernel.function(\"*\") { n++ }");
  REQUIRE(l.ok);
  REQUIRE(l.module.probes.size() == 1);
  CHECK(kfunc_of(l.module.probes[0]).functions.size() > 10000);
}

TEST_CASE("kfunc: a body reading target variables is one probe per function", "[kfunc_resolve]") {
  Lowered l = lower("global n\nprobe kernel.function(\"vfs_re*\") { n = @defined($file) }");
  INFO(l.messages);
  REQUIRE(l.elaborated);
  REQUIRE(l.module.probes.size() >= 2);
  for (const ir::Probe& p : l.module.probes) {
    REQUIRE(kfunc_of(p).functions.size() == 1);
    CHECK(p.pp == "kernel.function(\"" + kfunc_of(p).functions[0] + "\")");
  }
}

TEST_CASE("kfunc: probefunc, probemod and pp", "[kfunc_resolve]") {
  // One function: literals.
  Lowered one = lower("probe kernel.function(\"vfs_read\") { println(probefunc(), probemod()) }");
  INFO(one.messages);
  REQUIRE(one.ok);
  const ir::Node* body = one.module.probes[0].body;
  CHECK(find_str(body, "vfs_read"));
  CHECK(find_str(body, "kernel"));
  CHECK_FALSE(find_op(body, ir::Op::fn_name));
  // A group: the name is read at run time, pp() is built around it.
  Lowered group = lower("probe kernel.function(\"vfs_*\").return { println(probefunc(), pp()) }");
  INFO(group.messages);
  REQUIRE(group.ok);
  REQUIRE(group.module.probes.size() == 1);
  body = group.module.probes[0].body;
  CHECK(find_op(body, ir::Op::fn_name));
  CHECK(find_str(body, "kernel.function(\""));
  CHECK(find_str(body, "\").return"));
}

TEST_CASE("kfunc: no match, '?' and '!'", "[kfunc_resolve]") {
  Lowered l = lower("probe kernel.function(\"no_such_function_zz\") { exit() }");
  CHECK_FALSE(l.elaborated);
  CHECK(l.messages ==
        "semantic error: while resolving probe point: identifier 'kernel' at <input>:1:7\n"
        "        source: probe kernel.function(\"no_such_function_zz\") { exit() }\n"
        "                      ^\n\n"
        "semantic error: no match\n\n");
  Lowered opt = lower("probe kernel.function(\"no_such_function_zz\")?, begin { exit() }");
  INFO(opt.messages);
  REQUIRE(opt.ok);
  REQUIRE(opt.module.probes.size() == 1);
  CHECK(opt.module.probes[0].is<ir::SessionSpec>());
  // '!': the first that resolves ends the list.
  Lowered first = lower("probe kernel.function(\"no_such_function_zz\")!, "
                        "kernel.function(\"vfs_read\")!, begin { exit() }");
  INFO(first.messages);
  REQUIRE(first.ok);
  REQUIRE(first.module.probes.size() == 1);
  CHECK(first.module.probes[0].is<ir::KfuncSpec>());
  // A module that is not loaded, and .inline (no symbol for inlined copies).
  CHECK_FALSE(lower("probe module(\"no_such_mod\").function(\"*\") { exit() }").elaborated);
  Lowered in = lower("probe kernel.function(\"vfs_read\").inline { exit() }");
  CHECK_FALSE(in.elaborated);
  CHECK(contains(in.messages, "semantic error: no match"));
}

TEST_CASE("kfunc: what needs DWARF says what to install", "[kfunc_resolve]") {
  for (const char* point : {"kernel.function(\"vfs_read@fs/read_write.c\")",
                            "kernel.statement(\"vfs_read@fs/read_write.c:450\")",
                            "kernel.function(\"vfs_read\").label(\"out\")"}) {
    Lowered l = lower(std::string("probe ") + point + " { exit() }");
    INFO(point << "\n" << l.messages);
    CHECK_FALSE(l.elaborated);
    CHECK(contains(l.messages, "semantic error: while resolving probe point: identifier 'kernel'"));
    CHECK(contains(l.messages, "needs the kernel's DWARF"));
  }
  Lowered abs = lower("probe kprobe.statement(0xffffffff81000000).absolute { exit() }");
  CHECK_FALSE(abs.elaborated);
  CHECK(contains(abs.messages, "are not supported by this engine"));
}

TEST_CASE("kfunc: a probe to run needs a mechanism the kernel offers", "[kfunc_resolve]") {
  const kernel::KfuncSupport& support = kernel::kfunc_support();
  Lowered l = lower("probe kernel.function(\"vfs_read\") { exit() }", /*will_run=*/true);
  if (support.any()) {
    CHECK(l.ok);
  } else {
    CHECK_FALSE(l.elaborated);
    CHECK(contains(l.messages, support.missing_message()));
    CHECK(contains(l.messages, "while resolving probe point: identifier 'kernel' at <input>:1:7"));
  }
  // Optional: dropped silently either way; names only (-p2, -l) always resolve.
  Lowered opt = lower("probe kernel.function(\"vfs_read\")?, begin { exit() }", true);
  CHECK(opt.ok);
  CHECK(opt.messages.empty());
  CHECK(lower("probe kernel.function(\"vfs_read\") { exit() }", false).ok);
}

}  // namespace stap::test
