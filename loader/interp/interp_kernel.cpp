// Kernel memory in user-context probes: @cast and typed-pointer reads
// (Op::kread), task_current() and the kernel_* readers, through the BPF
// program of kernel_memory.h.  Results and errors are kernel context's
// (compiler/codegen/emit_builtins.cpp, emit_kfunc.cpp, emit_quote.cpp),
// so a tapset function gives the same answer in begin as in a kernel probe.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "loader/interp/interpreter_impl.h"
#include "loader/interp/kernel_memory.h"

namespace stap {

using ir::Node;
using Impl = Interpreter::Impl;

namespace {

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, v);
  return text;
}

// A request the reader could not serve at all: say why, where.
[[noreturn]] void unavailable(Impl& in, const Node& n) {
  in.raise("kernel memory cannot be read in a begin, end, error or timer probe here: " +
               kernel_memory().unavailable(),
           n);
}

// `size` bytes at `address` as a long: sign- or zero-extended.
int64_t widen(uint64_t raw, size_t size, bool is_signed) {
  if (size >= 8) return int64_t(raw);
  unsigned bits = unsigned(size * 8);
  uint64_t mask = (uint64_t{1} << bits) - 1;
  raw &= mask;
  if (is_signed && (raw >> (bits - 1)) & 1) raw |= ~mask;
  return int64_t(raw);
}

// 0 or -errno; a reader that cannot run at all is an error here.
int read_number(Impl& in, const Node& n, uint64_t address, size_t size, uint64_t& raw) {
  raw = 0;
  int r = kernel_memory().read(address, &raw, size);
  if (r == -ENOSYS && !kernel_memory().unavailable().empty()) unavailable(in, n);
  return r;
}

int read_text(Impl& in, const Node& n, uint64_t address, size_t max, std::string& out) {
  int r = kernel_memory().read_string(address, max, out);
  if (r == -ENOSYS && !kernel_memory().unavailable().empty()) unavailable(in, n);
  return r;
}

struct NumberReader {
  const char* name;
  size_t size;
  const char* what;  // in the fault's words
};
constexpr NumberReader kNumberReaders[] = {
    {"kernel_long", 8, "long"}, {"kernel_int", 4, "int"}, {"kernel_short", 2, "short"},
    {"kernel_char", 1, "char"}, {"kernel_pointer", 8, "pointer"},
};

}  // namespace

int64_t Interpreter::Impl::kernel_read(const Node& n) {
  uint64_t address = uint64_t(eval_long(*n.kids.at(0)));
  size_t size = size_t(n.b);
  if (size != 1 && size != 2 && size != 4 && size != 8)
    raise("internal error: a kernel read of " + std::to_string(size) + " bytes", n);
  uint64_t raw = 0;
  if (read_number(*this, n, address, size, raw) != 0)
    raise("read fault [man error::fault] at " + hex(address), n);
  return widen(raw, size, n.c != 0);
}

namespace interp {

Value b_task_current(Impl& in, std::vector<Value>&, const Node& n) {
  // A running-tasks probe answers for another thread, whose task this
  // process cannot name (lowering keeps such bodies to new tasks).
  if (in.subject) in.raise("task_current() cannot name the task of a process already running", n);
  uint64_t task = kernel_memory().current_task();
  if (!task) unavailable(in, n);
  return Value::of(int64_t(task));
}

// kernel_long, kernel_int, kernel_short, kernel_char, kernel_pointer.
Value b_kernel_number(Impl& in, std::vector<Value>& a, const Node& n) {
  for (const NumberReader& r : kNumberReaders) {
    if (n.s != r.name) continue;
    uint64_t raw = 0;
    uint64_t address = uint64_t(a[0].num);
    if (read_number(in, n, address, r.size, raw) != 0)
      in.raise(std::string("kernel ") + r.what + " copy fault at " + hex(address) + " [man error::fault]", n);
    // int, short and char are signed C types; long and pointer are 8 bytes.
    return Value::of(widen(raw, r.size, true));
  }
  in.raise("internal error: " + n.s + "() is no kernel number reader", n);
}

// kernel_string(a), kernel_string(a, err), kernel_string2(a, err),
// kernel_string_n(a, n): err replaces the fault's error.
Value b_kernel_string(Impl& in, std::vector<Value>& a, const Node& n) {
  const size_t max = size_t(in.m.limits.maxstringlen) - 1;
  bool counted = n.s == "kernel_string_n";
  uint64_t address = uint64_t(a[0].num);
  size_t limit = max;
  if (counted) limit = a[1].num < 0 ? 0 : std::min(max, size_t(a[1].num));
  std::string text;
  if (read_text(in, n, address, limit, text) == 0) return Value::of(std::move(text));
  if (!counted && a.size() > 1) return Value::of(a[1].str);
  in.raise("kernel string copy fault at " + hex(address) + " [man error::fault]", n);
}

// kernel_string_quoted(a): the quoted text, "0x<a>" for 0 or a fault.
Value b_kernel_string_quoted(Impl& in, std::vector<Value>& a, const Node& n) {
  const size_t max = size_t(in.m.limits.maxstringlen) - 1;
  uint64_t address = uint64_t(a[0].num);
  std::string text;
  // One byte past what fits, so a longer string ends in `"...`.
  if (address == 0 || read_text(in, n, address, max + 1, text) != 0)
    return Value::of(hex(address));
  return Value::of(text_str(text, max, max, true, max + 1));
}

// kernel_string_utf16(a), kernel_string_utf32(a): as bpf_runtime/utf.c,
// one code unit read at a time.
Value b_kernel_string_utf(Impl& in, std::vector<Value>& a, const Node& n) {
  const size_t width = n.s.ends_with("16") ? 2 : 4;
  const size_t room = size_t(in.m.limits.maxstringlen);  // with the NUL
  uint64_t at = uint64_t(a[0].num);
  std::string out;
  auto unit = [&](uint64_t address) {
    uint64_t raw = 0;
    if (read_number(in, n, address, width, raw) != 0)
      in.raise("kernel string copy fault at " + hex(address) + " [man error::fault]", n);
    return raw;
  };
  while (room - out.size() > 1) {
    uint64_t c = unit(at);
    if (!c) break;
    if (width == 2 && c >= 0xd800 && c <= 0xdbff) {
      uint64_t low = unit(at + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        c = 0x10000 + ((c & 0x3ff) << 10) + (low & 0x3ff);
        at += 2;
      }
    }
    size_t k = c <= 0x7f ? 1 : c <= 0x7ff ? 2 : (c >= 0xd800 && c <= 0xdfff) ? 0
             : c <= 0xffff ? 3 : c <= 0x10ffff ? 4 : 0;
    if (!k) {
      char msg[96];
      std::snprintf(msg, sizeof msg, "invalid UTF-%d character U+%" PRIX64 " at 0x%" PRIx64,
                    width == 2 ? 16 : 32, c, at);
      in.raise(msg, n);
    }
    if (room - out.size() < k + 1) break;  // does not fit: the string ends
    if (k == 1) {
      out += char(c);
    } else {
      char bytes[4];
      for (size_t i = k - 1; i > 0; --i, c >>= 6) bytes[i] = char(0x80 | (c & 0x3f));
      bytes[0] = char(((0xf00 >> k) & 0xff) | c);
      out.append(bytes, k);
    }
    at += width;
  }
  return Value::of(std::move(out));
}

}  // namespace interp

}  // namespace stap
