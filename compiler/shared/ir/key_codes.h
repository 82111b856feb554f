// Coded string keys: an array key whose every string is known at compile
// time is stored as an 8-byte code instead of the string.
//
// `probe syscall.* { c[name]++ }` keys an array by the call's name: as a
// string, every event copies it and the hash map hashes it; as a code, the
// key is the call's number, as cheap as counting by number.  A key column
// is coded when every use of it (kernel and user context) is
//   - syscall_name(E): the code is E when E names a call, else -1 ("");
//   - a string literal: a call's exact name gives its number, "" gives -1,
//     any other literal its index in Module::key_literals + kLiteralBase;
//   - a key that came out of the same array (foreach).
// The runtime decodes a code back to the string wherever the key is seen
// (foreach, printing, the global display), so scripts cannot tell.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stap::ir {

class Module;
struct Node;

// Codes from here on are Module::key_literals indexes.
constexpr int64_t kLiteralBase = int64_t{1} << 32;
// A code no key ever has: what a string no key can hold packs as.
constexpr int64_t kNoCode = INT64_MIN;

// Stack codes: in kernel context backtrace(), ubacktrace(), callers(n),
// ucallers(n), sprint_[u]backtrace(), probefunc(), symname(addr()) and
// usymname(uaddr()) used as keys store the stack the kernel captured
// (bpf_get_stackid into the object's stack map) instead of its text:
//   bit 62 set, bit 61 user stack, bits 56-60 the form, bits 24-55 the
//   process (user stacks only: their addresses mean something in it),
//   bits 0-23 the stack's id in the map.
// The runtime, which holds the map and the symbols, turns a code into the
// text stap would have produced (set_stack_codec()).
constexpr int64_t kStackTag = int64_t{1} << 62;
constexpr int64_t kStackUser = int64_t{1} << 61;
enum StackForm : int {
  kStackAddresses = 0,  // backtrace(): "0x... 0x..." up to MAXBACKTRACE
  // 1..29: callers(n): the first n+1 addresses
  kStackSymbols = 30,   // sprint_backtrace(): "name+0x1/0x2 [mod]\n" lines
  kStackSymbol = 31,    // the name of the first frame: probefunc(), symname(addr())
};
struct StackCode {
  bool user = false;
  int form = kStackAddresses;
  uint32_t tgid = 0;
  uint32_t id = 0;
};
inline bool is_stack_code(int64_t code) { return code > 0 && (code & kStackTag) != 0; }
inline int64_t make_stack_code(const StackCode& c) {
  return kStackTag | (c.user ? kStackUser : 0) | (int64_t(c.form & 31) << 56) |
         (int64_t(c.tgid) << 24) | int64_t(c.id & 0xffffff);
}
inline StackCode split_stack_code(int64_t code) {
  return StackCode{(code & kStackUser) != 0, int((code >> 56) & 31),
                   uint32_t((code >> 24) & 0xffffffff), uint32_t(code & 0xffffff)};
}
// Whether a key expression is one of the builtins above (its column can
// be coded), and the form and side (user) of its code.
bool is_stack_key(const Node& n);

// What turns stack codes into text and back; the runtime sets one while a
// session runs.  Without one a stack code reads as "".
class StackCodec {
 public:
  virtual ~StackCodec() = default;
  virtual std::string text(int64_t code) = 0;
  // The code a text came from, when this codec produced it.
  virtual std::optional<int64_t> code(const std::string& text) = 0;
  // What a code stands for: two codes with one identity are one key to a
  // script (probefunc() of two stacks in one function; one stack taken
  // by two probes, whose own frames differ), and the runtime merges
  // their array entries (loader/key_aliases.h).
  virtual std::string identity(int64_t code) { return text(code); }
};
void set_stack_codec(StackCodec* codec);
// The codec's identity of a stack code (its text without a codec).
std::string stack_identity(int64_t code);

// The code of `s` in module `m`, or nullopt for a string no key of the
// module can hold (a lookup of it finds nothing).
std::optional<int64_t> key_code(const Module& m, const std::string& s);

// The string of `code`.
std::string key_string(const Module& m, int64_t code);

// In syscall probes, a key that is a literal naming the probe's own call
// (directly or through a local assigned it once) becomes
// syscall_name(<the call's number>), and the literal's assignment goes if
// nothing else reads it: `name = "openat"; c[name]++` from each syscall.*
// alias is then the same code for every call.  Run before the others.
void forward_syscall_names(Module& m);

// Decides which string key columns are coded (Global::coded_keys, their
// width 8) and fills Module::key_literals; run after narrow_string_keys()
// and before assign_layout().
void code_string_keys(Module& m);

}  // namespace stap::ir
