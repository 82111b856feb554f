// Code generation (compiler/codegen): hand-built IR modules become BPF
// objects that the kernel's verifier must accept; behaviour is checked by
// attaching syscall tracepoints, calling the syscalls from the test, and
// reading maps and ring-buffer records with libbpf directly.  Needs root
// and tracefs, as every live test of this project does.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <thread>
#include <vector>

#include "bpf_runtime/stap_layout.h"
#include "codegen/codegen.h"

using namespace stap;
using ir::Node;
using ir::Op;
using ir::Type;

namespace {

// Builds IR with less noise.
struct Builder {
  ir::Module m;
  Builder() { m.script_name = "<test>"; }
  Node* node(Op op, Type t, std::vector<Node*> kids = {}, int64_t a = 0, int64_t b = 0) {
    Node* n = m.make(op, t);
    n->kids = std::move(kids);
    n->a = a;
    n->b = b;
    return n;
  }
  Node* num(int64_t v) { return node(Op::num, Type::long_, {}, v); }
  Node* str(std::string s) {
    Node* n = node(Op::str, Type::string);
    n->s = std::move(s);
    return n;
  }
  Node* bin(Op op, Node* x, Node* y, Type t = Type::long_) { return node(op, t, {x, y}); }
  Node* call_builtin(const char* name, Type t, std::vector<Node*> kids = {}) {
    Node* n = node(Op::builtin, t, std::move(kids));
    n->s = name;
    return n;
  }
  Node* block(std::vector<Node*> kids) { return node(Op::block, Type::none, std::move(kids)); }
  Node* expr(Node* e) { return node(Op::expr, Type::none, {e}); }
  size_t global(std::string name, Type t, std::vector<Type> keys = {}) {
    ir::Global g;
    g.name = std::move(name);
    g.type = t;
    g.keys = std::move(keys);
    m.globals.push_back(std::move(g));
    return m.globals.size() - 1;
  }
  Node* set_global(size_t g, Node* v) { return node(Op::set_global, v->type, {v}, int64_t(g)); }
  Node* get_global(size_t g) { return node(Op::global, m.globals[g].type, {}, int64_t(g)); }
  // A tracepoint probe whose body runs only for this test process.
  void probe(Node* body, std::vector<Type> slots = {}, const char* event = "sys_enter_getpid") {
    ir::Probe p;
    p.kind = ir::ProbeKind::tracepoint;
    p.context = ir::Context::kernel;
    p.system = "syscalls";
    p.event = event;
    p.pp = std::string("kernel.trace(\"syscalls:") + event + "\")";
    p.slots = std::move(slots);
    Node* mine = bin(Op::eq, call_builtin("pid", Type::long_), call_builtin("target", Type::long_));
    p.body = node(Op::if_, Type::none, {mine, body, node(Op::nop, Type::none)});
    m.probes.push_back(std::move(p));
  }
};

struct Record {
  uint32_t kind, id;
  std::string payload;
};

// The object loaded and attached, its session RUNNING with this process
// as target().
class Loaded {
 public:
  explicit Loaded(ir::Module& m) : module_(m) {
    CodegenResult r = generate_object(m, CodegenOptions{});
    INFO(r.error);
    REQUIRE(r.ok);
    object_bytes_ = std::move(r.object);
    obj_ = bpf_object__open_mem(object_bytes_.data(), object_bytes_.size(), nullptr);
    REQUIRE(obj_);
    int err = bpf_object__load(obj_);
    REQUIRE(err == 0);
    bpf_program* prog;
    bpf_object__for_each_program(prog, obj_) {
      bpf_link* link = bpf_program__attach(prog);
      REQUIRE(link);
      links_.push_back(link);
    }
    std::vector<char> v = globals();
    auto* h = reinterpret_cast<stap_globals_header*>(v.data());
    h->state = STAP_STATE_RUNNING;
    h->target_pid = getpid();
    uint32_t zero = 0;
    REQUIRE(bpf_map_update_elem(fd(STAP_GLOBALS_MAP), &zero, v.data(), 0) == 0);
  }
  ~Loaded() {
    for (bpf_link* l : links_) bpf_link__destroy(l);
    bpf_object__close(obj_);
  }
  int fd(const std::string& map) { return bpf_object__find_map_fd_by_name(obj_, map.c_str()); }
  std::vector<char> globals() {
    bpf_map* map = bpf_object__find_map_by_name(obj_, STAP_GLOBALS_MAP);
    std::vector<char> v(bpf_map__value_size(map));
    uint32_t zero = 0;
    REQUIRE(bpf_map_lookup_elem(bpf_map__fd(map), &zero, v.data()) == 0);
    return v;
  }
  stap_globals_header header() {
    stap_globals_header h;
    std::memcpy(&h, globals().data(), sizeof h);
    return h;
  }
  int64_t get_long(size_t g) {
    int64_t v;
    std::memcpy(&v, globals().data() + module_.globals[g].offset, 8);
    return v;
  }
  std::string get_string(size_t g) { return std::string(globals().data() + module_.globals[g].offset); }
  std::vector<Record> records() {
    std::vector<Record> out;
    ring_buffer* rb = ring_buffer__new(fd(STAP_EVENTS_MAP), on_record, &out, nullptr);
    REQUIRE(rb);
    ring_buffer__consume(rb);
    ring_buffer__free(rb);
    return out;
  }

