// The globals over BPF maps (see global_store.h).  Byte layouts follow
// ir::assign_layout and bpf_runtime/stap_layout.h; the map types are the
// ones the BPF side declares (codegen), so create_maps() builds exactly
// what a loaded object would have.
#include "loader/interp/global_store.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>

#include "loader/output/histogram_output.h"
#include "loader/interp/key_aliases.h"
#include "ir/key_codes.h"

namespace stap {

namespace {

using ir::Global;
using ir::Type;

std::runtime_error bpf_error(const std::string& what, int err) {
  return std::runtime_error(what + ": " + std::strerror(err < 0 ? -err : err));
}

// The size of stap_globals' one value: the header, then every scalar.
uint32_t globals_value_size(const ir::Module& m) {
  uint32_t size = sizeof(stap_globals_header);
  for (const Global& g : m.globals)
    if (g.in_globals_map()) size = std::max(size, g.offset + ((g.value_size + 7) & ~7u));
  return size;
}

uint32_t round8(uint32_t n) { return (n + 7) & ~7u; }

}  // namespace

struct GlobalStore::Impl {
  const ir::Module* module = nullptr;
  bool owns_fds = false;
  int globals_fd = -1;
  void* mem = nullptr;
  size_t mem_size = 0;
  std::vector<int> fds;  // per global; -1 for scalars in stap_globals
  int ncpus = 1;
  // Per global with a stack-coded key column (key_aliases.h).
  mutable std::map<size_t, KeyAliases> aliases;

  ~Impl() {
    if (mem) munmap(mem, mem_size);
    if (!owns_fds) return;
    for (int fd : fds)
      if (fd >= 0) close(fd);
    if (globals_fd >= 0) close(globals_fd);
  }

  const Global& global(size_t g) const { return module->globals.at(g); }
  size_t strlen_max() const { return static_cast<size_t>(module->limits.maxstringlen); }
  char* scalar(size_t g) const { return static_cast<char*>(mem) + global(g).offset; }
  int fd(size_t g) const {
    int f = fds.at(g);
    if (f < 0) throw std::logic_error("global " + global(g).name + " has no map");
    return f;
  }
  bool per_cpu(size_t g) const { return global(g).type == Type::stats; }
  bool scalar_stat(size_t g) const { return per_cpu(g) && !global(g).is_array(); }

  // `width` bytes at dst: a packed key's string may be narrower than
  // MAXSTRINGLEN (ir::narrow_string_keys).
  void put_string(char* dst, const std::string& s, size_t width = 0) const {
    if (width == 0) width = strlen_max();
    size_t n = std::min(s.size(), width - 1);
    std::memset(dst, 0, width);
    std::memcpy(dst, s.data(), n);
  }
  std::string get_string(const char* src) const {
    return std::string(src, strnlen(src, strlen_max()));
  }

  // The packed key of a global: 8 bytes per long, maxstringlen per string;
  // a scalar statistic's key is the u32 0 of its one-entry array.
  std::vector<char> pack_key(size_t g, const Key& key) const {
    const Global& gl = global(g);
    if (!gl.is_array()) return std::vector<char>(4, 0);
    if (key.size() != gl.keys.size()) throw std::logic_error("wrong key count for " + gl.name);
    std::vector<char> out(gl.key_size, 0);
    size_t at = 0;
    for (size_t k = 0; k < key.size(); ++k) {
      if (gl.key_coded(k)) {
        // A string no key of the array can hold packs as a code no element
        // has (a lookup finds nothing; analysis keeps such writes out).
        int64_t code = ir::is_stack_code(key[k].num)
                           ? key[k].num
                           : ir::key_code(*module, key[k].str).value_or(ir::kNoCode);
        std::memcpy(out.data() + at, &code, 8);
        at += 8;
      } else if (gl.keys[k] == Type::string) {
        size_t width = gl.key_width(k, uint32_t(strlen_max()));
        put_string(out.data() + at, key[k].str, width);
        at += width;
      } else {
        std::memcpy(out.data() + at, &key[k].num, 8);
        at += 8;
      }
    }
    return out;
  }
  Key unpack_key(size_t g, const char* bytes) const {
    const Global& gl = global(g);
    Key key;
    for (size_t k = 0; k < gl.keys.size(); ++k) {
      if (gl.key_coded(k)) {
        int64_t code;
        std::memcpy(&code, bytes, 8);
        key.push_back(Value::of(ir::key_string(*module, code)));
        if (ir::is_stack_code(code)) key.back().num = code;
        bytes += 8;
      } else if (gl.keys[k] == Type::string) {
        size_t width = gl.key_width(k, uint32_t(strlen_max()));
        key.push_back(Value::of(std::string(bytes, strnlen(bytes, width))));
        bytes += width;
      } else {
        int64_t v;
        std::memcpy(&v, bytes, 8);
        key.push_back(Value::of(v));
        bytes += 8;
      }
    }
    return key;
  }
  size_t key_bytes(size_t g) const { return global(g).is_array() ? global(g).key_size : 4; }

