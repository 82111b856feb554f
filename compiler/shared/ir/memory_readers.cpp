#include "ir/memory_readers.h"

#include <iterator>

namespace stap::ir {

namespace {

constexpr auto R = ReadFault::raise, Z = ReadFault::zero, W = ReadFault::warn, E = ReadFault::error;

// Facts from stap 4.8's tapset/linux/conversions.stp and uconversions.stp.
constexpr NumberReader kReaders[] = {
    {"kernel_long", 8, true, false, R, "long"},
    {"kernel_int", 4, true, false, R, "int"},
    {"kernel_short", 2, true, false, R, "short"},
    {"kernel_char", 1, true, false, R, "char"},
    {"kernel_pointer", 8, true, false, R, "pointer"},
    {"user_long", 8, true, true, Z, ""},
    {"user_int", 4, true, true, Z, ""},
    {"user_short", 2, true, true, Z, ""},
    {"user_char", 1, true, true, Z, ""},
    {"user_ushort", 2, false, true, Z, ""},
    {"user_ulong", 8, false, true, Z, ""},
    {"user_int8", 1, true, true, Z, ""},
    {"user_uint8", 1, false, true, Z, ""},
    {"user_int16", 2, true, true, Z, ""},
    {"user_uint16", 2, false, true, Z, ""},
    {"user_int32", 4, true, true, Z, ""},
    {"user_uint32", 4, false, true, Z, ""},
    {"user_int64", 8, true, true, Z, ""},
    {"user_uint64", 8, true, true, Z, ""},
    {"user_char_warn", 1, true, true, W, "user char copy fault at"},
    {"user_short_warn", 2, true, true, W, "user short copy fault"},
    {"user_ushort_warn", 2, false, true, W, "user unsigned short copy fault"},
    {"user_int_warn", 4, true, true, W, "user int copy fault"},
    {"user_long_warn", 8, true, true, W, "user long copy fault"},
    {"user_ulong_warn", 8, false, true, W, "user unsigned long copy fault"},
    {"user_char_error", 1, true, true, E, ""},
    {"user_short_error", 2, true, true, E, ""},
    {"user_ushort_error", 2, false, true, E, ""},
    {"user_int_error", 4, true, true, E, ""},
    {"user_long_error", 8, true, true, E, ""},
    {"user_ulong_error", 8, false, true, E, ""},
    {"user_int8_error", 1, true, true, E, ""},
    {"user_uint8_error", 1, false, true, E, ""},
    {"user_int16_error", 2, true, true, E, ""},
    {"user_uint16_error", 2, false, true, E, ""},
    {"user_int32_error", 4, true, true, E, ""},
    {"user_uint32_error", 4, false, true, E, ""},
    {"user_int64_error", 8, true, true, E, ""},
    {"user_uint64_error", 8, true, true, E, ""},
};

}  // namespace

const NumberReader* find_number_reader(std::string_view name) {
  for (const NumberReader& r : kReaders)
    if (r.name == name) return &r;
  return nullptr;
}

const NumberReader* NumberReaders::begin() const { return std::begin(kReaders); }
const NumberReader* NumberReaders::end() const { return std::end(kReaders); }
NumberReaders number_readers() { return {}; }

}  // namespace stap::ir
