// KernelBtf: vmlinux and module BTF through libbpf.  libbpf's own name
// lookups (btf__find_by_name_kind) scan every type, and vmlinux has about
// 150k of them, so each BTF object gets a name index built on first use.
#include "kernel/kernel_btf.h"

#include <bpf/btf.h>
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace stap::kernel {

namespace {

const btf_type* type_of(Type t) { return btf__type_by_id(t.owner, t.id); }

const char* name_of(const btf* b, const btf_type* bt) {
  const char* n = btf__name_by_offset(b, bt->name_off);
  return n ? n : "";
}

// Names of the interesting kinds, one map per C namespace.  The views
// point into the BTF's string section, which lives as long as the BTF.
struct NameIndex {
  std::unordered_map<std::string_view, uint32_t> funcs, structs, unions, enums, typedefs,
      bases;

  std::unordered_map<std::string_view, uint32_t>* map_for(uint16_t kind) {
    switch (kind) {
      case BTF_KIND_FUNC: return &funcs;
      case BTF_KIND_STRUCT: return &structs;
      case BTF_KIND_UNION: return &unions;
      case BTF_KIND_ENUM:
      case BTF_KIND_ENUM64: return &enums;
      case BTF_KIND_TYPEDEF: return &typedefs;
      case BTF_KIND_INT:
      case BTF_KIND_FLOAT: return &bases;
      default: return nullptr;
    }
  }

  // Only the object's own ids: a module's split BTF would otherwise
  // re-index all of vmlinux.  The first definition of a name wins.
  void build(const btf* b) {
    const btf* base = btf__base_btf(b);
    uint32_t first = base ? btf__type_cnt(base) : 1;
    uint32_t count = btf__type_cnt(b);
    for (uint32_t id = first; id < count; ++id) {
      const btf_type* bt = btf__type_by_id(b, id);
      auto* map = map_for(btf_kind(bt));
      const char* n = name_of(b, bt);
      if (map && *n) map->emplace(std::string_view(n), id);
    }
  }
};

std::optional<uint32_t> find_in(const std::unordered_map<std::string_view, uint32_t>& m,
                                const std::string& name) {
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

// C spellings of the base types -> the names gcc (and so BTF) gives them.
std::string canonical_base_name(const std::string& name) {
  static const std::unordered_map<std::string, std::string> names = {
      {"unsigned", "unsigned int"},
      {"signed", "int"},
      {"signed int", "int"},
      {"long", "long int"},
      {"signed long", "long int"},
      {"unsigned long", "long unsigned int"},
      {"long long", "long long int"},
      {"unsigned long long", "long long unsigned int"},
      {"short", "short int"},
      {"unsigned short", "short unsigned int"},
  };
  auto it = names.find(name);
  return it == names.end() ? name : it->second;
}

}  // namespace

struct KernelBtf::Impl {
  std::string dir;
  btf* vmlinux = nullptr;
  std::vector<std::string> module_names;          // sorted
  std::map<std::string, btf*> module_btfs;        // null: tried and failed
  std::unordered_map<const btf*, NameIndex> indexes;

  ~Impl() {
    for (auto& [name, b] : module_btfs) btf__free(b);
    btf__free(vmlinux);
  }

  NameIndex& index(const btf* b) {
    auto [it, added] = indexes.try_emplace(b);
    if (added) it->second.build(b);
    return it->second;
  }

  // The BTF objects to search for `module`: that module's, or vmlinux
  // then every loaded module ("" ), or vmlinux alone ("kernel").
  std::vector<std::pair<std::string, const btf*>> scope(KernelBtf& kb, const std::string& module) {
    std::vector<std::pair<std::string, const btf*>> out;
    if (module.empty() || module == "kernel") {
      if (vmlinux) out.emplace_back("", vmlinux);
      if (module == "kernel") return out;
      for (const auto& m : module_names)
        if (const btf* b = kb.module_btf(m)) out.emplace_back(m, b);
      return out;
    }
    if (const btf* b = kb.module_btf(module)) out.emplace_back(module, b);
    return out;
  }
};

KernelBtf::KernelBtf() : impl_(std::make_unique<Impl>()) {}
KernelBtf::~KernelBtf() = default;

bool KernelBtf::load(std::string& why, const std::string& dir) {
  std::string path = dir + "/vmlinux";
  if (access(path.c_str(), R_OK) != 0) {
    int err = errno;
    why = err == ENOENT ? "the kernel has no BTF (" + path +
                              " is missing: CONFIG_DEBUG_INFO_BTF is not set)"
                        : "cannot read " + path + ": " + std::strerror(err);
    return false;
  }
  btf* b = btf__parse(path.c_str(), nullptr);
  if (!b) {
    why = "cannot parse the kernel's BTF " + path + ": " + std::strerror(errno);
    return false;
  }
  impl_ = std::make_unique<Impl>();
  impl_->dir = dir;
  impl_->vmlinux = b;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != ".." && n != "vmlinux") impl_->module_names.push_back(n);
    }
    closedir(d);
  }
  std::sort(impl_->module_names.begin(), impl_->module_names.end());
  return true;
}

