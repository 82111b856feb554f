// The running kernel's types and functions, from BTF (no debuginfo needed):
// /sys/kernel/btf/vmlinux and, loaded on first use, each module's split
// BTF (/sys/kernel/btf/MODULE).  What kernel.function probes need to
// resolve a point (which functions exist, their parameters) and to read
// target variables ($p->field->sub, $arr[i], @cast(p, "type")->f).
//
// A Type is a (BTF object, type id) pair: a module's split BTF also
// resolves vmlinux's ids, so a Type from a module can point at vmlinux's
// types.  Id 0 is void.  Types are cheap values; the KernelBtf owns the
// BTF objects and must outlive them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct btf;

namespace stap::kernel {

struct Type {
  const struct btf* owner = nullptr;
  uint32_t id = 0;
  bool valid() const { return owner != nullptr; }
};

enum class TypeKind : uint8_t {
  void_, integer, pointer, array, struct_, union_, enum_, func_proto, float_, other
};

struct Member {
  std::string name;        // empty for an anonymous struct/union member
  Type type;
  uint32_t bit_offset = 0;     // from the start of the outermost struct searched
  uint32_t bitfield_size = 0;  // 0: not a bitfield
};

struct Param {
  std::string name;
  Type type;
};

struct Function {
  std::string name;
  std::string module;   // "" for vmlinux, else the module's name ("ext4")
  Type ret;             // void: id 0
  std::vector<Param> params;
  bool variadic = false;
};

class KernelBtf {
 public:
  KernelBtf();
  ~KernelBtf();
  KernelBtf(const KernelBtf&) = delete;
  KernelBtf& operator=(const KernelBtf&) = delete;

  // Loads DIR/vmlinux (default /sys/kernel/btf).  False, with `why` saying
  // what is missing (and what to do: "the kernel has no BTF
  // (CONFIG_DEBUG_INFO_BTF)"), when it cannot.
  bool load(std::string& why, const std::string& dir = "/sys/kernel/btf");
  bool loaded() const;

  // The module's split BTF, loaded on first use; null when the module is
  // not loaded or has no BTF.  "" and "kernel" are vmlinux.
  const struct btf* module_btf(const std::string& module);
  // Names of the loaded modules with BTF (the files in DIR besides vmlinux).
  std::vector<std::string> modules() const;

  // A function (BTF_KIND_FUNC) by exact name: in `module` when given, else
  // vmlinux first, then the loaded modules.
  std::optional<Function> function(const std::string& name, const std::string& module = "");
  // Every function name in vmlinux (module "" or "kernel") or one module,
  // sorted, without duplicates.
  std::vector<std::string> function_names(const std::string& module);

  // BTF tracepoints (tp_btf programs): the names of the tracepoints whose
  // btf_trace_NAME typedef vmlinux (module "" or "kernel") or one module
  // has, sorted; and a tracepoint's arguments from that typedef, without
  // the leading `void *` of the callback (the program's context is the
  // rest, one u64 each), named as the kernel's __probestub_NAME or
  // __bpf_trace_NAME function names them ("" where neither exists).
  std::vector<std::string> tracepoint_names(const std::string& module);
  std::optional<Function> tracepoint(const std::string& name, const std::string& module = "");

  // A named type: "struct task_struct", "union bpf_attr", "enum x",
  // "task_struct" (struct, union, typedef or enum of that name, in that
  // order), "u32", "unsigned long".  In `module` when given, else vmlinux
  // then the loaded modules.
  std::optional<Type> find_type(const std::string& name, const std::string& module = "");

  // ---- type queries (they take any Type, and look through typedefs,
  // const, volatile, restrict and type tags first)
  static Type strip(Type t);
  static TypeKind kind(Type t);
  static uint32_t size(Type t);          // bytes; pointers 8; 0 for void/func
  static bool is_signed(Type t);         // integers and enums
  static bool is_char(Type t);           // a 1-byte integer (char, signed/unsigned char)
  static Type pointee(Type t);           // pointer: the pointed-to type (void: id 0)
  static Type element(Type t);           // array: element type
  static uint32_t array_length(Type t);  // array: element count (0 for a flexible array)
  // Members of a struct/union in order (anonymous ones as they are).
  static std::vector<Member> members(Type t);
  // A member by name, searching through anonymous struct/union members as
  // C does (stap's `->` does the same); bit_offset is from the start of t.
  static std::optional<Member> member(Type t, const std::string& name);
  // The type as stap spells it in -L output and messages (its
  // dwarf_type_name): "struct file*", "char*", "size_t", "loff_t*",
  // "unsigned int", qualifiers after the type ("char const*", "void
  // const*"), arrays without a length ("char[]", "struct list_head[]"),
  // "struct {...}" when anonymous, "void*", and a function pointer as
  // "int (*) (struct file*, int)".  "<unknown>" when it cannot.
  static std::string name(Type t);
  // Enumerator name of an enum value, or empty.
  static std::string enumerator(Type t, int64_t value);
  // The target variables stap -L lists for a kernel.function point, in
  // its order and spelling: "$file:struct file* $buf:char* $count:size_t
  // $pos:loff_t*"; for a .return point "$return:ssize_t" first (when the
  // function returns a value).  BTF has no locals, so only parameters.
  static std::string describe_params(const Function& f, bool is_return = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stap::kernel