  // The packed keys of an array, in map order.
  std::vector<std::vector<char>> walk(size_t g) const {
    const Global& gl = global(g);
    std::vector<std::vector<char>> out;
    std::vector<char> cur(gl.key_size, 0), next(gl.key_size, 0);
    std::set<std::vector<char>> seen;  // a concurrent delete restarts the walk
    const void* prev = nullptr;
    while (bpf_map_get_next_key(fd(g), prev, next.data()) == 0) {
      if (!seen.insert(next).second) break;
      out.push_back(next);
      cur = next;
      prev = cur.data();
    }
    return out;
  }
  bool stack_keyed(size_t g) const {
    const Global& gl = global(g);
    if (!gl.is_array()) return false;
    for (size_t k = 0; k < gl.keys.size(); ++k)
      if (gl.key_coded(k)) return true;
    return false;
  }
  // What a packed key stands for: its columns, a stack code by identity.
  std::string identity(size_t g, const char* bytes) const {
    const Global& gl = global(g);
    std::string out;
    for (size_t k = 0; k < gl.keys.size(); ++k) {
      if (gl.key_coded(k)) {
        int64_t code;
        std::memcpy(&code, bytes, 8);
        out += ir::is_stack_code(code) ? ir::stack_identity(code) : std::to_string(code);
        bytes += 8;
      } else if (gl.keys[k] == Type::string) {
        size_t width = gl.key_width(k, uint32_t(strlen_max()));
        out += std::string(bytes, strnlen(bytes, width));
        bytes += width;
      } else {
        int64_t v;
        std::memcpy(&v, bytes, 8);
        out += std::to_string(v);
        bytes += 8;
      }
      out += '\x1f';
    }
    return out;
  }
  KeyAliases& index(size_t g, const std::vector<std::vector<char>>* walked = nullptr) const {
    KeyAliases& a = aliases[g];
    if (a.built() && !walked) return a;
    std::vector<std::vector<char>> keys = walked ? *walked : walk(g);
    std::vector<std::pair<std::vector<char>, std::string>> named;
    for (std::vector<char>& k : keys) {
      std::string id = identity(g, k.data());
      named.emplace_back(std::move(k), std::move(id));
    }
    a.build(named);
    return a;
  }
  // The keys a read or write of `packed` covers: its aliases, or itself.
  std::vector<std::vector<char>> covered(size_t g, const std::vector<char>& packed) const {
    if (stack_keyed(g))
      if (const auto* group = index(g).group_of(packed)) return *group;
    return {packed};
  }
  size_t cpu_stride(size_t g) const { return round8(global(g).value_size); }

