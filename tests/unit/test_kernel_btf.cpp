// KernelBtf against the running kernel's BTF (/sys/kernel/btf/vmlinux).
// Offsets and ids are cross-checked against bpftool's raw dump of the same
// file, parsed here independently of libbpf's accessors.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>

#include "kernel/kernel_btf.h"

namespace stap::test {

using kernel::KernelBtf;
using kernel::Type;
using kernel::TypeKind;

namespace {

KernelBtf& host_btf() {
  static KernelBtf kb;
  static bool tried = false;
  if (!tried) {
    tried = true;
    std::string why;
    INFO(why);
    REQUIRE(kb.load(why));
  }
  REQUIRE(kb.loaded());
  return kb;
}

// bpftool's "format raw" listing: "[ID] KIND 'name' ..." lines followed by
// "\t'member' type_id=N bits_offset=M" lines.
struct RawType {
  std::string kind, name;
  uint32_t type_id = 0;  // the referenced type, for PTR/CONST/TYPEDEF...
  struct Field {
    std::string name;
    uint32_t type_id;
    uint32_t bits_offset;
  };
  std::vector<Field> fields;
};

const std::map<uint32_t, RawType>* raw_dump() {
  static std::map<uint32_t, RawType> types;
  static bool tried = false;
  if (tried) return types.empty() ? nullptr : &types;
  tried = true;
  FILE* p = popen("bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null", "r");
  if (!p) return nullptr;
  static const std::regex head(R"(^\[(\d+)\] (\w+) '([^']*)'(?: type_id=(\d+))?.*)");
  static const std::regex field(R"(^\t'([^']*)' type_id=(\d+) bits_offset=(\d+).*)");
  char buf[4096];
  RawType* cur = nullptr;
  while (fgets(buf, sizeof buf, p)) {
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, head)) {
      cur = &types[std::stoul(m[1])];
      cur->kind = m[2];
      cur->name = m[3] == "(anon)" ? "" : std::string(m[3]);
      if (m[4].matched) cur->type_id = std::stoul(m[4]);
    } else if (cur && std::regex_match(line, m, field)) {
      cur->fields.push_back({m[1] == "(anon)" ? "" : std::string(m[1]),
                             uint32_t(std::stoul(m[2])), uint32_t(std::stoul(m[3]))});
    }
  }
  pclose(p);
  return types.empty() ? nullptr : &types;
}

// Follows CONST/VOLATILE/TYPEDEF... in the raw dump.
uint32_t raw_strip(const std::map<uint32_t, RawType>& raw, uint32_t id) {
  while (id != 0) {
    const RawType& t = raw.at(id);
    if (t.kind != "CONST" && t.kind != "VOLATILE" && t.kind != "TYPEDEF" &&
        t.kind != "RESTRICT" && t.kind != "TYPE_TAG")
      break;
    id = t.type_id;
  }
  return id;
}

