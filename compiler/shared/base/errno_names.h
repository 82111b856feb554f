// The symbolic errno names stap's errno_str() knows: the table of its
// tapset/errno.stp as compiled for x86_64 (errno-base.h's 1..34, then the
// arch-dependent names up to ENOTRECOVERABLE, 131).  Numbers past the
// table, the holes in it (41, 58) and the kernel-internal errors
// (ERESTARTSYS ...) have no name there, so errno_str gives "" for them.
// One table for both contexts: the interpreter reads it, the code
// generator lays it out in .rodata.
#pragma once

#include <cstdint>
#include <string_view>

namespace stap::errnos {

// "ENOENT" for 2 or -2; "" for a number stap's table does not name.
std::string_view name(int64_t err);

// One past the highest number in the table.
int64_t table_size();

}  // namespace stap::errnos