  // Every CPU's value of a per-CPU map entry; false when absent.
  bool lookup_cpus(size_t g, const std::vector<char>& key, std::vector<char>& values) const {
    values.assign(cpu_stride(g) * static_cast<size_t>(ncpus), 0);
    if (bpf_map_lookup_elem(fd(g), key.data(), values.data()) == 0) return true;
    if (errno == ENOENT) return false;
    throw bpf_error("reading " + global(g).name, errno);
  }
};

// ---------------------------------------------------------------- setup

GlobalStore::GlobalStore(const ir::Module& module, bpf_object* object) {
  auto impl = std::make_unique<Impl>();
  impl->module = &module;
  impl->ncpus = libbpf_num_possible_cpus();
  if (impl->ncpus <= 0) throw bpf_error("counting possible CPUs", impl->ncpus);
  bpf_map* globals = bpf_object__find_map_by_name(object, STAP_GLOBALS_MAP);
  if (!globals) throw std::runtime_error("the object has no map " STAP_GLOBALS_MAP);
  impl->globals_fd = bpf_map__fd(globals);
  impl->mem_size = bpf_map__value_size(globals);
  if (impl->mem_size < globals_value_size(module))
    throw std::runtime_error("map " STAP_GLOBALS_MAP " is smaller than the module's scalars");
  for (const Global& g : module.globals) {
    if (g.in_globals_map()) {
      impl->fds.push_back(-1);
      continue;
    }
    bpf_map* map = bpf_object__find_map_by_name(object, g.map_name.c_str());
    if (!map) throw std::runtime_error("the object has no map " + g.map_name + " (global " + g.name + ")");
    impl->fds.push_back(bpf_map__fd(map));
  }
  impl->mem = mmap(nullptr, impl->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED, impl->globals_fd, 0);
  if (impl->mem == MAP_FAILED) {
    impl->mem = nullptr;
    throw bpf_error("mapping " STAP_GLOBALS_MAP, errno);
  }
  impl_ = impl.release();
  init_scalars();
}

GlobalStore GlobalStore::create_maps(const ir::Module& module) {
  auto impl = std::make_unique<Impl>();
  impl->module = &module;
  impl->owns_fds = true;
  impl->ncpus = libbpf_num_possible_cpus();
  if (impl->ncpus <= 0) throw bpf_error("counting possible CPUs", impl->ncpus);

  LIBBPF_OPTS(bpf_map_create_opts, mmapable, .map_flags = BPF_F_MMAPABLE);
  impl->mem_size = globals_value_size(module);
  impl->globals_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, STAP_GLOBALS_MAP, 4,
                                    static_cast<uint32_t>(impl->mem_size), 1, &mmapable);
  if (impl->globals_fd < 0) throw bpf_error("creating " STAP_GLOBALS_MAP, impl->globals_fd);
  for (const Global& g : module.globals) {
    if (g.in_globals_map()) {
      impl->fds.push_back(-1);
      continue;
    }
    bpf_map_type type = BPF_MAP_TYPE_HASH;
    uint32_t key_size = g.key_size;
    uint32_t entries = static_cast<uint32_t>(g.max_entries ? g.max_entries : module.limits.maxmapentries);
    if (g.type == Type::stats && !g.is_array()) {
      type = BPF_MAP_TYPE_PERCPU_ARRAY;
      key_size = 4;
      entries = 1;
    } else if (g.type == Type::stats) {
      type = BPF_MAP_TYPE_PERCPU_HASH;
    } else if (g.wrap) {
      type = BPF_MAP_TYPE_LRU_HASH;
    }
    int fd = bpf_map_create(type, g.map_name.c_str(), key_size, g.value_size, entries, nullptr);
    if (fd < 0) throw bpf_error("creating map " + g.map_name + " for " + g.name, fd);
    impl->fds.push_back(fd);
  }
  impl->mem = mmap(nullptr, impl->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED, impl->globals_fd, 0);
  if (impl->mem == MAP_FAILED) {
    impl->mem = nullptr;
    throw bpf_error("mapping " STAP_GLOBALS_MAP, errno);
  }
  GlobalStore store;
  store.impl_ = impl.release();
  store.init_scalars();
  return store;
}

// A store is made once per session, right after the maps exist and before
// any probe runs: scalars start from their initializers (`global x = 5`).
void GlobalStore::init_scalars() {
  for (size_t g = 0; g < impl_->module->globals.size(); ++g) {
    const Global& gl = impl_->global(g);
    if (!gl.in_globals_map()) continue;
    if (gl.type == Type::string)
      set_string(g, gl.init_str);
    else
      set_long(g, gl.init_num);
  }
}

GlobalStore::~GlobalStore() { delete impl_; }

GlobalStore::GlobalStore(GlobalStore&& other) noexcept : impl_(other.impl_) { other.impl_ = nullptr; }

stap_globals_header& GlobalStore::header() {
  return *static_cast<stap_globals_header*>(impl_->mem);
}

int GlobalStore::map_fd(size_t g) const { return impl_->fds.at(g); }
int GlobalStore::globals_fd() const { return impl_->globals_fd; }
int GlobalStore::possible_cpus() const { return impl_->ncpus; }

// ---------------------------------------------------------------- scalars

int64_t GlobalStore::get_long(size_t g) const {
  auto* p = reinterpret_cast<int64_t*>(impl_->scalar(g));
  return std::atomic_ref<int64_t>(*p).load();
}

void GlobalStore::set_long(size_t g, int64_t v) {
  auto* p = reinterpret_cast<int64_t*>(impl_->scalar(g));
  std::atomic_ref<int64_t>(*p).store(v);
}

int64_t GlobalStore::add_long(size_t g, int64_t delta) {
  // Through uint64: wrapping as the kernel's atomic add does, without UB.
  auto* p = reinterpret_cast<uint64_t*>(impl_->scalar(g));
  uint64_t d = static_cast<uint64_t>(delta);
  return static_cast<int64_t>(std::atomic_ref<uint64_t>(*p).fetch_add(d) + d);
}