// A field by name in the raw dump, through anonymous members: its bit
// offset and type id.
std::optional<std::pair<uint32_t, uint32_t>> raw_member(
    const std::map<uint32_t, RawType>& raw, uint32_t id, const std::string& name) {
  for (const auto& f : raw.at(raw_strip(raw, id)).fields) {
    if (f.name == name) return std::pair{f.bits_offset, f.type_id};
    if (!f.name.empty()) continue;
    if (auto inner = raw_member(raw, f.type_id, name))
      return std::pair{inner->first + f.bits_offset, inner->second};
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("kernel_btf: vfs_read's parameters in stap's spelling", "[kernel_btf]") {
  KernelBtf& kb = host_btf();
  auto f = kb.function("vfs_read");
  REQUIRE(f);
  CHECK(f->name == "vfs_read");
  CHECK(f->module.empty());
  CHECK(!f->variadic);
  REQUIRE(f->params.size() == 4);
  std::vector<std::string> got;
  for (const auto& p : f->params) got.push_back(p.name + ":" + KernelBtf::name(p.type));
  CHECK(got == std::vector<std::string>{"file:struct file*", "buf:char*", "count:size_t",
                                        "pos:loff_t*"});
  CHECK(KernelBtf::name(f->ret) == "ssize_t");
  CHECK(KernelBtf::kind(f->ret) == TypeKind::integer);
  CHECK(KernelBtf::is_signed(f->ret));
  CHECK(KernelBtf::size(f->ret) == 8);
  CHECK(KernelBtf::kind(f->params[0].type) == TypeKind::pointer);
  CHECK(KernelBtf::kind(KernelBtf::pointee(f->params[0].type)) == TypeKind::struct_);
  CHECK(KernelBtf::name(KernelBtf::pointee(f->params[0].type)) == "struct file");
  CHECK(!KernelBtf::is_signed(f->params[2].type));
  CHECK(KernelBtf::name(KernelBtf::strip(f->params[2].type)) == "long unsigned int");
  CHECK(KernelBtf::is_char(KernelBtf::pointee(f->params[1].type)));

  CHECK(KernelBtf::describe_params(*f) ==
        "$file:struct file* $buf:char* $count:size_t $pos:loff_t*");
  CHECK(KernelBtf::describe_params(*f, true) ==
        "$return:ssize_t $file:struct file* $buf:char* $count:size_t $pos:loff_t*");
  auto kfree = kb.function("kfree");
  REQUIRE(kfree);
  REQUIRE(kfree->params.size() == 1);  // "objp" or "object", by version
  CHECK(KernelBtf::describe_params(*kfree, true) ==
        "$" + kfree->params[0].name + ":void const*");  // no $return

  CHECK(!kb.function("no_such_function_in_any_kernel"));
  // A variable or a type is not a function.
  CHECK(!kb.function("task_struct"));
}

TEST_CASE("kernel_btf: qualifiers, void and function pointers", "[kernel_btf]") {
  KernelBtf& kb = host_btf();
  // do_sys_open(int dfd, const char __user *filename, int flags, umode_t mode)
  auto open = kb.function("do_sys_open");
  REQUIRE(open);
  REQUIRE(open->params.size() == 4);
  CHECK(KernelBtf::name(open->params[1].type) == "char const*");
  CHECK(KernelBtf::name(open->params[3].type) == "umode_t");
  std::string ret = KernelBtf::name(open->ret);  // "long int" in older kernels
  CHECK((ret == "int" || ret == "long int"));

  // kfree(const void *)
  auto kfree = kb.function("kfree");
  REQUIRE(kfree);
  REQUIRE(kfree->params.size() == 1);
  CHECK(KernelBtf::name(kfree->params[0].type) == "void const*");
  CHECK(KernelBtf::kind(kfree->ret) == TypeKind::void_);
  CHECK(KernelBtf::name(kfree->ret) == "void");

  // _printk(const char *fmt, ...)
  auto printk = kb.function("_printk");
  REQUIRE(printk);
  CHECK(printk->variadic);
  CHECK(printk->params.size() == 1);

  // file_operations.read: ssize_t (*)(struct file *, char *, size_t, loff_t *)
  auto fops = kb.find_type("struct file_operations");
  REQUIRE(fops);
  auto read = KernelBtf::member(*fops, "read");
  REQUIRE(read);
  CHECK(KernelBtf::name(read->type) ==
        "ssize_t (*) (struct file*, char*, size_t, loff_t*)");
  CHECK(KernelBtf::kind(KernelBtf::pointee(read->type)) == TypeKind::func_proto);
}

TEST_CASE("kernel_btf: file->f_path->dentry->d_name->name against bpftool", "[kernel_btf]") {
  KernelBtf& kb = host_btf();
  auto file = kb.find_type("struct file");
  REQUIRE(file);
  CHECK(KernelBtf::kind(*file) == TypeKind::struct_);

  auto f_path = KernelBtf::member(*file, "f_path");  // in an anonymous union since 6.x
  REQUIRE(f_path);
  CHECK(f_path->bit_offset % 8 == 0);
  auto dentry = KernelBtf::member(f_path->type, "dentry");
  REQUIRE(dentry);
  CHECK(KernelBtf::name(dentry->type) == "struct dentry*");
  auto d_name = KernelBtf::member(KernelBtf::pointee(dentry->type), "d_name");
  REQUIRE(d_name);
  CHECK(KernelBtf::name(KernelBtf::strip(d_name->type)) == "struct qstr");
  auto name = KernelBtf::member(d_name->type, "name");
  REQUIRE(name);
  CHECK(KernelBtf::name(name->type) == "unsigned char const*");

  const auto* raw = raw_dump();
  if (!raw) {
    WARN("bpftool is not available: offsets not cross-checked");
    return;
  }
  CHECK(raw->at(file->id).kind == "STRUCT");
  CHECK(raw->at(file->id).name == "file");
  auto r_path = raw_member(*raw, file->id, "f_path");
  REQUIRE(r_path);
  CHECK(r_path->first == f_path->bit_offset);
  CHECK(r_path->second == f_path->type.id);
  auto r_dentry = raw_member(*raw, r_path->second, "dentry");
  REQUIRE(r_dentry);
  CHECK(r_dentry->first == dentry->bit_offset);
  uint32_t dentry_struct = raw->at(raw_strip(*raw, r_dentry->second)).type_id;
  CHECK(dentry_struct == KernelBtf::strip(KernelBtf::pointee(dentry->type)).id);
  auto r_dname = raw_member(*raw, dentry_struct, "d_name");
  REQUIRE(r_dname);
  CHECK(r_dname->first == d_name->bit_offset);
  auto r_name = raw_member(*raw, r_dname->second, "name");
  REQUIRE(r_name);
  CHECK(r_name->first == name->bit_offset);
}

TEST_CASE("kernel_btf: members through anonymous structs and unions", "[kernel_btf]") {
  KernelBtf& kb = host_btf();
  auto skb = kb.find_type("sk_buff");
  REQUIRE(skb);
  CHECK(KernelBtf::name(*skb) == "struct sk_buff");
  // `dev` and `len` are not direct members: they sit in anonymous unions
  // (dev inside an anonymous struct inside one).
  bool dev_direct = false;
  for (const auto& m : KernelBtf::members(*skb)) dev_direct |= m.name == "dev";
  CHECK(!dev_direct);
  auto dev = KernelBtf::member(*skb, "dev");
  REQUIRE(dev);
  CHECK(KernelBtf::name(dev->type) == "struct net_device*");
  auto len = KernelBtf::member(*skb, "len");
  REQUIRE(len);
  CHECK(KernelBtf::name(len->type) == "unsigned int");
  CHECK(KernelBtf::size(len->type) == 4);
  CHECK(!KernelBtf::member(*skb, "no_such_member"));

  auto task = kb.find_type("task_struct");
  REQUIRE(task);
  auto pid = KernelBtf::member(*task, "pid");
  REQUIRE(pid);
  CHECK(KernelBtf::name(pid->type) == "pid_t");
  CHECK(KernelBtf::is_signed(pid->type));

  const auto* raw = raw_dump();
  if (!raw) {
    WARN("bpftool is not available: offsets not cross-checked");
    return;
  }
  for (const char* field : {"dev", "len", "data", "head", "protocol"}) {
    INFO(field);
    auto ours = KernelBtf::member(*skb, field);
    auto theirs = raw_member(*raw, skb->id, field);
    REQUIRE(ours);
    REQUIRE(theirs);
    CHECK(ours->bit_offset == theirs->first);
    CHECK(ours->type.id == theirs->second);
  }
  for (const char* field : {"pid", "tgid", "comm", "mm", "real_parent", "__state"}) {
    INFO(field);
    auto ours = KernelBtf::member(*task, field);
    auto theirs = raw_member(*raw, task->id, field);
    REQUIRE(ours);
    REQUIRE(theirs);
    CHECK(ours->bit_offset == theirs->first);
  }
}

TEST_CASE("kernel_btf: bitfields, arrays, enums, find_type spellings", "[kernel_btf]") {
  KernelBtf& kb = host_btf();
  auto task = kb.find_type("task_struct");
  REQUIRE(task);
  auto comm = KernelBtf::member(*task, "comm");
  REQUIRE(comm);
  CHECK(KernelBtf::kind(comm->type) == TypeKind::array);
  CHECK(KernelBtf::array_length(comm->type) == 16);
  CHECK(KernelBtf::is_char(KernelBtf::element(comm->type)));
  CHECK(KernelBtf::size(comm->type) == 16);
  CHECK(KernelBtf::name(comm->type) == "char[]");  // stap prints arrays without a length

  // task_struct's sched_reset_on_fork is a 1-bit field.
  auto bit = KernelBtf::member(*task, "sched_reset_on_fork");
  REQUIRE(bit);
  CHECK(bit->bitfield_size == 1);
  CHECK(KernelBtf::name(bit->type) == "unsigned int");
  CHECK(comm->bitfield_size == 0);

  // find_type: kinds, typedefs, C spellings of base types.
  CHECK(KernelBtf::kind(*kb.find_type("union bpf_attr")) == TypeKind::union_);
  CHECK(!kb.find_type("struct bpf_attr"));
  auto u32 = kb.find_type("u32");
  REQUIRE(u32);
  CHECK(KernelBtf::name(*u32) == "u32");
  CHECK(KernelBtf::size(*u32) == 4);
  auto ul = kb.find_type("unsigned long");
  REQUIRE(ul);
  CHECK(KernelBtf::name(*ul) == "long unsigned int");
  CHECK(KernelBtf::size(*ul) == 8);
  CHECK(!KernelBtf::is_signed(*ul));
  CHECK(KernelBtf::is_signed(*kb.find_type("long")));
  CHECK(KernelBtf::kind(*kb.find_type("void")) == TypeKind::void_);
  CHECK(!kb.find_type("no_such_type_anywhere"));

  // enum pid_type { PIDTYPE_PID, PIDTYPE_TGID, ... }
  auto pid_type = kb.find_type("enum pid_type");
  REQUIRE(pid_type);
  CHECK(KernelBtf::kind(*pid_type) == TypeKind::enum_);
  CHECK(KernelBtf::enumerator(*pid_type, 0) == "PIDTYPE_PID");
  CHECK(KernelBtf::enumerator(*pid_type, 1) == "PIDTYPE_TGID");
  CHECK(KernelBtf::enumerator(*pid_type, 1000).empty());
}

TEST_CASE("kernel_btf: function names and module BTF", "[kernel_btf]") {
  KernelBtf& kb = host_btf();
  auto names = kb.function_names("");
  CHECK(names.size() > 1000);
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  CHECK(std::binary_search(names.begin(), names.end(), "vfs_read"));
  CHECK(kb.function_names("kernel") == names);
  CHECK(kb.module_btf("") == kb.module_btf("kernel"));
  CHECK(kb.module_btf("no_such_module") == nullptr);
  CHECK(kb.function_names("no_such_module").empty());
  CHECK(!kb.function("vfs_read", "no_such_module"));

  std::string module;
  std::vector<std::string> module_functions;
  for (const auto& m : kb.modules()) {
    module_functions = kb.function_names(m);
    if (!module_functions.empty()) {
      module = m;
      break;
    }
  }
  if (module.empty()) {
    WARN("no loaded module has BTF functions (" << kb.modules().size()
                                                 << " modules with BTF): module BTF not tested");
    return;
  }
  INFO("module " << module);
  REQUIRE(kb.module_btf(module) != nullptr);
  // A module's split BTF lists only its own functions.
  CHECK(!std::binary_search(module_functions.begin(), module_functions.end(), "vfs_read"));
  CHECK(!kb.function("vfs_read", module));
  size_t typed_params = 0;
  for (const auto& fn : module_functions) {
    auto f = kb.function(fn, module);
    REQUIRE(f);
    CHECK(f->module == module);
    for (const auto& p : f->params) {
      INFO(fn << " " << p.name);
      CHECK(KernelBtf::name(p.type) != "<unknown>");
      // Parameters of a module's function often use vmlinux's types.
      typed_params += KernelBtf::kind(p.type) == TypeKind::pointer;
    }
  }
  CHECK(typed_params > 0);
  // Without a module, functions found only in a module are still found.
  for (const auto& fn : module_functions) {
    if (kb.function(fn, "kernel")) continue;
    auto f = kb.function(fn);
    REQUIRE(f);
    CHECK(!f->module.empty());
    break;
  }
}

}  // namespace stap::test
