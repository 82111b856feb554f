// Memory in user-context probes (begin, end, error, timer): @cast and
// typed-pointer reads (Op::kread), task_current() and the kernel_* readers
// through kernel_memory.h's BPF program, the user_* readers from this
// process's own memory.  A begin probe's task is the runtime's
// thread (task_current() says so), as stap's begin probes run in stapio's
// task and user_string() there reads stapio's memory.  Results, fallbacks
// and errors are kernel context's (compiler/codegen/emit_builtins.cpp,
// emit_library.cpp, emit_quote.cpp), so a tapset function gives the same
// answer in begin as in a kernel probe.
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "ir/memory_readers.h"
#include "loader/interp/interpreter_impl.h"
#include "loader/interp/kernel_memory.h"

namespace stap::interp {

using ir::Node;
using Impl = Interpreter::Impl;

namespace {

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, v);
  return text;
}

// `size` bytes of this process at `address`: 0, or -EFAULT where any of
// them cannot be read (process_vm_readv checks, so a bad address is a
// fault, never a crash).
int read_own(uint64_t address, void* out, size_t size) {
  if (size == 0) return 0;
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(address), size};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == ssize_t(size)) return 0;
  std::memset(out, 0, size);
  return -EFAULT;
}

// A NUL-ended string of at most `max` characters, a page at a time so
// that a string ending before an unmapped page reads.
int read_own_string(uint64_t address, size_t max, std::string& out) {
  static const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  out.clear();
  std::string chunk;
  while (out.size() < max) {
    size_t n = size_t(std::min<uint64_t>(page - address % page, max - out.size()));
    chunk.resize(n);
    if (read_own(address, chunk.data(), n) != 0) {
      out.clear();
      return -EFAULT;
    }
    size_t nul = chunk.find('\0');
    out.append(chunk, 0, nul);
    if (nul != std::string::npos) break;
    address += n;
  }
  return 0;
}

// One space's reads for one call; a kernel reader that cannot run at all
// is an error at the call.
struct Memory {
  Impl& in;
  const Node& n;
  bool user;

  const char* space() const { return user ? "user" : "kernel"; }
  [[noreturn]] void unavailable() const {
    in.raise("kernel memory cannot be read in a begin, end, error or timer probe here: " +
                 kernel_memory().unavailable(),
             n);
  }
  int read(uint64_t address, void* out, size_t size) const {
    if (user) return read_own(address, out, size);
    std::memset(out, 0, size);
    int r = kernel_memory().read(address, out, size);
    if (r == -ENOSYS && !kernel_memory().unavailable().empty()) unavailable();
    return r;
  }
  int read_string(uint64_t address, size_t max, std::string& out) const {
    if (user) return read_own_string(address, max, out);
    int r = kernel_memory().read_string(address, max, out);
    if (r == -ENOSYS && !kernel_memory().unavailable().empty()) unavailable();
    return r;
  }
  // A string read's error: "user string copy fault at 0x10 [man error::fault]".
  [[noreturn]] void fault(const std::string& what, uint64_t address) const {
    in.raise(std::string(space()) + " " + what + " copy fault at " + hex(address) +
                 " [man error::fault]",
             n);
  }
};

Memory memory(Impl& in, const Node& n) { return Memory{in, n, n.s.starts_with("user_")}; }

size_t max_chars(const Impl& in) { return size_t(in.m.limits.maxstringlen) - 1; }

// `size` bytes as a long: sign- or zero-extended.
int64_t widen(uint64_t raw, size_t size, bool is_signed) {
  if (size >= 8) return int64_t(raw);
  unsigned bits = unsigned(size * 8);
  uint64_t mask = (uint64_t{1} << bits) - 1;
  raw &= mask;
  if (is_signed && (raw >> (bits - 1)) & 1) raw |= ~mask;
  return int64_t(raw);
}

}  // namespace

Value b_task_current(Impl& in, std::vector<Value>&, const Node& n) {
  // A running-tasks probe answers for another thread, whose task this
  // process cannot name (lowering keeps such bodies to new tasks).
  if (in.subject) in.raise("task_current() cannot name the task of a process already running", n);
  uint64_t task = kernel_memory().current_task();
  if (!task) Memory{in, n, false}.unavailable();
  return Value::of(int64_t(task));
}

std::vector<std::string_view> number_reader_names() {
  std::vector<std::string_view> names;
  for (const ir::NumberReader& r : ir::number_readers()) names.push_back(r.name);
  return names;
}

// The readers of ir/memory_readers.h, each fault as the table says.
Value b_read_number(Impl& in, std::vector<Value>& a, const Node& n) {
  const ir::NumberReader* r = ir::find_number_reader(n.s);
  if (!r) in.raise("internal error: " + n.s + "() is no memory number reader", n);
  Memory mem{in, n, r->user};
  uint64_t raw = 0;
  uint64_t address = uint64_t(a[0].num);
  if (mem.read(address, &raw, r->size) == 0) return Value::of(widen(raw, r->size, r->is_signed));
  switch (r->fault) {
    case ir::ReadFault::raise: mem.fault(std::string(r->words), address);
    case ir::ReadFault::error: in.raise("read fault [man error::fault] at " + hex(address), n);
    case ir::ReadFault::warn:
      in.warn(std::string(r->words) + " " + hex(address) + " [man error::fault]");
      break;
    case ir::ReadFault::zero: break;
  }
  return Value::of(int64_t{0});
}

