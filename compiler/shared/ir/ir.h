// The program IR: what pass 3 lowers the elaborated AST into, and the one
// semantic model both execution sides share.
//
//   compiler/lower/  AST -> ir::Module   (names resolved to slots and
//                    indexes, print family turned into formats, target
//                    variables turned into context reads, every probe given
//                    its context: kernel (BPF) or user (the runtime))
//   compiler/codegen/  kernel-context probes and the functions they call
//                    -> LLVM IR -> BPF object
//   loader/interpreter  user-context probes (begin, end, error, interval
//                    timers) run over the same maps
//
// The module travels inside the object (ir/serialize.h), so the runtime,
// which links no LLVM and no front end, runs the user-context bodies from
// it.  The tree is deliberately uniform (one Node type, an opcode and a few
// operand fields) so that serialising it, interpreting it and generating
// code from it are each one switch.
//
// Operand conventions per opcode are listed next to each Op; "keys..." is
// one kid per array index, in declaration order.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ir/probe_spec.h"

namespace stap::ir {

enum class Type : uint8_t { none, long_, string, stats };
const char* type_name(Type t);  // "none", "long", "string", "stats"

enum class StatOp : uint8_t { count, sum, min, max, avg, variance };

enum class Op : uint8_t {
  // ---- values
  num,         // a = value                                        -> long
  str,         // s = value                                        -> string
  local,       // a = slot                                         -> slot's type
  set_local,   // a = slot, kids[0] = value                        -> the value
  global,      // a = global (scalar long/string)                  -> its type
  set_global,  // a = global, kids[0] = value                      -> the value
  // Atomic read-modify-write of a long global: kids[0] = delta.
  // b = 0 yields the new value (++x, x += d), b = 1 the old one (x++).
  add_global,
  elem,        // a = global (array), kids = keys...               -> value, 0 or "" when absent
  set_elem,    // a = global, kids = keys..., value                -> the value
  add_elem,    // a = global, kids = keys..., delta; b as add_global (atomic per element)
  in_elem,     // a = global, kids = keys... (an `any` kid = '*')  -> long 0/1
  delete_elem, // a = global, kids = keys... (`any` allowed)       -> none
  clear_global,// a = global: delete every element / reset a scalar or statistic -> none
  stat_add,    // a = global (stats), kids = keys..., value        -> none   (x <<< v)
  stat_get,    // a = global, b = StatOp, c = @variance shift, kids = keys... -> long
  hist_bucket, // a = global, kids = keys..., bucket index         -> long (@hist_log(x)[i])
  print_hist,  // a = global, kids = keys...   prints the histogram (shape in Global::hist);
               //   of type string: its text as the value (sprint, user context only)
  any,         // the '*' of a slice, only as a key of in_elem/delete_elem/foreach

  // ---- operators (kids[0], kids[1]); all on longs unless said
  neg, bit_not, log_not,                   // one kid
  add, sub, mul, div, mod,                 // div/mod: runtime error on 0 (loc)
  shl, shr, bit_and, bit_or, bit_xor,      // shr is arithmetic, as in stap
  lt, le, gt, ge, eq, ne,                  // long comparisons -> 0/1
  str_lt, str_le, str_gt, str_ge, str_eq, str_ne,  // string comparisons -> 0/1
  log_and, log_or,                         // short-circuit -> 0/1
  concat,                                  // string . string
  regex_match,                             // kids[0] string, s = regex, b = 1 for !~  -> 0/1
  cond,                                    // kids: condition, then, else

  // ---- calls and effects
  call,        // a = function index, kids = args                  -> function's type
  builtin,     // s = builtin name (elaborate/builtins.h table), kids = args -> its type;
               // ustack with c = 1: 0 past the last frame, not an error
  printf,      // a = format index, kids = the values the format consumes -> none
  sprintf,     // a = format index, kids = values                  -> string
  error,       // kids[0] = message: raise a catchable error       -> none
  exit,        // request the end of the session                   -> none

  // ---- tracepoint record fields (kernel.trace), read from the probe's context
  tp_field,    // a = offset, b = size (1,2,4,8), c = 1 when signed -> long
  tp_chars,    // a = offset, b = array length: char[N] field     -> string
  tp_dataloc,  // a = offset of the __data_loc u32 (len << 16 | offset) -> string

