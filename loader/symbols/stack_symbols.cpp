#include "loader/symbols/stack_symbols.h"

#include <bpf/bpf.h>

#include <cinttypes>
#include <cstring>
#include <sstream>

#include "bpf_runtime/stap_layout.h"

namespace stap {

namespace {

// "%#x" as stap's runtime prints addresses (%p is %#x since stap 1.3).
std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%#" PRIx64, v);
  return v == 0 ? "0x0" : buf;
}

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

StackSymbols* session_symbols = nullptr;

}  // namespace

StackSymbols& stack_symbols() {
  if (session_symbols) return *session_symbols;
  static StackSymbols fallback(128);
  return fallback;
}

void set_session_stack_symbols(StackSymbols* s) {
  session_symbols = s;
  ir::set_stack_codec(s);
}

void StackSymbols::set_maps(int stacks_fd, uint32_t value_size, int lost_fd) {
  stacks_fd_ = stacks_fd;
  lost_fd_ = lost_fd;
  if (value_size >= 8) depth_ = value_size / 8;
}

uint64_t StackSymbols::lost_captures() const {
  if (lost_fd_ < 0) return 0;
  uint32_t key = 0;
  uint64_t value = 0;
  bpf_map_lookup_elem(lost_fd_, &key, &value);
  return value;
}

kernel::KernelSymbols& StackSymbols::kernel() {
  if (!kernel_) kernel_ = std::make_unique<kernel::KernelSymbols>();
  if (!kernel_tried_) {
    kernel_tried_ = true;
    std::string why;
    kernel_->load(why);
  }
  return *kernel_;
}

std::vector<uint64_t> StackSymbols::frames(int64_t code) {
  if (!ir::is_stack_code(code) || stacks_fd_ < 0) return {};
  uint32_t id = ir::split_stack_code(code).id;
  auto it = frames_.find(id);
  if (it != frames_.end()) return it->second;
  std::vector<uint64_t> ips(depth_, 0);
  std::vector<uint64_t> out;
  if (bpf_map_lookup_elem(stacks_fd_, &id, ips.data()) == 0)
    for (uint64_t ip : ips) {
      if (ip == 0) break;
      out.push_back(ip);
    }
  if (!ir::split_stack_code(code).user) out = drop_bpf_frames(std::move(out));
  frames_[id] = out;
  return out;
}

// The kernel functions between a traced event and our BPF program, by
// name prefix.  A stack captured in the program starts in them (and in
// the program itself, a [bpf] symbol); stap's handlers run in the traced
// context and show none of this, so leading frames named here are dropped.
//   perf tracepoints: perf_trace_<event> -> perf_trace_run_bpf_submit ->
//                     trace_call_bpf -> bpf_prog_*
//   raw tracepoints:  __traceiter_<event> -> __bpf_trace_<event> ->
//                     bpf_trace_run<N> -> bpf_prog_*
//   kprobes/uprobes:  kprobe_perf_func, kprobe_dispatcher, uprobe_*...
//   perf events:      bpf_overflow_handler, __perf_event_overflow
//   fentry/fexit:     the trampoline ([bpf]) and its enter/exit helpers
bool StackSymbols::bpf_dispatch_frame(const std::string& name) {
  static const char* const prefixes[] = {
      "bpf_prog_",          "bpf_trampoline_",       "__bpf_prog_enter",
      "__bpf_prog_exit",    "bpf_dispatcher_",       "trace_call_bpf",
      "perf_trace_run_bpf_submit", "perf_trace_",    "perf_tp_event",
      "__traceiter_",       "__bpf_trace_",          "bpf_trace_run",
      "__bpf_trace_run",    "bpf_get_stackid",       "bpf_get_stack",
      "__bpf_get_stackid",  "bpf_overflow_handler",  "__perf_event_overflow",
      "perf_event_overflow", "kprobe_perf_func",     "kretprobe_perf_func",
      "kprobe_dispatcher",  "kretprobe_dispatcher",  "__uprobe_perf_func",
      "uprobe_perf_func",   "uprobe_dispatcher",     "uretprobe_dispatcher",
      "__probestub_",
  };
  for (const char* p : prefixes)
    if (name.compare(0, std::strlen(p), p) == 0) return true;
  return false;
}

std::vector<uint64_t> StackSymbols::drop_bpf_frames(std::vector<uint64_t> frames) {
  size_t first = 0;
  while (first < frames.size()) {
    NamedAddress n = name(frames[first], false, 0);
    if (n.module != "bpf" && !bpf_dispatch_frame(n.name)) break;
    ++first;
  }
  // All of it ours: keep it rather than print an empty stack.
  if (first == frames.size()) return frames;
  frames.erase(frames.begin(), frames.begin() + first);
  return frames;
}

