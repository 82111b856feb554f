// Separate debuginfo for a user-space binary, where Debian's -dbgsym and
// -dbg packages put it: /usr/lib/debug/.build-id/xx/yyyy.debug (by the
// binary's build-id), else the .gnu_debuglink name beside the binary, in
// its .debug/ directory, or under /usr/lib/debug/<its directory>/ (the
// CRC32 in .gnu_debuglink must match).
#pragma once

#include <string>

#include "debuginfo/elf_file.h"

namespace stap::debuginfo {

// The path of `binary`'s separate debuginfo file, or "" with `why` saying
// where it looked.  `debug_root` stands for /usr/lib/debug.
std::string find_debug_file(const ElfFile& binary, std::string& why,
                            const std::string& debug_root = "/usr/lib/debug");

// What to install for `binary`'s debuginfo on Debian: "libc6-dbg" for
// glibc, "<package>-dbgsym" for the package that owns the file (asked of
// dpkg-query), or "" when no package owns it.
std::string debuginfo_package(const std::string& binary_path);

// The whole message for a binary without DWARF when variables are asked
// for: what is missing, where it was looked for, and what to install.
std::string no_debuginfo_message(const ElfFile& binary, const std::string& looked);

// CRC-32 as .gnu_debuglink uses it (the zlib/IEEE polynomial).
uint32_t debuglink_crc32(const std::string& path, bool& ok);

}  // namespace stap::debuginfo
