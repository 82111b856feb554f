// printf and sprintf output in user space: a parsed format (see
// compiler/base/format_string.h) plus the values of one call become the
// exact bytes stap 4.8 would print.  The runtime uses it for every printf
// record drained from the ring buffer and for user-context probes.
//
// Where the rules come from: stap 4.8 does not call a printf of the C
// library.  Its translator (checked with `ostap -p3`) emits, per printf,
// one call per piece into its runtime (runtime/vsprintf.c: number(),
// _stp_vsprint_char, _stp_vsprint_memory, _stp_vsprint_binary), and
// clamps every width and precision to the space left in the output
// buffer.  Those functions differ from C's printf in places, all kept
// here and pinned by tests/unit/test_printf_output.cpp:
//  - %p is %#x: "0x" and the hex digits, no fixed width;
//  - '#' prefixes even a zero ("%#x" of 0 is "0x0", "%#o" of 0 is "00");
//  - precision 0 still prints the digit of a zero ("%.0d" of 0 is "0");
//  - the '0' flag still pads with zeros when a precision is given;
//  - '+' and ' ' act on %d/%i only ("%+u" of 2 is "2");
//  - a '*' width or precision is an int clamped at 0: a negative '*'
//    width does NOT left-justify, a negative '*' precision is 0;
//  - "%#c" escapes a non-printable character (\n, \t, ... or \ooo);
//  - the '0' flag on %s %m %M appends one NUL byte after the field;
//  - %b writes the value in host byte order: 8 bytes, or 1/2/4/8 chosen
//    by the precision, else by the width; a wider width pads with NULs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/format_string.h"

namespace stap {

// One argument of a printf call, in the order the pieces consume them (a
// '*' width, then a '*' precision, then the value).
//  - %s: `text` is the string;
//  - %m %M: `number` is the address and `text` the bytes read there (the
//    reader, BPF or user side, reads memory_dump_length() bytes: from user
//    memory when the piece's flag is '#', else from kernel memory);
//  - every other conversion and '*': `number`.
struct PrintfValue {
  bool is_string = false;
  int64_t number = 0;
  std::string text;

  static PrintfValue of(int64_t n) { return PrintfValue{false, n, {}}; }
  static PrintfValue of(std::string s) { return PrintfValue{true, 0, std::move(s)}; }
  static PrintfValue memory(int64_t address, std::string bytes) {
    return PrintfValue{false, address, std::move(bytes)};
  }
};

// stap's print buffer (STP_BUFFER_SIZE): one printf never writes more.
inline constexpr size_t kPrintBufferSize = 8192;

// A %m/%M precision above this is a run-time error in stap:
// "N is too many bytes for a memory dump" (its check is against PAGE_SIZE).
inline constexpr int64_t kMaxMemoryDump = 4096;

// Bytes a %m/%M piece reads, given its precision (the literal one, or the
// value of its '*' argument; PrintfPiece::kNone when none): the precision
// when positive, else 1.
int64_t memory_dump_length(int64_t precision);

// The bytes printf writes: at most `capacity` (stap's kPrintBufferSize),
// NUL bytes included (%b, %c of 0, the '0' flag on strings).  Throws
// std::invalid_argument when `args` do not match the pieces (too few, a
// string where a number belongs or the reverse, %m/%M bytes missing).
std::string format_printf(const std::vector<PrintfPiece>& pieces,
                          const std::vector<PrintfValue>& args,
                          size_t capacity = kPrintBufferSize);

// The string sprintf returns: formatted into a buffer of `maxstringlen`
// bytes (MAXSTRINGLEN) as stap does, so at most maxstringlen - 1
// characters, and cut at the first NUL byte like any stap string.
std::string format_sprintf(const std::vector<PrintfPiece>& pieces,
                           const std::vector<PrintfValue>& args, size_t maxstringlen);

}  // namespace stap