bool KernelBtf::loaded() const { return impl_->vmlinux != nullptr; }

const struct btf* KernelBtf::module_btf(const std::string& module) {
  if (module.empty() || module == "kernel") return impl_->vmlinux;
  if (!impl_->vmlinux) return nullptr;
  auto it = impl_->module_btfs.find(module);
  if (it != impl_->module_btfs.end()) return it->second;
  btf* b = nullptr;
  if (std::binary_search(impl_->module_names.begin(), impl_->module_names.end(), module)) {
    std::string path = impl_->dir + "/" + module;
    b = btf__parse_split(path.c_str(), impl_->vmlinux);
  }
  impl_->module_btfs[module] = b;
  return b;
}

std::vector<std::string> KernelBtf::modules() const { return impl_->module_names; }

std::optional<Function> KernelBtf::function(const std::string& name, const std::string& module) {
  for (auto& [mod, b] : impl_->scope(*this, module)) {
    auto id = find_in(impl_->index(b).funcs, name);
    if (!id) continue;
    const btf_type* func = btf__type_by_id(b, *id);
    const btf_type* proto = btf__type_by_id(b, func->type);
    if (!proto || !btf_is_func_proto(proto)) continue;
    Function f;
    f.name = name;
    f.module = mod;
    f.ret = Type{b, proto->type};
    const btf_param* p = btf_params(proto);
    for (uint16_t i = 0; i < btf_vlen(proto); ++i) {
      // A trailing nameless void parameter is how BTF says "...".
      if (p[i].type == 0 && p[i].name_off == 0) {
        f.variadic = true;
        continue;
      }
      const char* pn = btf__name_by_offset(b, p[i].name_off);
      f.params.push_back(Param{pn ? pn : "", Type{b, p[i].type}});
    }
    return f;
  }
  return std::nullopt;
}

std::vector<std::string> KernelBtf::function_names(const std::string& module) {
  std::vector<std::string> out;
  const btf* b = module_btf(module);
  if (!b) return out;
  for (const auto& [n, id] : impl_->index(b).funcs) out.emplace_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
constexpr std::string_view kTraceTypedef = "btf_trace_";
}  // namespace

std::vector<std::string> KernelBtf::tracepoint_names(const std::string& module) {
  std::vector<std::string> out;
  const btf* b = module_btf(module);
  if (!b) return out;
  for (const auto& [n, id] : impl_->index(b).typedefs)
    if (n.starts_with(kTraceTypedef)) out.emplace_back(n.substr(kTraceTypedef.size()));
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// The names `proto`'s parameters (after the context) have in every
// __bpf_trace_* function of the same parameter types; none when those
// disagree or no function matches.
void name_from_classes(const btf* b, const btf_type* proto, Function& f) {
  const btf_param* want = btf_params(proto);
  std::optional<std::vector<std::string>> names;
  for (uint32_t id = 1; id < btf__type_cnt(b); ++id) {
    const btf_type* fn = btf__type_by_id(b, id);
    if (!btf_is_func(fn)) continue;
    const char* fn_name = btf__name_by_offset(b, fn->name_off);
    if (!fn_name || std::strncmp(fn_name, "__bpf_trace_", 12) != 0) continue;
    const btf_type* fp = btf__type_by_id(b, fn->type);
    if (!fp || !btf_is_func_proto(fp) || btf_vlen(fp) != btf_vlen(proto)) continue;
    const btf_param* have = btf_params(fp);
    bool same = true;
    for (uint16_t i = 1; same && i < btf_vlen(proto); ++i) same = have[i].type == want[i].type;
    if (!same) continue;
    std::vector<std::string> these;
    for (uint16_t i = 1; i < btf_vlen(fp); ++i) {
      const char* n = btf__name_by_offset(b, have[i].name_off);
      these.emplace_back(n ? n : "");
    }
    if (names && *names != these) return;  // two classes name them apart
    names = std::move(these);
  }
  if (!names) return;
  for (size_t i = 0; i < f.params.size(); ++i) f.params[i].name = (*names)[i];
}

}  // namespace

