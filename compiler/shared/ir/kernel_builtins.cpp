#include "ir/kernel_builtins.h"

#include <algorithm>

namespace stap::ir {

const std::vector<std::string_view>& kernel_builtins() {
  static const std::vector<std::string_view> names = {
      // context
      "pid", "tid", "ppid", "uid", "gid", "euid", "egid", "cpu", "target", "pp", "pn",
      "ppfunc", "execname", "pexecname", "task_current", "is_return", "addr", "user_mode",
      // clocks
      "gettimeofday_s", "gettimeofday_ms", "gettimeofday_us", "gettimeofday_ns", "jiffies",
      "local_clock_ns", "local_clock_us", "local_clock_ms", "local_clock_s", "cpu_clock_ns",
      "cpu_clock_us", "cpu_clock_ms", "cpu_clock_s",
      // text and numbers
      "strlen", "substr", "stringat", "isdigit", "randint", "MAJOR", "MINOR", "MKDEV",
      // memory
      "user_string", "user_string_n", "kernel_string", "kernel_string_n", "kernel_long",
      "kernel_int", "kernel_short", "kernel_char", "kernel_pointer", "user_long", "user_int",
      "user_short", "user_char",
      "kernel_string2", "user_string2", "user_string_n2", "user_string_warn", "user_string2_warn",
      "user_string_n_warn", "user_string2_n_warn", "user_ushort", "user_ulong", "user_int8",
      "user_uint8", "user_int16", "user_uint16", "user_int32", "user_uint32", "user_int64",
      "user_uint64", "user_char_warn", "user_short_warn", "user_ushort_warn", "user_int_warn",
      "user_long_warn", "user_ulong_warn", "user_char_error", "user_short_error",
      "user_ushort_error", "user_int_error", "user_long_error", "user_ulong_error",
      "user_int8_error", "user_uint8_error", "user_int16_error", "user_uint16_error",
      "user_int32_error", "user_uint32_error", "user_int64_error", "user_uint64_error",
      "kernel_string_utf16", "kernel_string_utf32", "user_string_utf16", "user_string_utf32",
      // quoting (emit_quote.cpp)
      "text_str", "text_strn", "string_quoted", "user_string_quoted", "kernel_string_quoted",
      "user_string_n_quoted", "user_string_n2_quoted", "user_buffer_quoted",
      "user_buffer_quoted_error", "kernel_buffer_quoted", "kernel_buffer_quoted_error",
      // tables and the rest of the library (emit_library.cpp)
      "errno_str", "syscall_name", "usrdev2kerndev", "stp_pid", "get_cycles", "probefunc",
      "strpos", "isinstr", "str_replace", "strtol", "tokenize", "ctime", "tz_gmtoff", "tz_name",
      // stacks (emit_stack.cpp): printed by the runtime from a record
      "print_stack", "print_ustack",
      // kernel symbols (emit_stack_text.cpp: the kernel's kallsyms names them)
      "symname", "symdata", "modname", "sprint_stack",
      // printed by the runtime from a printf argument (emit_builtins.cpp)
      "sprint_ustack",
      // control
      "exit", "error", "assert", "warn", "log", "abort", "system", "ftrace",
  };
  return names;
}

bool kernel_supports_builtin(std::string_view name) {
  const auto& names = kernel_builtins();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool builtin_has_effect(std::string_view name) {
  static const std::vector<std::string_view> effects = {
      "print_stack", "print_ustack", "exit", "error", "assert", "warn", "log", "abort",
      "system", "ftrace",
      "tokenize",  // keeps its place in the string between calls
  };
  if (!kernel_supports_builtin(name) || name.ends_with("_warn")) return true;
  return std::find(effects.begin(), effects.end(), name) != effects.end();
}

}  // namespace stap::ir
