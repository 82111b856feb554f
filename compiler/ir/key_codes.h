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