 private:
  static int on_record(void* ctx, void* data, size_t size) {
    auto* rec = static_cast<stap_record*>(data);
    static_cast<std::vector<Record>*>(ctx)->push_back(
        {rec->kind, rec->id, std::string(static_cast<char*>(data) + 8, size - 8)});
    return 0;
  }
  ir::Module& module_;
  std::string object_bytes_;
  bpf_object* obj_ = nullptr;
  std::vector<bpf_link*> links_;
};

void fire() { syscall(SYS_getpid); }

std::string cstr(const std::string& payload, size_t at = 0) { return std::string(payload.c_str() + at); }

}  // namespace

TEST_CASE("codegen: long arithmetic wraps as C, division by zero is stap's error", "[codegen]") {
  Builder t;
  size_t q = t.global("q", Type::long_), r = t.global("r", Type::long_);
  size_t mn = t.global("mn", Type::long_), sh = t.global("sh", Type::long_);
  size_t after = t.global("after", Type::long_);
  Node* zero_div = t.bin(Op::div, t.num(1), t.bin(Op::sub, t.num(2), t.num(2)));
  zero_div->loc = t.m.add_location("operator '/' at <test>:1:1");
  t.probe(t.block({
      t.set_global(q, t.bin(Op::div, t.num(-7), t.num(2))),
      t.set_global(r, t.bin(Op::mod, t.num(-7), t.num(3))),
      t.set_global(mn, t.bin(Op::div, t.num(INT64_MIN), t.bin(Op::sub, t.num(0), t.num(1)))),
      t.set_global(sh, t.bin(Op::add, t.bin(Op::shl, t.num(1), t.num(65)),
                             t.bin(Op::mul, t.num(INT64_MAX), t.num(2)))),
      t.expr(zero_div),
      t.set_global(after, t.num(1)),
  }));
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(q) == -3);
  CHECK(l.get_long(r) == -1);
  CHECK(l.get_long(mn) == INT64_MIN);
  CHECK(l.get_long(sh) == 2 + (INT64_MAX * 2ull));
  CHECK(l.get_long(after) == 0);  // the error ended the probe
  CHECK(l.header().errors == 1);
  std::vector<Record> recs = l.records();
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].kind == STAP_REC_ERROR);
  CHECK(recs[0].id == zero_div->loc);
  CHECK(cstr(recs[0].payload) == "division by zero");
  CHECK(recs[0].payload.size() == size_t(t.m.limits.maxstringlen));
}
