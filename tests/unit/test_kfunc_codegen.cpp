// kernel.function probes in codegen (compiler/codegen/emit_kfunc.cpp) and
// the loader (loader/attach_kfunc.cpp): the program variants of each probe
// and their sections, kread's fault, and, where the kernel offers a
// mechanism (the test guest: tests/guest/run_in_guest.sh
// build-NAME/tests/unit_tests '[kfunc_codegen]'), probes on vfs_read and
// vfs_write reading their arguments, return value and name.
#include <fcntl.h>
#include <unistd.h>

#include <map>

#include "codegen_fixture.h"
#include "kernel/kfunc_support.h"
#include "loader/attach/attach.h"

using namespace codegen_test;

namespace {

ir::Probe kfunc_probe(std::vector<std::string> functions, bool is_return, int64_t arg_count,
                      Node* body) {
  ir::Probe p;
  p.context = ir::Context::kernel;
  ir::KfuncSpec spec;
  spec.functions = std::move(functions);
  spec.is_return = is_return;
  spec.arg_count = arg_count;
  p.pp = "kernel.function(\"" + spec.functions[0] + "\")" + (is_return ? ".return" : "");
  p.spec = std::move(spec);
  p.body = body;
  return p;
}

// Program name -> section of the compiled object.
std::map<std::string, std::string> sections(ir::Module& m) {
  CodegenResult r = generate_object(m, CodegenOptions{});
  INFO(r.error);
  REQUIRE(r.ok);
  bpf_object* obj = bpf_object__open_mem(r.object.data(), r.object.size(), nullptr);
  REQUIRE(obj);
  std::map<std::string, std::string> out;
  bpf_program* prog;
  bpf_object__for_each_program(prog, obj) {
    out[bpf_program__name(prog)] = bpf_program__section_name(prog);
  }
  bpf_object__close(obj);
  return out;
}

Node* fn_arg(Builder& t, int64_t i) { return t.node(Op::fn_arg, Type::long_, {}, i, 8, 0); }

}  // namespace

TEST_CASE("kfunc codegen: one function gets fentry/fexit and kprobe/kretprobe variants",
          "[kfunc_codegen]") {
  Builder t;
  size_t g = t.global("g", Type::long_);
  t.m.probes.push_back(kfunc_probe({"vfs_read"}, false, 4, t.set_global(g, fn_arg(t, 2))));
  Node* ret = t.node(Op::fn_ret, Type::long_, {}, 0, 8, 1);
  t.m.probes.push_back(kfunc_probe({"vfs_read"}, true, 4, t.set_global(g, ret)));
  std::map<std::string, std::string> s = sections(t.m);
  CHECK(s == std::map<std::string, std::string>{{"kfunc_0", "kprobe/vfs_read"},
                                                {"kfunc_0_fentry", "fentry/vfs_read"},
                                                {"kfunc_1", "kretprobe/vfs_read"},
                                                {"kfunc_1_fentry", "fexit/vfs_read"}});
  CHECK(t.m.probes[0].program_name == "kfunc_0");
  CHECK(t.m.probes[1].program_name == "kfunc_1");
}

TEST_CASE("kfunc codegen: many functions get kprobe.multi and plain kprobe variants",
          "[kfunc_codegen]") {
  Builder t;
  size_t g = t.global("g", Type::string);
  Node* name = t.node(Op::fn_name, Type::string);
  t.m.probes.push_back(kfunc_probe({"vfs_read", "vfs_write"}, false, -1, t.set_global(g, name)));
  t.m.probes.push_back(kfunc_probe({"vfs_read", "vfs_write"}, true, -1, t.set_global(g, name)));
  std::map<std::string, std::string> s = sections(t.m);
  CHECK(s == std::map<std::string, std::string>{{"kfunc_0", "kprobe"},
                                                {"kfunc_0_multi", "kprobe.multi"},
                                                {"kfunc_1", "kretprobe"},
                                                {"kfunc_1_multi", "kretprobe.multi"}});
}

TEST_CASE("kfunc codegen: no fentry without BTF or past six parameters", "[kfunc_codegen]") {
  Builder t;
  size_t g = t.global("g", Type::long_);
  t.m.probes.push_back(kfunc_probe({"no_btf"}, false, -1, t.set_global(g, fn_arg(t, 0))));
  t.m.probes.push_back(kfunc_probe({"seven"}, true, 7, t.set_global(g, t.num(1))));
  std::map<std::string, std::string> s = sections(t.m);
  CHECK(s == std::map<std::string, std::string>{{"kfunc_0", "kprobe/no_btf"},
                                                {"kfunc_1", "kretprobe/seven"}});
}

TEST_CASE("kfunc codegen: reads a probe cannot make are compile errors", "[kfunc_codegen]") {
  auto error_of = [](std::vector<std::string> fns, bool ret, int64_t args, Op op, int64_t a) {
    Builder t;
    size_t g = t.global("g", Type::long_);
    Node* read = t.node(op, Type::long_, {}, a, 8, 0);
    t.m.probes.push_back(kfunc_probe(std::move(fns), ret, args, t.set_global(g, read)));
    CodegenResult r = generate_object(t.m, CodegenOptions{});
    return r.ok ? std::string("ok") : r.error;
  };
  CHECK_THAT(error_of({"vfs_read"}, false, 4, Op::fn_ret, 0),
             Catch::Contains("return value read in a function's entry probe"));
  CHECK_THAT(error_of({"vfs_read"}, false, 2, Op::fn_arg, 3),
             Catch::Contains("argument 4 of a function with 2 parameters"));
  CHECK(error_of({"vfs_read"}, false, -1, Op::fn_arg, 3) == "ok");  // kprobe only: any register
  CHECK_THAT(error_of({"vfs_read"}, false, 4, Op::fn_arg, 6), Catch::Contains("past the sixth"));
}

