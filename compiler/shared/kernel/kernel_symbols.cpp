// KernelSymbols: /proc/kallsyms parsed in one pass over one read() buffer;
// the probe-able function lists (tracefs, the kprobe blacklist) are read
// only when match_functions first needs them.
#include "kernel/kernel_symbols.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <regex.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace stap::kernel {

namespace {

bool read_file(const std::string& path, std::string& out, int& err) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    err = errno;
    return false;
  }
  out.clear();
  // /proc and tracefs files report size 0: read until EOF in big chunks.
  size_t used = 0;
  for (;;) {
    if (out.size() - used < (1 << 20)) out.resize(used + (4 << 20));
    ssize_t n = read(fd, out.data() + used, out.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    used += size_t(n);
  }
  close(fd);
  out.resize(used);
  return err == 0;
}

bool is_text(char type) { return type == 't' || type == 'T' || type == 'w' || type == 'W'; }

// "foo.isra.0", "foo.cold", "foo.constprop.0", "foo.part.0": copies gcc
// made of a function, which stap (reading DWARF) never lists by name.
bool is_clone(std::string_view name) { return name.find('.') != std::string_view::npos; }

// "name" or "name [module]" (tracefs); "name\t[module]" (kallsyms).
void split_module(std::string_view line, std::string_view& name, std::string_view& module) {
  module = {};
  size_t sep = line.find_first_of(" \t");
  name = line.substr(0, sep);
  if (sep == std::string_view::npos) return;
  size_t open = line.find('[', sep);
  size_t close = line.find(']', open);
  if (open != std::string_view::npos && close != std::string_view::npos)
    module = line.substr(open + 1, close - open - 1);
}

bool module_matches(std::string_view have, const std::string& want) {
  if (want == "*") return true;
  if (want.empty() || want == "kernel") return have.empty();
  return have == want;
}

}  // namespace

bool KernelSymbols::load(std::string& why, const std::string& path) {
  std::string text;
  int err = 0;
  if (!read_file(path, text, err)) {
    why = "cannot read " + path + ": " + std::strerror(err);
    return false;
  }
  by_address_.clear();
  by_name_.clear();
  by_address_.reserve(text.size() / 40);
  std::string_view rest(text);
  while (!rest.empty()) {
    size_t eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    // "ffffffff81000000 T _stext" or "ffffffffc0201000 t name\t[module]"
    if (line.size() < 20 || line[16] != ' ' || line[18] != ' ') continue;
    Symbol s;
    for (char c : line.substr(0, 16)) {
      int v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
      s.address = s.address << 4 | uint64_t(v);
    }
    s.type = line[17];
    std::string_view name, module;
    split_module(line.substr(19), name, module);
    s.name = name;
    s.module = module;
    by_address_.push_back(std::move(s));
  }
  if (by_address_.empty()) {
    why = path + " lists no symbols";
    return false;
  }
  // kallsyms is usually sorted already.  Stable: of the symbols at one
  // address, kallsyms' first stays first.
  auto by_addr = [](const Symbol& a, const Symbol& b) { return a.address < b.address; };
  if (!std::is_sorted(by_address_.begin(), by_address_.end(), by_addr))
    std::stable_sort(by_address_.begin(), by_address_.end(), by_addr);
  set_sizes();
  return true;
}

void KernelSymbols::set_sizes() {
  // A symbol ends where the next one of its module starts.
  // Per module, walking down: the lowest start seen and the one above it.
  struct Starts {
    uint64_t current = UINT64_MAX, above = 0;
  };
  std::unordered_map<std::string_view, Starts> starts;
  Starts* last = nullptr;  // neighbours are mostly of one module
  std::string_view last_module;
  for (size_t i = by_address_.size(); i-- > 0;) {
    Symbol& s = by_address_[i];
    if (!last || s.module != last_module) {
      last = &starts[s.module];
      last_module = s.module;
    }
    Starts& st = *last;
    if (s.address < st.current) {
      st.above = st.current == UINT64_MAX ? 0 : st.current;
      st.current = s.address;
    }
    s.size = st.above > s.address ? st.above - s.address : 0;
  }
}