std::string GlobalStore::get_string(size_t g) const { return impl_->get_string(impl_->scalar(g)); }

void GlobalStore::set_string(size_t g, const std::string& v) { impl_->put_string(impl_->scalar(g), v); }

// ---------------------------------------------------------------- arrays

// A key with aliases (key_aliases.h) reads as their sum, or the first
// string value.
std::optional<Value> GlobalStore::get(size_t g, const Key& key) const {
  std::optional<Value> out;
  for (const std::vector<char>& k : impl_->covered(g, impl_->pack_key(g, key))) {
    std::vector<char> v(impl_->global(g).value_size, 0);
    if (bpf_map_lookup_elem(impl_->fd(g), k.data(), v.data()) != 0) {
      if (errno == ENOENT) continue;
      throw bpf_error("reading " + impl_->global(g).name, errno);
    }
    if (impl_->global(g).type == Type::string) {
      if (!out) out = Value::of(impl_->get_string(v.data()));
      continue;
    }
    int64_t n;
    std::memcpy(&n, v.data(), 8);
    if (!out) out = Value::of(int64_t{0});
    out->num = static_cast<int64_t>(static_cast<uint64_t>(out->num) + static_cast<uint64_t>(n));
  }
  return out;
}

bool GlobalStore::set(size_t g, const Key& key, const Value& value) {
  std::vector<char> k = impl_->pack_key(g, key);
  std::vector<char> v(impl_->global(g).value_size, 0);
  if (impl_->global(g).type == Type::string)
    impl_->put_string(v.data(), value.str);
  else
    std::memcpy(v.data(), &value.num, 8);
  if (bpf_map_update_elem(impl_->fd(g), k.data(), v.data(), BPF_ANY) != 0) {
    if (errno == E2BIG || errno == ENOMEM) return false;
    throw bpf_error("writing " + impl_->global(g).name, errno);
  }
  // The aliases would add to the value written: gone.
  for (const std::vector<char>& other : impl_->covered(g, k))
    if (other != k) bpf_map_delete_elem(impl_->fd(g), other.data());
  if (impl_->stack_keyed(g)) impl_->index(g).collapse(k, true);
  return true;
}

bool GlobalStore::remove(size_t g, const Key& key) {
  std::vector<char> k = impl_->pack_key(g, key);
  bool removed = false;
  for (const std::vector<char>& one : impl_->covered(g, k))
    removed = bpf_map_delete_elem(impl_->fd(g), one.data()) == 0 || removed;
  if (impl_->stack_keyed(g)) impl_->index(g).collapse(k, false);
  return removed;
}

void GlobalStore::clear(size_t g) {
  const Global& gl = impl_->global(g);
  if (gl.in_globals_map()) {
    // `delete x` of a scalar makes it 0 or "", as in stap.
    if (gl.type == Type::string)
      set_string(g, "");
    else
      set_long(g, 0);
    return;
  }
  if (impl_->scalar_stat(g)) {
    std::vector<char> k(4, 0);
    std::vector<char> zeros(impl_->cpu_stride(g) * static_cast<size_t>(impl_->ncpus), 0);
    if (bpf_map_update_elem(impl_->fd(g), k.data(), zeros.data(), BPF_ANY) != 0)
      throw bpf_error("clearing " + gl.name, errno);
    return;
  }
  impl_->aliases.erase(g);
  // Deleting the first key until there is none: a walk would restart after
  // each deletion anyway.
  std::vector<char> k(gl.key_size, 0);
  size_t guard = static_cast<size_t>(impl_->module->limits.maxmapentries) * 4 + 1024;
  while (guard-- && bpf_map_get_next_key(impl_->fd(g), nullptr, k.data()) == 0)
    bpf_map_delete_elem(impl_->fd(g), k.data());
}

// One key per group of aliases (key_aliases.h), the walk rebuilding the
// index.
std::vector<Key> GlobalStore::keys(size_t g) const {
  std::vector<Key> out;
  if (!impl_->global(g).is_array()) return out;
  std::vector<std::vector<char>> walked = impl_->walk(g);
  if (impl_->stack_keyed(g)) walked = impl_->index(g, &walked).firsts();
  for (const std::vector<char>& k : walked) out.push_back(impl_->unpack_key(g, k.data()));
  return out;
}

// ---------------------------------------------------------------- statistics