std::optional<Function> KernelBtf::tracepoint(const std::string& name, const std::string& module) {
  for (auto& [mod, b] : impl_->scope(*this, module)) {
    auto id = find_in(impl_->index(b).typedefs, std::string(kTraceTypedef) + name);
    if (!id) continue;
    // typedef void (*btf_trace_NAME)(void *, ARGS...);
    Type pointer = strip(Type{b, *id});
    if (kind(pointer) != TypeKind::pointer) continue;
    const btf_type* proto = btf__type_by_id(b, pointee(pointer).id);
    if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) < 1) continue;
    Function f;
    f.name = name;
    f.module = mod;
    f.ret = Type{b, 0};
    const btf_param* p = btf_params(proto);
    for (uint16_t i = 1; i < btf_vlen(proto); ++i) f.params.push_back(Param{"", Type{b, p[i].type}});
    // The typedef's parameters have no names.  The kernel's functions of
    // the same prototype do: __probestub_NAME (6.4+, one per tracepoint),
    // or __bpf_trace_NAME where the event is its own class (6.1).
    bool named_yet = false;
    for (const char* prefix : {"__probestub_", "__bpf_trace_"}) {
      std::optional<Function> named = function(prefix + name, mod);
      if (!named || named->params.size() != f.params.size() + 1) continue;
      for (size_t i = 0; i < f.params.size(); ++i) f.params[i].name = named->params[i + 1].name;
      named_yet = true;
      break;
    }
    // Before 6.4 an event of a shared class (block_bio_queue of class
    // block_bio) has only its class's __bpf_trace_CLASS: take the names
    // of the class functions with the same parameter types, if they agree.
    if (!named_yet) name_from_classes(b, proto, f);
    return f;
  }
  return std::nullopt;
}

std::optional<Type> KernelBtf::find_type(const std::string& name, const std::string& module) {
  std::string bare = name;
  int only = -1;  // a kind when the name says which, else any
  for (auto [prefix, kind] : {std::pair{"struct ", BTF_KIND_STRUCT},
                              std::pair{"union ", BTF_KIND_UNION},
                              std::pair{"enum ", BTF_KIND_ENUM}}) {
    if (name.rfind(prefix, 0) == 0) {
      bare = name.substr(std::strlen(prefix));
      only = kind;
    }
  }
  std::string base_name = canonical_base_name(bare);
  for (auto& [mod, b] : impl_->scope(*this, module)) {
    NameIndex& ix = impl_->index(b);
    std::optional<uint32_t> id;
    if (only == BTF_KIND_STRUCT || only < 0) id = find_in(ix.structs, bare);
    if (!id && (only == BTF_KIND_UNION || only < 0)) id = find_in(ix.unions, bare);
    if (!id && only < 0) id = find_in(ix.typedefs, bare);
    if (!id && (only == BTF_KIND_ENUM || only < 0)) id = find_in(ix.enums, bare);
    if (!id && only < 0) id = find_in(ix.bases, base_name);
    if (id) return Type{b, *id};
  }
  if (only < 0 && base_name == "void") return Type{impl_->vmlinux, 0};
  return std::nullopt;
}

// ---- type queries

Type KernelBtf::strip(Type t) {
  while (t.owner && t.id != 0) {
    const btf_type* bt = type_of(t);
    if (!bt) break;
    switch (btf_kind(bt)) {
      case BTF_KIND_TYPEDEF:
      case BTF_KIND_CONST:
      case BTF_KIND_VOLATILE:
      case BTF_KIND_RESTRICT:
      case BTF_KIND_TYPE_TAG: t.id = bt->type; continue;
      default: return t;
    }
  }
  return t;
}