// By name only when first asked: stacks and probe resolution need only
// lookup() and match_functions().
void KernelSymbols::index_names() const {
  if (by_name_.size() == by_address_.size()) return;
  by_name_.resize(by_address_.size());
  for (size_t i = 0; i < by_name_.size(); ++i) by_name_[i] = i;
  std::sort(by_name_.begin(), by_name_.end(), [this](size_t a, size_t b) {
    const Symbol& x = by_address_[a];
    const Symbol& y = by_address_[b];
    if (int c = x.name.compare(y.name)) return c < 0;
    if (int c = x.module.compare(y.module)) return c < 0;
    return a < b;
  });
}

std::optional<Symbol> KernelSymbols::function(const std::string& name,
                                              const std::string& module) const {
  index_names();
  auto first = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                                [this](size_t i, const std::string& n) {
                                  return by_address_[i].name < n;
                                });
  // Sorted by module within a name, so vmlinux ("") comes first.
  for (auto it = first; it != by_name_.end() && by_address_[*it].name == name; ++it) {
    const Symbol& s = by_address_[*it];
    if (!is_text(s.type)) continue;
    if (module.empty() || module_matches(s.module, module)) return s;
  }
  return std::nullopt;
}

std::optional<Symbol> KernelSymbols::symbol(const std::string& name) const {
  index_names();
  auto first = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                                [this](size_t i, const std::string& n) {
                                  return by_address_[i].name < n;
                                });
  if (first == by_name_.end() || by_address_[*first].name != name) return std::nullopt;
  return by_address_[*first];
}

std::optional<Symbol> KernelSymbols::lookup(uint64_t address, uint64_t* offset) const {
  auto it = std::upper_bound(by_address_.begin(), by_address_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == by_address_.begin()) return std::nullopt;
  --it;
  if (it->address == 0) return std::nullopt;  // kptr_restrict hid the addresses
  // Of several symbols at this address, a function names it best.
  auto best = it;
  for (auto j = it; j->address == it->address; --j) {
    if (is_text(j->type)) best = j;
    if (j == by_address_.begin()) break;
  }
  uint64_t off = address - best->address;
  if (best->size != 0 && off >= best->size) return std::nullopt;
  if (offset) *offset = off;
  return *best;
}

void KernelSymbols::read_traceable() const {
  if (traceable_read_) return;
  traceable_read_ = true;
  std::string text;
  int err = 0;
  auto lines = [](const std::string& t, auto&& each) {
    std::string_view rest(t);
    while (!rest.empty()) {
      size_t eol = rest.find('\n');
      std::string_view line = rest.substr(0, eol);
      rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
      if (!line.empty()) each(line);
    }
  };
  // Unreadable (no ftrace, or lockdown): every text symbol is a candidate.
  for (const char* path : {"/sys/kernel/tracing/available_filter_functions",
                           "/sys/kernel/debug/tracing/available_filter_functions"}) {
    if (!read_file(path, text, err)) continue;
    lines(text, [&](std::string_view line) {
      // Newer kernels may append " ADDRESS" or flags after the name; keep
      // "name" or "name [module]".
      std::string_view name, module;
      split_module(line, name, module);
      std::string entry(name);
      if (!module.empty()) entry += " [" + std::string(module) + "]";
      traceable_.push_back(std::move(entry));
    });
    break;
  }
  // "0xffffffff81c00990-0xffffffff81c009b0\tasm_exc_divide_error" (the
  // name may carry " [module]").
  if (read_file("/sys/kernel/debug/kprobes/blacklist", text, err)) {
    lines(text, [&](std::string_view line) {
      size_t tab = line.find('\t');
      if (tab == std::string_view::npos) return;
      std::string_view name, module;
      split_module(line.substr(tab + 1), name, module);
      blacklist_.emplace_back(name);
    });
  }
  std::sort(traceable_.begin(), traceable_.end());
  traceable_.erase(std::unique(traceable_.begin(), traceable_.end()), traceable_.end());
  std::sort(blacklist_.begin(), blacklist_.end());
}