std::string StackSymbols::cut(std::string s) const {
  if (maxstringlen_ > 0 && s.size() > maxstringlen_ - 1) s.resize(maxstringlen_ - 1);
  return s;
}

NamedAddress StackSymbols::name(uint64_t address, bool user, uint32_t tgid, bool frame) {
  NamedAddress out;
  if (user) {
    if (std::optional<UserSymbol> s = user_.lookup(tgid, address)) {
      out.name = s->name;
      out.offset = s->offset;
      out.size = s->size;
      out.module = s->module;
    }
    return out;
  }
  uint64_t offset = 0;
  // Kernel addresses only: kallsyms also lists the per-CPU variables at
  // their offsets from 0, which no address a script holds means (the
  // kernel's own %ps names none of them either: bpf_runtime/ksym_text.c).
  constexpr uint64_t kKernelSpace = 0xffff800000000000ull;
  std::optional<kernel::Symbol> s;
  if (address >= kKernelSpace) s = kernel().lookup(address, &offset);
  // Only code names a frame.  A data symbol "holds" any address up to the
  // next symbol: the per-CPU ones sit near 0, so a cut or stray address
  // (an idle CPU's deep stack cut at MAXSTRINGLEN, "0xffffffff810") read
  // as __per_cpu_end+0xffffffca810/0xffffffff80fcb000 (the 6.1 guest).
  if (s && (!frame || s->is_code())) {
    out.name = s->name;
    out.offset = offset;
    out.size = s->size;
    out.module = s->module.empty() ? "kernel" : s->module;
  }
  return out;
}

std::string StackSymbols::symname(uint64_t address, bool user, uint32_t tgid, bool frame) {
  NamedAddress n = name(address, user, tgid, frame);
  return n.name.empty() ? hex(address) : n.name;
}

// _STP_SYM_DATA: "name+0x17/0x1a0 [module]", the module alone as
// "0x... [module+0x17/0x1a0]" when no symbol holds the address.
std::string StackSymbols::symdata(uint64_t address, bool user, uint32_t tgid, bool frame) {
  NamedAddress n = name(address, user, tgid, frame);
  if (!n.name.empty())
    return n.name + "+" + hex(n.offset) + "/" + hex(n.size) + " [" + n.module + "]";
  return hex(address);
}

std::string StackSymbols::full_lines(const std::vector<uint64_t>& frames, bool user,
                                     uint32_t tgid) {
  std::string out;
  for (uint64_t a : frames) {
    NamedAddress n = name(a, user, tgid);
    out += " " + hex(a);
    if (!n.name.empty())
      out += " : " + n.name + "+" + hex(n.offset) + "/" + hex(n.size) + " [" + n.module + "]";
    out += "\n";
  }
  return out;
}

std::string StackSymbols::whole_lines(const std::string& all, size_t maxstringlen) {
  std::string out;
  for (size_t at = 0; at < all.size();) {
    size_t end = all.find('\n', at);
    end = end == std::string::npos ? all.size() : end + 1;
    if (out.size() + (end - at) > maxstringlen) break;
    out += all.substr(at, end - at);
    at = end;
  }
  if (maxstringlen > 0 && out.size() > maxstringlen - 1) out.resize(maxstringlen - 1);
  return out;
}

std::string StackSymbols::stack_lines(const std::string& addresses, bool user, uint32_t tgid) {
  if (user && tgid == 0) tgid = process_of(addresses);
  std::vector<std::string> words;
  std::vector<uint64_t> frames;
  std::istringstream in(addresses);
  for (std::string word; in >> word;) {
    const char* p = word.c_str();
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
    words.push_back(word);
    frames.push_back(std::strtoull(p, nullptr, 16));
  }
  // A kernel text made in kernel context (backtrace() as a string) starts
  // in our program and its callers: print it as the code would print.
  size_t first = user ? 0 : frames.size() - drop_bpf_frames(frames).size();
  std::string out;
  for (size_t i = first; i < words.size(); ++i)
    out += " " + words[i] + " : " + symdata(frames[i], user, tgid, true) + "\n";
  return out;
}

std::string StackSymbols::stack_lines(const std::string& addresses, int64_t code, bool user,
                                      uint32_t tgid) {
  if (ir::is_stack_code(code)) {
    ir::StackCode c = ir::split_stack_code(code);
    if (c.form == ir::kStackAddresses && c.user == user) return full_lines(frames(code), user, c.tgid);
  }
  return stack_lines(addresses, user, tgid);
}