TEST_CASE("kfunc codegen: a kernel read fault is stap's read fault error", "[kfunc_codegen]") {
  Builder t;
  size_t g = t.global("g", Type::long_), after = t.global("after", Type::long_);
  Node* addr = t.bin(Op::add, t.num(8), t.call_builtin("pid", Type::long_));  // run-time value
  Node* bad = t.node(Op::kread, Type::long_, {addr}, 0, 4, 1);
  bad->loc = t.m.add_location("identifier '$p' at <test>:1:1");
  t.probe(t.block({t.set_global(g, bad), t.set_global(after, t.num(1))}));
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(after) == 0);
  std::vector<Record> recs = l.records();
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].kind == STAP_REC_ERROR);
  CHECK(recs[0].id == bad->loc);
  char want[80];
  std::snprintf(want, sizeof want, "read fault [man error::fault] at 0x%llx",
                static_cast<unsigned long long>(8 + getpid()));
  CHECK(cstr(recs[0].payload) == want);
}

namespace {

// The loader's path: variants chosen, loaded, attached; RUNNING for this
// process as target().
class KfuncSession {
 public:
  explicit KfuncSession(ir::Module& m) : m_(m) {
    CodegenResult r = generate_object(m, CodegenOptions{});
    INFO(r.error);
    REQUIRE(r.ok);
    object_ = std::move(r.object);
    obj_ = bpf_object__open_mem(object_.data(), object_.size(), nullptr);
    REQUIRE(obj_);
    std::string error;
    for (const ir::Probe& p : m.probes) {
      bool chosen = prepare_probe(obj_, p, error);
      INFO(error);
      REQUIRE(chosen);
    }
    REQUIRE(bpf_object__load(obj_) == 0);
    start_running(obj_);
    for (const ir::Probe& p : m.probes) {
      bool attached =
          attach_kfunc(obj_, p, std::get<ir::KfuncSpec>(p.spec), links_, AttachReport{}, error);
      INFO(error);
      REQUIRE(attached);
    }
  }
  ~KfuncSession() {
    destroy_links(links_);
    bpf_object__close(obj_);
  }
  std::vector<char> globals() {
    bpf_map* map = bpf_object__find_map_by_name(obj_, STAP_GLOBALS_MAP);
    std::vector<char> v(bpf_map__value_size(map));
    uint32_t zero = 0;
    REQUIRE(bpf_map_lookup_elem(bpf_map__fd(map), &zero, v.data()) == 0);
    return v;
  }
  int64_t get_long(size_t g) {
    int64_t v;
    std::memcpy(&v, globals().data() + m_.globals[g].offset, 8);
    return v;
  }
  std::string get_string(size_t g) { return globals().data() + m_.globals[g].offset; }

 private:
  ir::Module& m_;
  std::string object_;
  bpf_object* obj_ = nullptr;
  std::vector<bpf_link*> links_;
};

Node* mine(Builder& t, Node* body) {
  Node* guard =
      t.bin(Op::eq, t.call_builtin("pid", Type::long_), t.call_builtin("target", Type::long_));
  return t.node(Op::if_, Type::none, {guard, body, t.node(Op::nop, Type::none)});
}

}  // namespace

TEST_CASE("kfunc codegen: vfs_read's count, return value and name, vfs_write by cookie",
          "[kfunc_codegen]") {
  const kernel::KfuncSupport& s = kernel::kfunc_support();
  if (!s.any()) {
    WARN("skipped: " << s.missing_message());
    return;
  }
  Builder t;
  size_t count = t.global("count", Type::long_), ret = t.global("ret", Type::long_);
  size_t name = t.global("name", Type::string), multi = t.global("multi", Type::string);
  size_t fd_arg = t.global("fd_arg", Type::long_);
  // vfs_read(struct file *, char __user *buf, size_t count, loff_t *pos)
  t.m.probes.push_back(kfunc_probe({"vfs_read"}, false, 4,
      mine(t, t.block({t.set_global(count, fn_arg(t, 2)),
                       t.set_global(name, t.node(Op::fn_name, Type::string))}))));
  t.m.probes.push_back(kfunc_probe({"vfs_read"}, true, 4,
      mine(t, t.set_global(ret, t.node(Op::fn_ret, Type::long_, {}, 0, 4, 1)))));
  // Both functions, no BTF needed; the buffer pointer read as a number.
  t.m.probes.push_back(kfunc_probe({"vfs_read", "vfs_write"}, false, -1,
      mine(t, t.block({t.set_global(multi, t.node(Op::fn_name, Type::string)),
                       t.set_global(fd_arg, fn_arg(t, 1))}))));
  KfuncSession session(t.m);
  char buf[12345];
  int zero = open("/dev/zero", O_RDONLY);
  REQUIRE(zero >= 0);
  REQUIRE(read(zero, buf, sizeof buf) == ssize_t(sizeof buf));
  close(zero);
  CHECK(session.get_long(count) == int64_t(sizeof buf));
  CHECK(session.get_long(ret) == int64_t(sizeof buf));
  CHECK(session.get_string(name) == "vfs_read");
  CHECK(session.get_string(multi) == "vfs_read");
  CHECK(session.get_long(fd_arg) == int64_t(reinterpret_cast<uintptr_t>(buf)));
  int null = open("/dev/null", O_WRONLY);
  REQUIRE(null >= 0);
  REQUIRE(write(null, buf, 7) == 7);
  close(null);
  CHECK(session.get_string(multi) == "vfs_write");
}