TypeKind KernelBtf::kind(Type t) {
  t = strip(t);
  if (!t.owner) return TypeKind::other;
  if (t.id == 0) return TypeKind::void_;
  const btf_type* bt = type_of(t);
  if (!bt) return TypeKind::other;
  switch (btf_kind(bt)) {
    case BTF_KIND_INT: return TypeKind::integer;
    case BTF_KIND_PTR: return TypeKind::pointer;
    case BTF_KIND_ARRAY: return TypeKind::array;
    case BTF_KIND_STRUCT: return TypeKind::struct_;
    case BTF_KIND_UNION: return TypeKind::union_;
    case BTF_KIND_ENUM:
    case BTF_KIND_ENUM64: return TypeKind::enum_;
    case BTF_KIND_FUNC_PROTO: return TypeKind::func_proto;
    case BTF_KIND_FLOAT: return TypeKind::float_;
    default: return TypeKind::other;
  }
}

uint32_t KernelBtf::size(Type t) {
  t = strip(t);
  if (!t.owner || t.id == 0) return 0;
  int64_t s = btf__resolve_size(t.owner, t.id);
  return s < 0 ? 0 : static_cast<uint32_t>(s);
}

bool KernelBtf::is_signed(Type t) {
  t = strip(t);
  if (!t.owner || t.id == 0) return false;
  const btf_type* bt = type_of(t);
  if (btf_is_int(bt)) return btf_int_encoding(bt) & BTF_INT_SIGNED;
  // An enum's kind flag says its values are signed (kernels since 6.0).
  if (btf_is_any_enum(bt)) return btf_kflag(bt);
  return false;
}

bool KernelBtf::is_char(Type t) { return kind(t) == TypeKind::integer && size(t) == 1; }

Type KernelBtf::pointee(Type t) {
  t = strip(t);
  if (kind(t) != TypeKind::pointer) return Type{};
  return Type{t.owner, type_of(t)->type};
}

Type KernelBtf::element(Type t) {
  t = strip(t);
  if (kind(t) != TypeKind::array) return Type{};
  return Type{t.owner, btf_array(type_of(t))->type};
}

uint32_t KernelBtf::array_length(Type t) {
  t = strip(t);
  if (kind(t) != TypeKind::array) return 0;
  return btf_array(type_of(t))->nelems;
}

std::vector<Member> KernelBtf::members(Type t) {
  std::vector<Member> out;
  t = strip(t);
  TypeKind k = kind(t);
  if (k != TypeKind::struct_ && k != TypeKind::union_) return out;
  const btf_type* bt = type_of(t);
  const btf_member* m = btf_members(bt);
  for (uint16_t i = 0; i < btf_vlen(bt); ++i) {
    const char* n = btf__name_by_offset(t.owner, m[i].name_off);
    out.push_back(Member{n ? n : "", Type{t.owner, m[i].type},
                         btf_member_bit_offset(bt, i), btf_member_bitfield_size(bt, i)});
  }
  return out;
}

std::optional<Member> KernelBtf::member(Type t, const std::string& name) {
  for (Member& m : members(t)) {
    if (m.name == name) return m;
    if (!m.name.empty()) continue;
    TypeKind k = kind(m.type);
    if (k != TypeKind::struct_ && k != TypeKind::union_) continue;
    if (auto inner = member(m.type, name)) {
      inner->bit_offset += m.bit_offset;
      return inner;
    }
  }
  return std::nullopt;
}

std::string KernelBtf::enumerator(Type t, int64_t value) {
  t = strip(t);
  if (kind(t) != TypeKind::enum_) return "";
  const btf_type* bt = type_of(t);
  bool is_signed_enum = btf_kflag(bt);
  for (uint16_t i = 0; i < btf_vlen(bt); ++i) {
    int64_t v;
    uint32_t name_off;
    if (btf_is_enum(bt)) {
      const struct btf_enum* e = btf_enum(bt) + i;
      v = is_signed_enum ? int64_t(int32_t(e->val)) : int64_t(uint32_t(e->val));
      name_off = e->name_off;
    } else {
      const struct btf_enum64* e = btf_enum64(bt) + i;
      v = static_cast<int64_t>(btf_enum64_value(e));
      name_off = e->name_off;
    }
    // A 32-bit enum's value may arrive sign- or zero-extended.
    bool fits32 = value >= INT32_MIN && value <= int64_t(UINT32_MAX);
    if (v == value || (btf_is_enum(bt) && fits32 && uint32_t(v) == uint32_t(value))) {
      const char* n = btf__name_by_offset(t.owner, name_off);
      return n ? n : "";
    }
  }
  return "";
}

// ---- names, spelled as stap's dwarf_type_name spells DWARF types:
// qualifiers after what they qualify ("char const*"), '*' with no space,
// arrays as "[]" without a length, anonymous aggregates as "struct {...}",
// and a function pointer as "int (*) (struct file*, int)".

