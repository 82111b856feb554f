// The interpreter's insides, shared by its files (private to
// loader/interp/):
//   interpreter.cpp     statements, expressions, operators, calls, errors
//   interp_builtins.cpp the user-context builtins, one table by name
//   interp_foreach.cpp  foreach: sorting, limit, slices, histogram buckets
//   interp_memory.cpp   kernel memory (kernel_memory.h), the kernel_* and
//                       user_* readers
#pragma once

#include <regex.h>

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/format_string.h"
#include "loader/interp/interpreter.h"

namespace stap::interp {

// A runtime error on its way to the probe's end or to a try block.
// `loc` is where stap would say it happened ("near ..."); MAXACTION and
// MAXNESTING cannot be caught, as in stap.
struct RuntimeError {
  std::string message;
  uint32_t loc = 0;
  bool catchable = true;
};

// `next` (and abort()): leave the probe at once, without an error.
struct LeaveProbe {};

enum class Flow { normal, brk, cont, ret };

struct Frame {
  std::vector<Value> slots;
  Value ret;
};

// Calls nest no deeper than this (stap's MAXNESTING is the static call
// depth plus 10 for recursive programs; a fixed bound keeps the C++ stack
// safe and is far above the depth of non-recursive scripts).
inline constexpr int kMaxNesting = 64;

// stap's MAXACTION_INTERRUPTIBLE is MAXACTION times this.
inline constexpr int64_t kInterruptibleFactor = 10;

// Whether `key` matches a slice pattern (nullopt = '*').
bool key_matches(const Key& key, const std::vector<std::optional<Value>>& pattern);

// text_str/text_strn/string_quoted (interp_text.cpp); 0 lengths mean
// MAXSTRINGLEN-1.
std::string text_str(const std::string& in, size_t inlen, size_t outlen, bool quoted,
                     size_t maxstringlen, bool buffer = false);

struct CompiledRegex {
  regex_t re;
  bool ok = false;
  ~CompiledRegex() {
    if (ok) regfree(&re);
  }
};

}  // namespace stap::interp

namespace stap {

struct Interpreter::Impl {
  Impl(const ir::Module& module, GlobalStore& store, InterpreterHost& host);

  ProbeOutcome run(size_t probe, int subject);

  // ---- interpreter.cpp
  interp::Flow exec(const ir::Node& n);
  Value eval(const ir::Node& n);
  int64_t eval_long(const ir::Node& n);
  std::string eval_string(const ir::Node& n);
  Key eval_keys(const ir::Node& n, size_t first, size_t count);
  [[noreturn]] void raise(std::string message, const ir::Node& at);
  // warn()'s "WARNING: text": through the session when there is one.
  void warn(const std::string& text) {
    if (host.warn) host.warn(text);
    else std::fprintf(stderr, "WARNING: %s\n", text.c_str());
  }
  void charge(const ir::Node& at);  // one action against MAXACTION
  Value call(const ir::Node& n);
  Value zero_of(ir::Type t) const;
  // Strings stored in globals are cut to MAXSTRINGLEN-1 bytes.
  std::string cut(std::string s) const;
  const std::vector<PrintfPiece>& format(size_t index, const ir::Node& at);
  std::string format_call(const ir::Node& n, bool to_string);
  Key stat_key(const ir::Node& n, size_t keys);  // a statistic's key, strings cut
  std::optional<StatValue> stat_of(const ir::Node& n, size_t keys);
  std::string set_procfs_text(std::string text, const ir::Node& at);
  Value set_element(const ir::Node& n);
  // The keys of an in/delete (or a foreach slice) from kids[first...]:
  // nullopt for a '*'.
  std::vector<std::optional<Value>> eval_pattern(const ir::Node& n, size_t first);
  bool element_exists(const ir::Node& n);
  void delete_elements(const ir::Node& n);
  int64_t aggregate(const ir::Node& n);
  int64_t bucket(const ir::Node& n);
  void print_histogram(const ir::Node& n);
  std::string histogram_text(const ir::Node& n, Histogram* shown = nullptr);

  // ---- interp_foreach.cpp
  interp::Flow exec_foreach(const ir::Node& n);
  interp::Flow foreach_hist(const ir::Node& n);
  // One iteration's body; returns true when the loop must stop.
  bool foreach_body(const ir::Node& n, interp::Flow& flow);

  // ---- interp_builtins.cpp
  Value builtin(const ir::Node& n);
  bool regex_match(const std::string& text, const std::string& pattern, const ir::Node& at);

  // ---- interp_memory.cpp
  int64_t kernel_read(const ir::Node& n);  // Op::kread

  const ir::Module& m;
  GlobalStore& store;
  InterpreterHost& host;
  // host.sink, or a text sink over host.out when the host gave none.
  std::unique_ptr<OutputSink> own_sink;
  OutputSink* sink = nullptr;

  std::vector<std::unique_ptr<std::vector<PrintfPiece>>> formats;
  std::map<std::string, std::unique_ptr<interp::CompiledRegex>> regexes;

  // Per probe run.
  const ir::Probe* probe = nullptr;
  interp::Frame* frame = nullptr;
  int64_t actions = 0;
  int depth = 0;
  uint32_t last_loc = 0;  // the statement running, for errors raised without a location
  // The task the context functions (pid(), execname() ...) answer for: 0
  // for the runtime itself, else the thread a running-tasks probe runs for.
  int subject = 0;

  // Builtin state that outlives one call, as stap keeps it in its context.
  std::string tokenize_rest;
  bool tokenize_active = false;
  bool last_match_ok = false;
  std::vector<std::string> last_groups;
  std::map<int64_t, int64_t> indent_counters, indent_stamps;  // indent(), thread_indent()
  // $value of the procfs probe running (Interpreter::procfs_text()).
  std::string procfs_text;
};

namespace interp {

// Entries of interp_builtins.cpp's table, interp_memory.cpp's:
// task_current(), and the readers by the call's name:
// kernel_/user_ long, int, short, char ... with their _warn and _error
// forms (number_reader_names), the strings (*_string, *_string2,
// *_string_n, user_string_n2), user_string*_warn, the quoting ones
// (*_string_quoted, user_string_n*_quoted, *_buffer_quoted[_error]) and
// *_string_utf16/utf32.
Value b_task_current(Interpreter::Impl& in, std::vector<Value>& args, const ir::Node& n);
std::vector<std::string_view> number_reader_names();
Value b_read_number(Interpreter::Impl& in, std::vector<Value>& args, const ir::Node& n);
Value b_read_string(Interpreter::Impl& in, std::vector<Value>& args, const ir::Node& n);
Value b_read_string_warn(Interpreter::Impl& in, std::vector<Value>& args, const ir::Node& n);
Value b_read_quoted(Interpreter::Impl& in, std::vector<Value>& args, const ir::Node& n);
Value b_read_string_utf(Interpreter::Impl& in, std::vector<Value>& args, const ir::Node& n);

}  // namespace interp

}  // namespace stap
