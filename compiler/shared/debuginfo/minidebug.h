// MiniDebugInfo: .gnu_debugdata is an xz stream holding a small ELF with
// the .symtab that stripping removed (Fedora and derivatives ship it;
// Debian does not, but a binary built elsewhere may carry it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace stap::debuginfo {

// Decompresses the xz stream at [data, data+size) into `out`.  False with
// `why` set on a corrupt stream or one larger than 256 MiB.
bool xz_decompress(const void* data, size_t size, std::vector<char>& out, std::string& why);

}  // namespace stap::debuginfo
