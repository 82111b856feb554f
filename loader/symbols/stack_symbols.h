// Stacks and symbols on the runtime's side: what kernel context captured
// (stack codes, compiler/ir/key_codes.h, over the object's stack map)
// turned into the text stap prints, in stap 4.8's formats
// (runtime/sym.c _stp_snprint_addr, runtime/stack.c, the context-symbols
// tapsets):
//   backtrace()          "0xffffffff81234567 0xffffffff81234600 " (each
//                        address "%#x" then a space), cut at MAXSTRINGLEN
//   callers(n)           the first n+1 addresses, space-separated, whole
//   print_backtrace()    " 0xffffffff81234567 : vfs_read+0x17/0x1a0 [kernel]\n"
//                        per frame; " 0x...\n" when nothing names it
//   sprint_backtrace()   "vfs_read+0x17 [kernel]\n" per frame (module's
//                        base name), cut at MAXSTRINGLEN
//   symname / symdata    "vfs_read" / "vfs_read+0x17/0x1a0 [kernel]", else "0x..."
//   print_stack(s)       " ADDR : SYMDATA\n" per address of s
// User frames name their binary by its path ([/usr/bin/foo]).  Kernel
// symbols come from /proc/kallsyms (modules and BPF programs included);
// user symbols from the process's mappings, captured when its first stack
// arrives so that the end probe still names an exited process's frames
// (user_symbols.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/key_codes.h"
#include "kernel/kernel_symbols.h"
#include "loader/symbols/user_symbols.h"

namespace stap {

struct NamedAddress {
  std::string name;    // empty when unknown
  uint64_t offset = 0, size = 0;
  std::string module;  // "kernel", a module, "bpf", or a binary's path
};

class StackSymbols : public ir::StackCodec {
 public:
  explicit StackSymbols(size_t maxstringlen) : maxstringlen_(maxstringlen) {}

  // The loaded object's maps (STAP_STACKS_MAP: frames by stack id,
  // STAP_STACKS_LOST_MAP: [0] the lost captures); -1 when the object has
  // none.  MAXBACKTRACE is the stack map's value size / 8.
  void set_maps(int stacks_fd, uint32_t value_size, int lost_fd);
  uint64_t lost_captures() const;

  // ir::StackCodec
  std::string text(int64_t code) override;
  std::optional<int64_t> code(const std::string& text) override;
  // Names (probefunc(), symname(), sprint_backtrace() ...): their text.
  // Stacks: the process (user) and the frames, past our own for a kernel
  // stack, uncut.
  std::string identity(int64_t code) override;

  // A code's frames, innermost first (empty for -1 or a vanished id);
  // a kernel stack without the leading frames of our own BPF plumbing.
  std::vector<uint64_t> frames(int64_t code);
  // Kernel frames without the leading ones that are BPF programs ([bpf])
  // or the functions that dispatch to them (bpf_dispatch_frame): stap's
  // stacks start in the traced code, ours would start in our program.
  std::vector<uint64_t> drop_bpf_frames(std::vector<uint64_t> frames);
  static bool bpf_dispatch_frame(const std::string& name);
  // The process a text decoded from a user stack code belongs to (0: unknown).
  uint32_t process_of(const std::string& text) const;

  // What names `address`: for a stack frame (`frame`) only code does;
  // symname()/symdata() of an address a script gives take data too.
  NamedAddress name(uint64_t address, bool user, uint32_t tgid, bool frame = true);
  std::string symname(uint64_t address, bool user, uint32_t tgid, bool frame = false);
  std::string symdata(uint64_t address, bool user, uint32_t tgid, bool frame = false);
  // print_backtrace()'s lines for these frames.
  std::string full_lines(const std::vector<uint64_t>& frames, bool user, uint32_t tgid);
  // print_stack(s) / print_ustack(s): a line per address of the string.
  std::string stack_lines(const std::string& addresses, bool user, uint32_t tgid);
  // sprint_stack/sprint_ustack's text: the lines of `all` while they fit
  // in maxstringlen bytes, as stap's sprint_syms builds it.
  static std::string whole_lines(const std::string& all, size_t maxstringlen);
  // print_stack(s) of a key read out of a stack-coded column: the lines of
  // its whole stack when `code` is a backtrace()/ubacktrace() code of
  // that side (the text, cut at MAXSTRINGLEN, can end in part of an
  // address); else the lines of `addresses`.
  std::string stack_lines(const std::string& addresses, int64_t code, bool user, uint32_t tgid);
  // The text of a STAP_REC_STACK record's payload.
  std::string record_text(uint32_t flags, const char* payload, size_t size);
  // Frame names root first, for folded stacks ("main;work;burn").
  std::vector<std::string> folded(int64_t code);

  UserSymbols& user() { return user_; }
  kernel::KernelSymbols& kernel();

 private:
  std::string cut(std::string s) const;

  size_t maxstringlen_;
  int stacks_fd_ = -1, lost_fd_ = -1;
  uint32_t depth_ = 20;
  std::map<uint32_t, std::vector<uint64_t>> frames_;  // by stack id
  std::map<std::string, int64_t> codes_;               // text -> the code it came from
  std::map<std::string, uint32_t> processes_;          // user text -> tgid
  std::unique_ptr<kernel::KernelSymbols> kernel_;
  bool kernel_tried_ = false;
  UserSymbols user_;
};

// The running session's (stack codes decode through it), else a
// process-wide one without maps, for user-context symbol functions.
StackSymbols& stack_symbols();
void set_session_stack_symbols(StackSymbols* s);

}  // namespace stap