  // ---- statements
  block,       // kids = statements
  expr,        // kids[0] evaluated, value dropped
  nop,
  if_,         // kids: condition, then, else (nop when absent)
  loop,        // kids: condition (nop = forever), body, increment (nop when absent)
  // foreach: a = global; kids[0] = body, kids[1] = limit (nop when none),
  // kids[2...] = slice keys (empty: no slice; `any` = '*').
  // ints = {value_slot (-1: none), sort_column (0 value, k = key k), sort_direction
  //         (-1, 0, 1), sort_aggregate (StatOp), hist (0 none, 1 log, 2 linear: loop over
  //         the buckets of a histogram), key_slot...}
  foreach,
  ret,         // kids[0] = value (absent for a void function or a probe)
  brk,
  cont,
  next,        // leave the probe
  try_,        // kids: try block, catch block; a = catch slot (string) or -1

  // ---- system calls (SyscallSpec): the calling thread's saved user
  // registers, so entry arguments stay readable in a return probe
  sys_arg,     // a = argument index 0-5, b = size (1,2,4,8), c = 1 when signed -> long
  sys_nr,      // the call's number                                -> long
  sys_ret,     // the return value (exit probes only)              -> long

  // ---- kernel functions (KfuncSpec) and kernel memory
  fn_arg,      // a = argument index 0-11 (0-5 in pt_regs), b = size (1,2,4,8), c = 1 when signed -> long
  fn_ret,      // b = size (1,2,4,8), c = 1 when signed: the return value (return probes) -> long
  // The probed function being run: b = 0 its name (one of the spec's
  // functions), b = 1 its probe point (one of its site_points) -> string
  fn_name,
  // kids[0] = address, b = size (1,2,4,8), c = 1 when signed -> long.  A
  // fault is a runtime error at loc: "kernel read fault at 0x... near ...".
  kread,

  // ---- user-space probes (UprobeSpec); reg also in kprobe programs
  reg,         // a = byte offset in x86-64 struct pt_regs: a saved register -> long
  // kids[0] = address, b = size (1,2,4,8), c = 1 when signed -> long: user
  // memory of the probed process.  A fault is a runtime error at loc, as kread's.
  uread,

  // ---- verdicts: LSM hooks (LsmSpec), netfilter hooks (NetfilterSpec)
  // kids[0] = value: the program's return value, the hook's verdict, from
  // here on (LSM: 0 allows, -errno denies, starting as the previous BPF
  // LSM program's; netfilter: NF_DROP 0, NF_ACCEPT 1, starting as accept)
  // -> long, the value
  set_verdict,

  // ---- procfs files (ProcfsSpec), user context only
  procfs_value,      // a write probe's text, as written                 -> string
  set_procfs_value,  // kids[0] = value: a read probe's text from here on -> string

  // The verdict so far (see set_verdict) -> long.  Appended here, so the
  // opcodes before it keep their numbers.
  verdict,
  // The address of the program's context (an LSM hook's: its arguments,
  // one u64 each), stap's $ctx -> long
  ctx_address,
};
constexpr Op kLastOp = Op::ctx_address;
const char* op_name(Op op);  // "num", "set_local" ...

struct Node {
  Op op = Op::nop;
  Type type = Type::none;
  int64_t a = 0, b = 0, c = 0;
  std::string s;
  std::vector<Node*> kids;
  std::vector<int64_t> ints;  // foreach only
  uint32_t loc = 0;           // Module::locations index, 0 = none
};

// Histogram shape of a statistic global (one per global, as stap requires).
struct HistShape {
  enum class Kind : uint8_t { none, log, linear } kind = Kind::none;
  int64_t low = 0, high = 0, step = 0;
  int buckets() const;  // value slots the statistic keeps for it
};

struct Global {
  std::string name;
  Type type = Type::long_;          // long, string or stats
  std::vector<Type> keys;           // non-empty for arrays (long or string each)
  // The loop variables of the first `foreach ([a, b] in G)` over it that
  // the script wrote (not a macro's), one per key, or empty: what
  // --metrics and --pprof name the key columns.
  std::vector<std::string> key_names;
  // Key column k's name for outside readers: key_names[k], else "key<k+1>".
  std::string key_label(size_t k) const {
    return k < key_names.size() ? key_names[k] : "key" + std::to_string(k + 1);
  }
  int64_t max_entries = 0;          // "global a[N]", 0 = MAXMAPENTRIES
  bool wrap = false;                // "global a%": the oldest entry is replaced
  int64_t init_num = 0;             // initial value of a scalar
  std::string init_str;
  HistShape hist;                   // stats only