namespace {

struct Namer {
  // The innermost function prototype met, whose return and parameters go
  // around the modifiers gathered on the way to it.
  std::optional<Type> proto;

  bool name(Type t, std::string& o) {
    if (t.id == 0) {
      o += "void";
      return true;
    }
    const btf_type* bt = type_of(t);
    if (!bt) return false;
    const char* n = name_of(t.owner, bt);
    switch (btf_kind(bt)) {
      case BTF_KIND_INT:
      case BTF_KIND_FLOAT:
      case BTF_KIND_TYPEDEF: o += n; return true;
      case BTF_KIND_STRUCT: return aggregate("struct ", n, o);
      case BTF_KIND_UNION: return aggregate("union ", n, o);
      case BTF_KIND_ENUM:
      case BTF_KIND_ENUM64: return aggregate("enum ", n, o);
      case BTF_KIND_FWD: return aggregate(btf_kflag(bt) ? "union " : "struct ", n, o);
      case BTF_KIND_FUNC_PROTO: proto = t; return true;
      case BTF_KIND_TYPE_TAG: return name(Type{t.owner, bt->type}, o);
      case BTF_KIND_PTR: return modifier(t, bt, "*", o);
      case BTF_KIND_CONST: return modifier(t, bt, " const", o);
      case BTF_KIND_VOLATILE: return modifier(t, bt, " volatile", o);
      case BTF_KIND_RESTRICT: return modifier(t, bt, " restrict", o);
      case BTF_KIND_ARRAY: {
        if (!name(Type{t.owner, btf_array(bt)->type}, o)) return false;
        o += "[]";
        return true;
      }
      default: return false;
    }
  }

  static bool aggregate(const char* tag, const char* n, std::string& o) {
    o += tag;
    o += *n ? n : "{...}";
    return true;
  }

  bool modifier(Type t, const btf_type* bt, const char* suffix, std::string& o) {
    Type sub{t.owner, bt->type};
    // gcc's builtin va_list is a pointer to struct __va_list_tag.
    if (btf_is_ptr(bt) && sub.id != 0) {
      const btf_type* st = type_of(sub);
      if (btf_is_struct(st) && std::strcmp(name_of(t.owner, st), "__va_list_tag") == 0) {
        o += "va_list";
        return true;
      }
    }
    if (!name(sub, o)) return false;
    o += suffix;
    return true;
  }
};

bool full_name(Type t, std::string& out);

// "RET (MODIFIERS) (PARAM, PARAM, ...)"
bool prototype_name(Type proto, const std::string& modifiers, std::string& out) {
  const btf_type* bt = type_of(proto);
  std::string ret;
  if (!full_name(Type{proto.owner, bt->type}, ret)) return false;
  out = ret + " (" + modifiers + ") (";
  const btf_param* p = btf_params(bt);
  uint16_t n = btf_vlen(bt);
  for (uint16_t i = 0; i < n; ++i) {
    if (i) out += ", ";
    std::string param;
    if (p[i].type == 0 && p[i].name_off == 0) {
      param = "...";
    } else if (!full_name(Type{proto.owner, p[i].type}, param)) {
      return false;
    }
    out += param;
  }
  if (n == 0) out += "void";
  out += ")";
  return true;
}

bool full_name(Type t, std::string& out) {
  Namer namer;
  std::string o;
  if (!namer.name(t, o)) return false;
  if (!namer.proto) {
    out = o;
    return true;
  }
  return prototype_name(*namer.proto, o, out);
}

}  // namespace

std::string KernelBtf::name(Type t) {
  std::string out;
  if (!t.owner || !full_name(t, out)) return "<unknown>";
  return out;
}

// stap's saveargs: nameless or unnameable variables are left out, and a
// function without a return type has no $return.
std::string KernelBtf::describe_params(const Function& f, bool is_return) {
  std::vector<std::string> vars;
  std::string type;
  if (is_return && f.ret.id != 0 && full_name(f.ret, type)) vars.push_back("$return:" + type);
  for (const Param& p : f.params) {
    if (!p.name.empty() && full_name(p.type, type)) vars.push_back("$" + p.name + ":" + type);
  }
  std::string out;
  for (const auto& v : vars) out += (out.empty() ? "" : " ") + v;
  return out;
}

}  // namespace stap::kernel