namespace {

stap_stat* stat_at(std::vector<char>& values, size_t stride, int cpu) {
  return reinterpret_cast<stap_stat*>(values.data() + stride * static_cast<size_t>(cpu));
}

// Adds every CPU's slot of one per-CPU entry into `out`.
void merge_cpus(std::vector<char>& values, size_t stride, int ncpus, StatValue& out) {
  for (int cpu = 0; cpu < ncpus; ++cpu) {
    const stap_stat* s = stat_at(values, stride, cpu);
    if (s->count == 0) continue;
    if (out.count == 0) {
      out.min = s->min;
      out.max = s->max;
    } else {
      out.min = std::min<int64_t>(out.min, s->min);
      out.max = std::max<int64_t>(out.max, s->max);
    }
    out.count += s->count;
    out.sum = static_cast<int64_t>(static_cast<uint64_t>(out.sum) + static_cast<uint64_t>(s->sum));
    out.sum_squares = static_cast<int64_t>(static_cast<uint64_t>(out.sum_squares) +
                                           static_cast<uint64_t>(s->sum_squares));
    for (size_t b = 0; b < out.buckets.size(); ++b) out.buckets[b] += s->buckets[b];
  }
}

int bucket_of(const ir::HistShape& h, int64_t v) {
  switch (h.kind) {
    case ir::HistShape::Kind::log: return hist_log_bucket(v);
    case ir::HistShape::Kind::linear: return hist_linear_bucket(v, h.low, h.high, h.step);
    case ir::HistShape::Kind::none: return -1;
  }
  return -1;
}

}  // namespace

// User-space additions go to CPU 0's slot.  A user-space update of a
// per-CPU map writes every CPU's slot, so this reads them all and writes
// them back: a kernel probe adding to the same element between the two
// syscalls (microseconds) loses that addition.  User-context probes
// (begin, end, timers) rarely add to a statistic kernel probes are
// filling at that instant; the kernel's per-slot update flag (BPF_F_CPU)
// is newer than the libbpf this links.
void GlobalStore::stat_add(size_t g, const Key& key, int64_t v) {
  const Global& gl = impl_->global(g);
  std::vector<char> k = impl_->pack_key(g, key);
  std::vector<char> values;
  impl_->lookup_cpus(g, k, values);
  stap_stat* s = stat_at(values, impl_->cpu_stride(g), 0);
  if (s->count == 0) {
    s->min = s->max = v;
  } else {
    s->min = std::min<int64_t>(s->min, v);
    s->max = std::max<int64_t>(s->max, v);
  }
  s->count++;
  s->sum = static_cast<int64_t>(static_cast<uint64_t>(s->sum) + static_cast<uint64_t>(v));
  s->sum_squares = static_cast<int64_t>(static_cast<uint64_t>(s->sum_squares) +
                                        static_cast<uint64_t>(v) * static_cast<uint64_t>(v));
  int b = bucket_of(gl.hist, v);
  if (b >= 0 && b < gl.hist.buckets()) s->buckets[b]++;
  if (bpf_map_update_elem(impl_->fd(g), k.data(), values.data(), BPF_ANY) == 0) return;
  if (errno == E2BIG || errno == ENOMEM)
    throw std::length_error("statistic " + gl.name + " is full");
  throw bpf_error("writing " + gl.name, errno);
}

// Merged over CPUs, and over the key's aliases (key_aliases.h).
std::optional<StatValue> GlobalStore::stat_get(size_t g, const Key& key) const {
  const Global& gl = impl_->global(g);
  std::vector<char> packed = gl.is_array() ? impl_->pack_key(g, key) : std::vector<char>(4, 0);
  std::vector<std::vector<char>> each = gl.is_array() ? impl_->covered(g, packed)
                                                      : std::vector<std::vector<char>>{packed};
  StatValue out;
  out.buckets.assign(static_cast<size_t>(gl.hist.buckets()), 0);
  bool found = false;
  for (const std::vector<char>& k : each) {
    std::vector<char> values;
    if (!impl_->lookup_cpus(g, k, values)) continue;
    found = true;
    merge_cpus(values, impl_->cpu_stride(g), impl_->ncpus, out);
  }
  if (!found) return std::nullopt;
  return out;
}

int64_t stat_variance(const StatValue& st) {
  if (st.count < 2) return 0;
  __int128 n = st.count;
  __int128 num = n * st.sum_squares - static_cast<__int128>(st.sum) * st.sum;
  return static_cast<int64_t>(num / (n * (n - 1)));
}

}  // namespace stap
