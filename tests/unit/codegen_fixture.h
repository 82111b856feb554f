// The harness of tests/unit/test_codegen.cpp: IR built by hand, the object
// loaded and attached with libbpf, maps and ring buffer read back.
#pragma once

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bpf_runtime/stap_layout.h"
#include "base/format_string.h"
#include "codegen/codegen.h"
#include "loader/output/printf_output.h"

using namespace stap;
using ir::Node;
using ir::Op;
using ir::Type;

namespace codegen_test {

// As the runtime does before probes may run: the globals' state RUNNING,
// target() this test process.
inline void start_running(bpf_object* obj) {
  bpf_map* map = bpf_object__find_map_by_name(obj, STAP_GLOBALS_MAP);
  REQUIRE(map);
  std::vector<char> v(bpf_map__value_size(map));
  uint32_t zero = 0;
  REQUIRE(bpf_map_lookup_elem(bpf_map__fd(map), &zero, v.data()) == 0);
  auto* h = reinterpret_cast<stap_globals_header*>(v.data());
  h->state = STAP_STATE_RUNNING;
  h->target_pid = getpid();
  REQUIRE(bpf_map_update_elem(bpf_map__fd(map), &zero, v.data(), 0) == 0);
}


// Builds IR with less noise.
struct Builder {
  ir::Module m;
  Builder() { m.script_name = "<test>"; }
  Node* node(Op op, Type t, std::vector<Node*> kids = {}, int64_t a = 0, int64_t b = 0,
             int64_t c = 0) {
    Node* n = m.make(op, t);
    n->kids = std::move(kids);
    n->a = a;
    n->b = b;
    n->c = c;
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
  // `guard` defaults to pid() == target().
  void probe(Node* body, std::vector<Type> slots = {}, const char* event = "sys_enter_getpid",
             const char* system = "syscalls", Node* guard = nullptr) {
    ir::Probe p;
    p.context = ir::Context::kernel;
    p.spec = ir::TracepointSpec{system, event};
    p.pp = std::string("kernel.trace(\"") + system + ":" + event + "\")";
    p.slots = std::move(slots);
    Node* mine = guard ? guard
                       : bin(Op::eq, call_builtin("pid", Type::long_), call_builtin("target", Type::long_));
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
    // STAP_TEST_DUMP_OBJECT=FILE keeps the last object for llvm-objdump.
    if (const char* dump = std::getenv("STAP_TEST_DUMP_OBJECT"))
      if (std::FILE* f = std::fopen(dump, "wb")) {
        std::fwrite(object_bytes_.data(), 1, object_bytes_.size(), f);
        std::fclose(f);
      }
    obj_ = bpf_object__open_mem(object_bytes_.data(), object_bytes_.size(), nullptr);
    REQUIRE(obj_);
    // STAP_TEST_VERIFIER_STATS=1 prints the verifier's statistics per program.
    bool stats = std::getenv("STAP_TEST_VERIFIER_STATS") != nullptr;
    std::vector<std::vector<char>> logs;
    bpf_program* prog;
    bpf_object__for_each_program(prog, obj_) {
      if (!stats) break;
      logs.emplace_back(1 << 20);
      bpf_program__set_log_buf(prog, logs.back().data(), logs.back().size());
      bpf_program__set_log_level(prog, std::atoi(std::getenv("STAP_TEST_VERIFIER_STATS")) == 1 ? 4 : 1);
    }
    int err = bpf_object__load(obj_);
    for (auto& log : logs) std::fprintf(stderr, "verifier: %s", log.data());
    REQUIRE(err == 0);
    // As the loader does: each probe's program, by name, on its tracepoint.
    for (const ir::Probe& p : m.probes) {
      if (p.program_name.empty()) continue;
      prog = bpf_object__find_program_by_name(obj_, p.program_name.c_str());
      REQUIRE(prog);
      const ir::TracepointSpec& tp = std::get<ir::TracepointSpec>(p.spec);
      bpf_link* link = bpf_program__attach_tracepoint(prog, tp.system.c_str(), tp.event.c_str());
      REQUIRE(link);
      links_.push_back(link);
    }
    start_running(obj_);
  }
  ~Loaded() {
    for (bpf_link* l : links_) bpf_link__destroy(l);
    bpf_object__close(obj_);
  }
  size_t programs() {
    size_t n = 0;
    bpf_program* prog;
    bpf_object__for_each_program(prog, obj_) { ++n; }
    return n;
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

inline void fire() { syscall(SYS_getpid); }

inline std::string cstr(const std::string& payload, size_t at = 0) { return std::string(payload.c_str() + at); }

}  // namespace codegen_test