std::vector<std::string> KernelSymbols::match_functions(const std::string& glob,
                                                        const std::string& module) const {
  read_traceable();
  std::vector<std::string> out;
  auto consider = [&](std::string_view name, std::string_view mod) {
    if (!module_matches(mod, module) || is_clone(name)) return;
    std::string n(name);
    if (fnmatch(glob.c_str(), n.c_str(), 0) != 0) return;
    if (std::binary_search(blacklist_.begin(), blacklist_.end(), n)) return;
    if (blocklisted(n)) return;
    out.push_back(std::move(n));
  };
  if (!traceable_.empty()) {
    for (const std::string& line : traceable_) {
      std::string_view name, mod;
      split_module(line, name, mod);
      consider(name, mod);
    }
  } else {
    // Without tracefs's list, leave out vmlinux's .init.text as stap does:
    // that code was freed after boot.
    auto start = symbol("_sinittext"), end = symbol("_einittext");
    auto in_init = [&](const Symbol& s) {
      return start && end && s.module.empty() && s.address >= start->address &&
             s.address < end->address;
    };
    for (const Symbol& s : by_address_)
      if (is_text(s.type) && !in_init(s)) consider(s.name, s.module);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// SystemTap's own kernel function blocklist (dwflpp.cxx,
// build_kernel_blocklist), by name only: its section (.init.*, .exit.*)
// and file (kernel/kprobes.c, asm/io.h, paravirt) rules need DWARF, and
// what they protect is on the kernel's kprobe blacklist or not in
// available_filter_functions anyway.  Kept for stap's listings: stap -l
// never shows these, and a probe on one does not resolve.
bool KernelSymbols::blocklisted(const std::string& name, bool is_return) {
  struct Blocklist {
    regex_t any{}, ret{};
    Blocklist() {
      const char* fn =
          "^(atomic_notifier_call_chain|default_do_nmi|__die|die_nmi|do_debug"
          "|do_general_protection|do_int3|do_IRQ|do_page_fault|do_sparc64_fault|do_trap"
          "|dummy_nmi_callback|flush_icache_range|ia64_bad_break|ia64_do_page_fault"
          "|ia64_fault|io_check_error|mem_parity_error|nmi_watchdog_tick"
          "|notifier_call_chain|oops_begin|oops_end|program_check_exception"
          "|single_step_exception|sync_regs|unhandled_fault|unknown_nmi_error"
          "|xen_[gs]et_debugreg|xen_irq_.*|xen_.*_fl_direct.*|check_events"
          "|xen_adjust_exception_frame|xen_iret.*|xen_sysret64.*|test_ti_thread_flag.*"
          "|inat_get_opcode_attribute|system_call_after_swapgs|HYPERVISOR_[gs]et_debugreg"
          "|HYPERVISOR_event_channel_op|hash_64|hash_ptr|native_set_pte"
          "|.*raw_.*_lock.*|.*raw_.*_unlock.*|.*raw_.*_trylock.*|.*read_lock.*"
          "|.*read_unlock.*|.*read_trylock.*|.*write_lock.*|.*write_unlock.*"
          "|.*write_trylock.*|.*write_seqlock.*|.*write_sequnlock.*|.*spin_lock.*"
          "|.*spin_unlock.*|.*spin_trylock.*|.*spin_is_locked.*|rwsem_.*lock.*"
          "|.*mutex_.*lock.*|atomic_.*|atomic64_.*|get_bh|put_bh"
          "|.*apic.*|.*APIC.*|.*softirq.*|.*IRQ.*|.*_intr.*|__delay|.*kernel_text.*"
          "|get_current|current_.*|.*exception_tables.*|.*setup_rt_frame.*"
          "|.*preempt_count.*|preempt_schedule"
#if defined(__x86_64__)
          "|__switch_to"
#endif
          ")$";
      // These never return, so a return probe would never fire.
      const char* ret_fn = "^(do_exit|sys_exit|sys_exit_group)$";
      regcomp(&any, fn, REG_EXTENDED | REG_NOSUB);
      regcomp(&ret, ret_fn, REG_EXTENDED | REG_NOSUB);
    }
  };
  static const Blocklist list;
  if (regexec(&list.any, name.c_str(), 0, nullptr, 0) == 0) return true;
  return is_return && regexec(&list.ret, name.c_str(), 0, nullptr, 0) == 0;
}

}  // namespace stap::kernel