std::string StackSymbols::identity(int64_t code) {
  if (!ir::is_stack_code(code)) return std::to_string(code);
  ir::StackCode c = ir::split_stack_code(code);
  if (c.form == ir::kStackSymbol || c.form == ir::kStackSymbols) return "name:" + text(code);
  std::string id = c.user ? "user " + std::to_string(c.tgid) : "kernel";
  id += " form " + std::to_string(c.form) + ":";
  std::vector<uint64_t> all = frames(code);
  // callers(n): the n+1 frames it shows.
  size_t count = c.form == ir::kStackAddresses ? all.size() : std::min(all.size(), size_t(c.form));
  for (size_t i = 0; i < count; ++i) id += " " + hex(all[i]);
  return id;
}

std::string StackSymbols::text(int64_t code) {
  if (!ir::is_stack_code(code)) return {};
  ir::StackCode c = ir::split_stack_code(code);
  std::vector<uint64_t> ips = frames(code);
  std::string out;
  if (c.form == ir::kStackSymbol) {
    out = ips.empty() ? std::string() : cut(symname(ips[0], c.user, c.tgid, true));
  } else if (c.form == ir::kStackSymbols) {
    // _STP_SYM_SIMPLE, module by base name.
    for (uint64_t a : ips) {
      NamedAddress n = name(a, c.user, c.tgid);
      out += n.name.empty() ? hex(a)
                            : n.name + "+" + hex(n.offset) + " [" + base_name(n.module) + "]";
      out += "\n";
    }
    out = cut(out);
  } else if (c.form == ir::kStackAddresses) {
    for (uint64_t a : ips) out += hex(a) + " ";
    out = cut(out);
  } else {  // callers(n): n+1 addresses, whole ones only
    for (size_t i = 0; i < ips.size() && i < size_t(c.form); ++i) {
      std::string word = (i ? " " : "") + hex(ips[i]);
      if (out.size() + word.size() > maxstringlen_) break;
      out += word;
    }
  }
  // Two stacks can read the same (cut texts, one function's name): such a
  // text is no stack's, a lookup by it finds nothing.
  auto [known, fresh] = codes_.emplace(out, code);
  if (!fresh && known->second != code) known->second = ir::kNoCode;
  if (c.user) processes_.emplace(out, c.tgid);
  return out;
}

std::optional<int64_t> StackSymbols::code(const std::string& text) {
  auto it = codes_.find(text);
  if (it == codes_.end()) return std::nullopt;
  return it->second;
}

uint32_t StackSymbols::process_of(const std::string& text) const {
  auto it = processes_.find(text);
  return it == processes_.end() ? 0 : it->second;
}

std::string StackSymbols::record_text(uint32_t flags, const char* payload, size_t size) {
  bool user = flags & STAP_STACK_USER;
  int64_t first = 0;
  if (size < 8) return {};
  std::memcpy(&first, payload, 8);
  if (flags & STAP_STACK_PROCESS) {  // a user stack new to it: keep its mappings
    uint32_t tgid = uint32_t(first);
    int64_t id = STAP_STACK_NO_ID;
    if (size >= 16) std::memcpy(&id, payload + 8, 8);
    if (id == STAP_STACK_NO_ID) {
      user_.capture(tgid);
    } else {
      ir::StackCode c{true, ir::kStackAddresses, tgid, uint32_t(id)};
      user_.capture(tgid, !user_.covers(tgid, frames(ir::make_stack_code(c))));
    }
    return {};
  }
  if (flags & STAP_STACK_TEXT) {
    std::string s(payload + 8, strnlen(payload + 8, size - 8));
    return stack_lines(s, user, uint32_t(first));
  }
  if (!ir::is_stack_code(first)) return {};
  ir::StackCode c = ir::split_stack_code(first);
  if (user) user_.capture(c.tgid);
  return full_lines(frames(first), c.user, c.tgid);
}

std::vector<std::string> StackSymbols::folded(int64_t code) {
  std::vector<std::string> out;
  if (!ir::is_stack_code(code)) return out;
  ir::StackCode c = ir::split_stack_code(code);
  std::vector<uint64_t> ips = frames(code);
  for (auto it = ips.rbegin(); it != ips.rend(); ++it) {
    NamedAddress n = name(*it, c.user, c.tgid);
    out.push_back(n.name.empty() ? hex(*it) : n.name);
  }
  return out;
}

}  // namespace stap
