#include "elaborate/builtins.h"

namespace stap {

using ast::Type;

namespace {

constexpr Type L = Type::long_;
constexpr Type S = Type::string;
constexpr Type V = Type::unknown;  // returns nothing

bool format_hook(const Builtin& b, const ast::CallExpr& call, std::vector<Type>& types,
                 Diagnostics* diags);

// Shorthands for the table below.
Builtin fn(const char* name, Type ret, std::vector<BuiltinParam> params, bool pure,
           BuiltinContext ctx = BuiltinContext::both) {
  Builtin b{name, ret, std::move(params)};
  b.pure = pure;
  b.context = ctx;
  return b;
}
// Another name of builtin `of` (or of nothing: ""), as stap's tapsets have.
Builtin alias(Builtin b, const char* of) {
  b.lowers_as = of;
  return b;
}
Builtin printer(const char* name, Type ret, ArgShape shape) {
  Builtin b{name, ret, {}};
  b.shape = shape;
  b.listed = false;  // part of the language: stap does not list them
  b.pure = ret == S;  // sprint* only build a string
  if (shape == ArgShape::format) b.arg_types = format_hook;
  return b;
}
constexpr auto K = BuiltinContext::kernel;

std::vector<Builtin> make_table() {
  // Signatures as SystemTap's tapsets declare them.
  return {
      printer("print", L, ArgShape::values),
      printer("println", L, ArgShape::values),
      printer("printd", L, ArgShape::delimited),
      printer("printdln", L, ArgShape::delimited),
      printer("printf", L, ArgShape::format),
      printer("sprint", S, ArgShape::values),
      printer("sprintln", S, ArgShape::values),
      printer("sprintd", S, ArgShape::delimited),
      printer("sprintdln", S, ArgShape::delimited),
      printer("sprintf", S, ArgShape::format),

      // Control.
      fn("log", V, {{"msg", S}}, false),
      fn("warn", V, {{"msg", S}}, false),
      // The kernel's ftrace ring buffer, a line (tracefs trace, trace_pipe).
      fn("ftrace", V, {{"msg", S}}, false),
      fn("system", V, {{"cmd", S}}, false),
      fn("error", V, {{"msg", S}}, false),
      fn("exit", V, {}, false),
      fn("abort", V, {}, false),
      fn("assert", V, {{"expression", L}}, false),
      fn("assert", V, {{"expression", L}, {"msg", S}}, false),

      // Context.
      fn("pid", L, {}, true), fn("tid", L, {}, true), fn("ppid", L, {}, true),
      fn("uid", L, {}, true), fn("euid", L, {}, true), fn("gid", L, {}, true),
      fn("egid", L, {}, true), fn("sid", L, {}, true), fn("pgrp", L, {}, true),
      fn("cpu", L, {}, true), fn("execname", S, {}, true), fn("pexecname", S, {}, true),
      fn("target", L, {}, true), fn("stp_pid", L, {}, true),
      fn("pp", S, {}, true), fn("pn", S, {}, true),
      // probefunc(), is_return(), addr() and user_mode() have stap's values
      // in begin, end and timer probes too ("", 0: no registers there).
      fn("probefunc", S, {}, true), fn("probemod", S, {}, true, K),
      fn("ppfunc", S, {}, true), fn("is_return", L, {}, true),
      fn("task_current", L, {}, true),
      fn("addr", L, {}, true), fn("uaddr", L, {}, true, K),
      fn("caller", S, {}, true, K), fn("caller_addr", L, {}, true, K),
      fn("register", L, {{"name", S}}, true, K), fn("u_register", L, {{"name", S}}, true, K),
      fn("print_regs", V, {}, false, K), fn("returnval", L, {}, true, K),
      fn("env_var", S, {{"name", S}}, true, K),
      fn("cmdline_str", S, {}, true, K), fn("cmdline_arg", S, {{"n", L}}, true, K),
      fn("cmdline_args", S, {{"n", L}, {"m", L}, {"delim", S}}, true, K),
      fn("module_name", S, {}, true),
      // Calling-convention selectors: nothing to do on x86-64 (registers.stp).
      alias(fn("asmlinkage", V, {}, true), ""), alias(fn("fastcall", V, {}, true), ""),

      // Time.
      fn("gettimeofday_s", L, {}, true), fn("gettimeofday_ms", L, {}, true),
      fn("gettimeofday_us", L, {}, true), fn("gettimeofday_ns", L, {}, true),
      fn("get_cycles", L, {}, true), fn("jiffies", L, {}, true), fn("HZ", L, {}, true),
      fn("local_clock_ns", L, {}, true), fn("local_clock_us", L, {}, true),
      fn("local_clock_ms", L, {}, true), fn("local_clock_s", L, {}, true),
      fn("cpu_clock_ns", L, {{"cpu", L}}, true), fn("cpu_clock_us", L, {{"cpu", L}}, true),
      fn("cpu_clock_ms", L, {{"cpu", L}}, true), fn("cpu_clock_s", L, {{"cpu", L}}, true),
      fn("ctime", S, {}, true), fn("ctime", S, {{"epochsecs", L}}, true),
      fn("tz_gmtoff", L, {}, true), fn("tz_name", S, {}, true),

      // Memory.
      fn("kernel_string", S, {{"addr", L}}, true),
      fn("kernel_string", S, {{"addr", L}, {"err_msg", S}}, true),
      fn("kernel_string_n", S, {{"addr", L}, {"n", L}}, true),
      fn("kernel_string_quoted", S, {{"addr", L}}, true),
      fn("kernel_long", L, {{"addr", L}}, true), fn("kernel_int", L, {{"addr", L}}, true),
      fn("kernel_short", L, {{"addr", L}}, true), fn("kernel_char", L, {{"addr", L}}, true),
      fn("kernel_pointer", L, {{"addr", L}}, true),
      fn("user_string", S, {{"addr", L}}, true),
      fn("user_string", S, {{"addr", L}, {"err_msg", S}}, true),
      fn("user_string_n", S, {{"addr", L}, {"n", L}}, true),
      fn("user_string_n", S, {{"addr", L}, {"n", L}, {"err_msg", S}}, true),
      fn("user_string_quoted", S, {{"addr", L}}, true),
      fn("user_long", L, {{"addr", L}}, true), fn("user_int", L, {{"addr", L}}, true),
      fn("user_short", L, {{"addr", L}}, true), fn("user_char", L, {{"addr", L}}, true),
      // The rest of uconversions.stp and conversions.stp.
      fn("kernel_string2", S, {{"addr", L}, {"err_msg", S}}, true),
      fn("kernel_buffer_quoted", S, {{"addr", L}, {"inlen", L}}, true),
      fn("kernel_buffer_quoted", S, {{"addr", L}, {"inlen", L}, {"outlen", L}}, true),
      fn("kernel_buffer_quoted_error", S, {{"addr", L}, {"inlen", L}, {"outlen", L}}, true),
      fn("user_string2", S, {{"addr", L}, {"err_msg", S}}, true),
      fn("user_string_n2", S, {{"addr", L}, {"n", L}, {"err_msg", S}}, true),
      fn("user_string_warn", S, {{"addr", L}}, false),
      fn("user_string_warn", S, {{"addr", L}, {"warn_msg", S}}, false),
      fn("user_string2_warn", S, {{"addr", L}, {"warn_msg", S}}, false),
      fn("user_string_n_warn", S, {{"addr", L}, {"n", L}}, false),
      fn("user_string_n_warn", S, {{"addr", L}, {"n", L}, {"warn_msg", S}}, false),
      fn("user_string2_n_warn", S, {{"addr", L}, {"n", L}, {"warn_msg", S}}, false),
      fn("user_string_n_quoted", S, {{"addr", L}, {"n", L}}, true),
      fn("user_string_n_quoted", S, {{"addr", L}, {"inlen", L}, {"outlen", L}}, true),
      fn("user_string_n2_quoted", S, {{"addr", L}, {"inlen", L}, {"outlen", L}}, true),
      fn("user_buffer_quoted", S, {{"addr", L}, {"inlen", L}, {"outlen", L}}, true),
      fn("user_buffer_quoted_error", S, {{"addr", L}, {"inlen", L}, {"outlen", L}}, true),
      fn("user_ushort", L, {{"addr", L}}, true), fn("user_ulong", L, {{"addr", L}}, true),
      fn("user_int8", L, {{"addr", L}}, true), fn("user_uint8", L, {{"addr", L}}, true),
      fn("user_int16", L, {{"addr", L}}, true), fn("user_uint16", L, {{"addr", L}}, true),
      fn("user_int32", L, {{"addr", L}}, true), fn("user_uint32", L, {{"addr", L}}, true),
      fn("user_int64", L, {{"addr", L}}, true), fn("user_uint64", L, {{"addr", L}}, true),
      fn("user_char_warn", L, {{"addr", L}}, false),
      fn("user_short_warn", L, {{"addr", L}}, false),
      fn("user_ushort_warn", L, {{"addr", L}}, false),
      fn("user_int_warn", L, {{"addr", L}}, false),
      fn("user_long_warn", L, {{"addr", L}}, false),
      fn("user_ulong_warn", L, {{"addr", L}}, false),
      // The _error readers raise stap's read fault where the plain ones give 0.
      fn("user_char_error", L, {{"addr", L}}, true),
      fn("user_short_error", L, {{"addr", L}}, true),
      fn("user_ushort_error", L, {{"addr", L}}, true),
      fn("user_int_error", L, {{"addr", L}}, true),
      fn("user_long_error", L, {{"addr", L}}, true),
      fn("user_ulong_error", L, {{"addr", L}}, true),
      fn("user_int8_error", L, {{"addr", L}}, true),
      fn("user_uint8_error", L, {{"addr", L}}, true),
      fn("user_int16_error", L, {{"addr", L}}, true),
      fn("user_uint16_error", L, {{"addr", L}}, true),
      fn("user_int32_error", L, {{"addr", L}}, true),
      fn("user_uint32_error", L, {{"addr", L}}, true),
      fn("user_int64_error", L, {{"addr", L}}, true),
      fn("user_uint64_error", L, {{"addr", L}}, true),
      // UTF-16 and UTF-32 strings as UTF-8 (their err_msg and quoted forms:
      // tapsets/conversions.stp).
      fn("kernel_string_utf16", S, {{"addr", L}}, true),
      fn("kernel_string_utf32", S, {{"addr", L}}, true),
      fn("user_string_utf16", S, {{"addr", L}}, true),
      fn("user_string_utf32", S, {{"addr", L}}, true),

      // Strings.
      fn("strlen", L, {{"s", S}}, true),
      fn("substr", S, {{"str", S}, {"start", L}, {"length", L}}, true),
      fn("isinstr", L, {{"s1", S}, {"s2", S}}, true),
      fn("strpos", L, {{"s1", S}, {"s2", S}}, true),
      fn("str_replace", S, {{"prnt_str", S}, {"srch_str", S}, {"rplc_str", S}}, true),
      fn("stringat", L, {{"str", S}, {"pos", L}}, true),
      fn("text_str", S, {{"input", S}}, true),
      fn("text_strn", S, {{"input", S}, {"len", L}, {"quoted", L}}, true),
      fn("string_quoted", S, {{"str", S}}, true),
      // tokenize keeps the rest of its input between calls.
      fn("tokenize", S, {{"delim", S}}, false),
      fn("tokenize", S, {{"input", S}, {"delim", S}}, false),
      fn("strtol", L, {{"str", S}, {"base", L}}, true),
      fn("isdigit", L, {{"str", S}}, true),
      fn("matched", S, {{"n", L}}, true), fn("ngroups", L, {}, true),
      fn("errno_str", S, {{"err", L}}, true),
      // Both keep a per-thread indentation level.
      fn("thread_indent", S, {{"delta", L}}, false),
      fn("indent", S, {{"delta", L}}, false),
      fn("randint", L, {{"n", L}}, true),

      // Devices.
      fn("MKDEV", L, {{"major", L}, {"minor", L}}, true),
      fn("MAJOR", L, {{"dev", L}}, true), fn("MINOR", L, {{"dev", L}}, true),
      fn("usrdev2kerndev", L, {{"dev", L}}, true),

      // System calls (tapset/linux/syscall_table.stp): "" for an unknown number.
      fn("syscall_name", S, {{"num", L}}, true),

      // Symbols and stacks.
      fn("symname", S, {{"addr", L}}, true), fn("symdata", S, {{"addr", L}}, true),
      fn("modname", S, {{"addr", L}}, true),
      fn("usymname", S, {{"addr", L}}, true, K), fn("usymdata", S, {{"addr", L}}, true, K),
      fn("backtrace", S, {}, true, K), fn("ubacktrace", S, {}, true, K),
      fn("sprint_backtrace", S, {}, true, K), fn("sprint_ubacktrace", S, {}, true, K),
      fn("print_backtrace", V, {}, false, K), fn("print_ubacktrace", V, {}, false, K),
      fn("print_stack", V, {{"stk", S}}, false), fn("print_ustack", V, {{"stk", S}}, false),
      fn("sprint_stack", S, {{"stk", S}}, true), fn("sprint_ustack", S, {{"stk", S}}, true),
      // stap's print_stack & co are these under other names (context-symbols.stp).
      alias(fn("print_syms", V, {{"callers", S}}, false), "print_stack"),
      alias(fn("print_usyms", V, {{"callers", S}}, false), "print_ustack"),
      alias(fn("sprint_syms", S, {{"callers", S}}, true), "sprint_stack"),
      alias(fn("sprint_usyms", S, {{"callers", S}}, true), "sprint_ustack"),
      fn("callers", S, {{"n", L}}, true, K), fn("ucallers", S, {{"n", L}}, true, K),
      fn("stack", L, {{"n", L}}, true, K), fn("ustack", L, {{"n", L}}, true, K),
      fn("user_mode", L, {}, true),
  };
}

// ---------------------------------------------------------------- formats

bool format_hook(const Builtin& b, const ast::CallExpr& call, std::vector<Type>& types,
                 Diagnostics* diags) {
  types.clear();
  if (call.args.empty()) return false;
  types.push_back(S);
  auto* lit = dynamic_cast<const ast::StringLit*>(call.args[0]);
  if (!lit) return true;  // the parser insists on a literal and said so
  std::vector<PrintfPiece> pieces;
  std::string error;
  if (!parse_printf_format(lit->value, pieces, error)) {
    if (diags) diags->semantic_error(lit->loc, error);
    return false;
  }
  std::vector<Type> wanted = format_arg_types(pieces);
  if (wanted.size() != call.args.size() - 1) {
    if (diags) diags->semantic_error(call.loc, "Wrong number of args to formatted print operator",
                         "identifier '" + call.name + "'");
    return false;
  }
  types.insert(types.end(), wanted.begin(), wanted.end());
  return true;
}

}  // namespace

std::vector<Type> format_arg_types(const std::vector<PrintfPiece>& pieces) {
  std::vector<Type> types;
  for (const PrintfPiece& p : pieces) {
    if (p.kind != PrintfPiece::Kind::conversion) continue;
    if (p.width == PrintfPiece::kFromArg) types.push_back(L);
    if (p.precision == PrintfPiece::kFromArg) types.push_back(L);
    types.push_back(p.takes_string() ? S : L);
  }
  return types;
}

// ---------------------------------------------------------------- table

const std::vector<Builtin>& all_builtins() {
  static const std::vector<Builtin> table = make_table();
  return table;
}

size_t Builtin::min_args() const {
  switch (shape) {
    case ArgShape::fixed: return params.size();
    case ArgShape::values: return std::string_view(name).ends_with("ln") ? 0 : 1;
    case ArgShape::delimited: return 2;
    case ArgShape::format: return 1;
  }
  return params.size();
}

const Builtin* find_builtin(std::string_view name, size_t arity) {
  for (const Builtin& b : all_builtins()) {
    if (name != b.name) continue;
    if (b.variadic() ? arity >= b.min_args() : arity == b.params.size()) return &b;
  }
  return nullptr;
}

bool is_builtin_name(std::string_view name) {
  for (const Builtin& b : all_builtins())
    if (name == b.name) return true;
  return false;
}

std::string Builtin::signature() const {
  std::string s = std::string(name) + ":" + ast::type_name(return_type) + " (";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) s += ", ";
    s += std::string(params[i].name) + ":" + ast::type_name(params[i].type);
  }
  return s + ")";
}

bool builtin_arg_types(const Builtin& b, const ast::CallExpr& call, std::vector<Type>& types,
                       Diagnostics* diags) {
  if (b.arg_types) return b.arg_types(b, call, types, diags);
  types.assign(call.args.size(), Type::unknown);
  switch (b.shape) {
    case ArgShape::fixed:
      for (size_t i = 0; i < b.params.size() && i < types.size(); ++i) types[i] = b.params[i].type;
      break;
    case ArgShape::delimited:
      if (!types.empty()) types[0] = S;
      break;
    case ArgShape::values:
    case ArgShape::format:
      break;
  }
  return true;
}

}  // namespace stap