  // Storage, set by assign_layout():
  //  - a long/string scalar lives in the mmapable globals map at `offset`;
  //  - an array or any statistic is a map of its own named `map_name`,
  //    key `key_size` bytes (keys packed: 8 per long, maxstringlen per
  //    string, zero-padded), value `value_size` bytes (8 for a long,
  //    maxstringlen for a string, a struct stap_stat plus buckets for stats).
  uint32_t offset = 0;
  std::string map_name;
  // Bytes each key takes in the packed key: 8 for a long; for a string
  // MAXSTRINGLEN, or less when narrow_string_keys() proved every string
  // used as that key shorter (a multiple of 8, NUL included).  Empty: full.
  std::vector<uint32_t> key_widths;
  // Per key: 1 when the string key is stored as an 8-byte code
  // (ir/key_codes.h).  Empty: none is.
  std::vector<uint8_t> coded_keys;
  bool key_coded(size_t k) const { return k < coded_keys.size() && coded_keys[k]; }
  uint32_t key_width(size_t k, uint32_t maxstringlen) const {
    if (k < key_widths.size()) return key_widths[k];
    return keys.at(k) == Type::string ? maxstringlen : 8;
  }
  uint32_t key_size = 0;
  uint32_t value_size = 0;

  bool is_array() const { return !keys.empty(); }
  bool in_globals_map() const { return keys.empty() && type != Type::stats; }
};

struct Function {
  std::string name;
  Type ret = Type::none;
  size_t param_count = 0;
  std::vector<Type> slots;          // params first, then locals
  Node* body = nullptr;
  bool recursive = false;           // calls itself, directly or not: user context only
};

enum class Context : uint8_t { kernel, user };

struct Probe {
  std::string pp;                  // "kernel.trace(\"sched:sched_switch\")", for pp()
  // For pn(): the script-level point, which is the alias as the script's
  // point matched it ("syscall.read" for syscall.*), else pp.
  std::string pn;
  Context context = Context::user;
  ProbeSpec spec;                  // what the kind needs to run (ir/probe_spec.h)
  std::vector<Type> slots;         // locals
  Node* body = nullptr;
  std::string program_name;        // kernel context: the BPF program's name, set by codegen
  // For stap's -t report: where the user's probe is ("t.stp:3:1") and the
  // points it was derived through (" from: syscall.read"), as stap prints.
  std::string location;
  std::string derivation;
  // A synthesized end probe that prints an unread global at exit
  // (elaborate/global_display.h): that global's index, else -1.  Output
  // formats other than text write the global from the maps instead.
  int64_t displays_global = -1;

  template <class Spec>
  bool is() const { return std::holds_alternative<Spec>(spec); }
  // The spec when it is a `Spec`, else null.
  template <class Spec>
  Spec* as() { return std::get_if<Spec>(&spec); }
  template <class Spec>
  const Spec* as() const { return std::get_if<Spec>(&spec); }
  const char* kind_name() const { return ir::kind_name(spec); }
};

// A place a runtime error can be reported at, as stap words it after
// "near": "operator '/' at <input>:1:30", "identifier 'error' at t.stp:4:5".
struct Location {
  std::string text;
};

struct Limits {
  int64_t maxstringlen = 128;      // -D MAXSTRINGLEN
  int64_t maxmapentries = 2048;    // -D MAXMAPENTRIES
  int64_t maxerrors = 0;           // -D MAXERRORS
  int64_t maxaction = 1000;        // -D MAXACTION (user context statement budget)
  // -D MAXBACKTRACE: frames a stack keeps.  Not serialised: the compiler
  // sizes the stack map's values with it, and the runtime reads it back
  // from the map.
  int64_t maxbacktrace = 20;
};

class Module {
 public:
  std::string script_name;         // for messages
  Limits limits;
  bool timing = false;             // -t: each probe's hits and run times are kept
  std::vector<Global> globals;
  std::vector<Function> functions;
  std::vector<Probe> probes;
  std::vector<std::string> formats;    // printf/sprintf formats, as stap text
  std::vector<Location> locations;     // [0] is "no location"
  std::vector<std::string> key_literals;  // coded string keys (ir/key_codes.h)

  Module() : locations(1) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;

  Node* make(Op op, Type type = Type::none);
  uint32_t add_location(std::string text);
  uint32_t add_format(std::string text);  // reuses an identical format

 private:
  std::deque<std::unique_ptr<Node>> nodes_;
};

// Fills Global::offset/map_name/key_size/value_size from the limits and
// key_widths.  Returns the size of the globals map's value (header + scalars).
uint32_t assign_layout(Module& m);

// Sets Global::key_widths from every use of every array in the module
// (key_width.cpp); run before assign_layout().
void narrow_string_keys(Module& m);

}  // namespace stap::ir