// {kernel,user}_string(a[, err]), *_string2(a, err), *_string_n(a, n[, err]),
// user_string_n2(a, n, err): err replaces the fault's error.
Value b_read_string(Impl& in, std::vector<Value>& a, const Node& n) {
  Memory mem = memory(in, n);
  bool counted = n.s.find("_string_n") != std::string::npos;
  uint64_t address = uint64_t(a[0].num);
  size_t limit = max_chars(in);
  if (counted) limit = a[1].num < 0 ? 0 : std::min(limit, size_t(a[1].num));
  std::string text;
  if (mem.read_string(address, limit, text) == 0) return Value::of(std::move(text));
  if (a.size() > (counted ? 2u : 1u)) return Value::of(a.back().str);
  mem.fault("string", address);
}

// user_string_warn(a[, msg]), user_string2_warn(a, msg),
// user_string_n_warn(a, n[, msg]), user_string2_n_warn(a, n, msg): on a
// fault, stap's warning and msg ("" when not given).
Value b_read_string_warn(Impl& in, std::vector<Value>& a, const Node& n) {
  bool counted = n.s.find("_n_") != std::string::npos;
  uint64_t address = uint64_t(a[0].num);
  size_t limit = max_chars(in);
  if (counted) limit = a[1].num < 0 ? 0 : std::min(limit, size_t(a[1].num));
  std::string text;
  if (read_own_string(address, limit, text) == 0) return Value::of(std::move(text));
  in.warn("user string copy fault " + std::to_string(-EFAULT) + " at " + hex(address) +
               " [man error::fault]");
  return Value::of(a.size() > (counted ? 2u : 1u) ? a.back().str : std::string());
}

// The quoting readers; what each gives on a fault is stap 4.8's choice
// (emit_quote.cpp lists them): "0x<a>", or for the _error ones an error.
Value b_read_quoted(Impl& in, std::vector<Value>& a, const Node& n) {
  Memory mem = memory(in, n);
  const size_t max = max_chars(in);
  const size_t maxlen = max + 1;
  uint64_t address = uint64_t(a[0].num);
  auto clamp = [&](int64_t v) { return v < 0 ? size_t(0) : std::min(max + 1, size_t(v)); };
  std::string text;
  if (n.s == "kernel_string_quoted" || n.s == "user_string_quoted") {
    // One byte past what fits, so a longer string ends in `"...`.
    if ((!mem.user && address == 0) || mem.read_string(address, max + 1, text) != 0)
      return Value::of(hex(address));
    return Value::of(text_str(text, max, max, true, maxlen));
  }
  if (n.s.starts_with("user_string_n")) {
    // user_string_n(a, inlen), quoted, then cut to outlen with `"...`
    // (outlen as given: stp_quoted_cut compares it signed).
    size_t inlen = a[1].num < 0 ? 0 : std::min(max, size_t(a[1].num));
    int64_t outlen = a.size() > 2 ? a[2].num : int64_t(maxlen);
    if (mem.read_string(address, inlen, text) != 0) return Value::of(hex(address));
    std::string quoted = text_str(text, max, max, true, maxlen);
    auto len = int64_t(quoted.size());
    if (len <= outlen - 2) return Value::of(std::move(quoted));
    quoted.resize(size_t(std::clamp<int64_t>(outlen - 4, 0, len)));
    quoted += "\"...";
    if (quoted.size() > max) quoted.resize(max);
    return Value::of(std::move(quoted));
  }
  // {kernel,user}_buffer_quoted[_error](a, inlen[, outlen]): inlen bytes,
  // NULs and all; "" for an outlen of 0.
  bool raises = n.s.ends_with("_error");
  size_t outlen = a.size() > 2 ? clamp(a[2].num) : maxlen;
  auto failed = [&] {
    if (raises)
      in.raise(std::string("Unable to access ") + mem.space() + " space data at " + hex(address), n);
    // The fallback is cut to outlen - 1 characters (snprintf's size).
    std::string fallback = hex(address);
    fallback.resize(std::min(fallback.size(), outlen - 1));
    return Value::of(std::move(fallback));
  };
  if (outlen == 0) {
    if (raises) failed();
    return Value::of(std::string());
  }
  size_t inlen = a[1].num <= 0 || size_t(a[1].num) > max ? max : size_t(a[1].num);
  text.resize(inlen);
  if (mem.read(address, text.data(), inlen) != 0) return failed();
  return Value::of(text_str(text, inlen, outlen, true, maxlen, /*buffer=*/true));
}

// {kernel,user}_string_utf16(a), *_utf32(a): as bpf_runtime/utf.c, one
// code unit read at a time.
Value b_read_string_utf(Impl& in, std::vector<Value>& a, const Node& n) {
  Memory mem = memory(in, n);
  const size_t width = n.s.ends_with("16") ? 2 : 4;
  const size_t room = size_t(in.m.limits.maxstringlen);  // with the NUL
  uint64_t at = uint64_t(a[0].num);
  std::string out;
  auto unit = [&](uint64_t address) {
    uint64_t raw = 0;
    if (mem.read(address, &raw, width) != 0) mem.fault("string", address);
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

}  // namespace stap::interp

namespace stap {

// @cast and typed-pointer reads (Op::kread): n.b bytes, n.c signed.
int64_t Interpreter::Impl::kernel_read(const ir::Node& n) {
  uint64_t address = uint64_t(eval_long(*n.kids.at(0)));
  size_t size = size_t(n.b);
  if (size != 1 && size != 2 && size != 4 && size != 8)
    raise("internal error: a kernel read of " + std::to_string(size) + " bytes", n);
  uint64_t raw = 0;
  if (interp::Memory{*this, n, false}.read(address, &raw, size) != 0)
    raise("read fault [man error::fault] at " + interp::hex(address), n);
  return interp::widen(raw, size, n.c != 0);
}

}  // namespace stap
