// The syscall tapset, generated from the running kernel's own syscall
// metadata instead of one hand-written file per call.
//
// tracefs describes every system call twice: events/syscalls/
// sys_enter_NAME/format lists its arguments in order with their C types
// (the fields after __syscall_nr), and sys_exit_NAME carries `long ret`.
// From those this file writes stap text, one alias pair per call:
//
//   probe syscall.read = kernel.trace("syscalls:sys_enter_read")
//   { name = "read"; fd = __int32($fd); buf_uaddr = $buf; count = $count
//     argstr = sprintf("%d, %p, %u", fd, buf_uaddr, count) }
//   probe syscall.read.return = kernel.trace("syscalls:sys_exit_read")
//   { name = "read"; retval = $ret; retstr = return_str(1, $ret) }
//   probe nd_syscall.read = syscall.read {}   (and .return)
//
// What stap names each argument and how argstr shows it comes from a
// small hand-written table (tapsets/syscalls/syscalls.table, format in
// tapsets/README.md); a call without an entry gets defaults from the C
// types.  The decoders the table names (_dfd_str, _sys_open_flag_str ...)
// are ordinary tapset functions in tapsets/syscalls/*.stp.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/tracefs.h"

namespace stap {

// How one argument shows: its stap variable and its kind (see
// tapsets/README.md): "d" "i" "u" "x" "o" "p" "s" "-" "dfd", or "fn=EXPR"
// where EXPR calls a decoder with '@' standing for the variable.
struct SyscallArgSpec {
  std::string var;
  std::string kind;
  std::string string_var;  // the decoded string's variable when not VAR_str
};

struct SyscallEntry {
  std::string name;
  std::vector<SyscallArgSpec> args;  // in the kernel's argument order
  int ret_format = 1;                // return_str's format: 1 dec, 2 hex, 3 octal
  std::string stap_name;             // `name` when stap's differs ("fstatat")
  std::string argstr;                // a stap expression overriding the default
};

class SyscallTable {
 public:
  // Parses the table text; false with `error` ("line N: ...") on a bad line.
  bool parse(std::string_view text, std::string& error);
  const SyscallEntry* find(const std::string& name) const;
  // The kernel's names of the calls stap calls `stap_name` (pread ->
  // pread64, stat -> newstat), from the entries' name=.
  std::vector<std::string> kernel_names(const std::string& stap_name) const;
  size_t size() const { return entries_.size(); }

 private:
  std::map<std::string, SyscallEntry> entries_;
};

// One call as tracefs describes it: its arguments in order.
struct SyscallFormat {
  std::string name;
  std::vector<tracefs::Field> args;
};

// The arguments of a sys_enter format: the fields after __syscall_nr.
std::vector<tracefs::Field> syscall_arguments(const tracefs::Format& enter);

// The stap text of the aliases for `calls`.
std::string generate_syscall_aliases(const std::vector<SyscallFormat>& calls,
                                     const SyscallTable& table);

// syscall.STAP (and .return, and the nd_ ones) as an alias of the
// generated syscall.KERNEL: stap's name of a call whose kernel name
// differs (syscall.pread for pread64).
std::string generate_stap_name_aliases(const std::string& stap_name, const std::string& kernel_name);

// The names of every call with a sys_enter_NAME event under tracefs `root`
// whose name matches the glob, sorted.
std::vector<std::string> list_syscalls(const std::string& root, const std::string& glob);

// Reads the sys_enter format of each call; a call whose format cannot be
// read is skipped.
std::vector<SyscallFormat> read_syscall_formats(const std::string& root,
                                                const std::vector<std::string>& names);

}  // namespace stap
