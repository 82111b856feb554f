// The number readers of the function library by name (kernel_long,
// user_ushort_warn, user_int32_error ...): how many bytes each reads, from
// which space, and what a fault does.  One table for both contexts, so
// kernel context (compiler/codegen/emit_library.cpp) and the runtime's
// begin/end/timer probes (loader/interp/interp_memory.cpp) agree.
#pragma once

#include <cstdint>
#include <string_view>

namespace stap::ir {

// A fault: the kernel readers raise stap's copy fault ("kernel long copy
// fault at 0x10 [man error::fault]"), the plain user ones give 0, the
// _warn ones warn (stap's words) and give 0, the _error ones raise
// "read fault [man error::fault] at 0x10".
enum class ReadFault : uint8_t { raise, zero, warn, error };

struct NumberReader {
  std::string_view name;
  unsigned size;  // bytes
  bool is_signed;
  bool user;      // the current task's memory, else the kernel's
  ReadFault fault;
  // raise: what was read ("long"); warn: the warning before the address.
  std::string_view words;
};

// The reader called `name`, or null.
const NumberReader* find_number_reader(std::string_view name);

// Every reader, for tables keyed by name.
struct NumberReaders {
  const NumberReader* begin() const;
  const NumberReader* end() const;
};
NumberReaders number_readers();

}  // namespace stap::ir
