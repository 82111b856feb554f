#include "ir/kernel_builtins.h"

#include <algorithm>

namespace stap::ir {

const std::vector<std::string_view>& kernel_builtins() {
  static const std::vector<std::string_view> names = {
      // context
      "pid", "tid", "ppid", "uid", "gid", "euid", "egid", "cpu", "target", "pp", "pn",
      "ppfunc", "execname", "pexecname",
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
      // control
      "exit", "error", "assert",
  };
  return names;
}

bool kernel_supports_builtin(std::string_view name) {
  const auto& names = kernel_builtins();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace stap::ir
