// Reading a compiled object (-p4 output) before libbpf sees it: the
// program module travels in section ".stapbpf.meta" (compiler/ir/
// serialize.h), which libbpf ignores, so it is read here with libelf.
#pragma once

#include <string>
#include <string_view>

#include "ir/ir.h"

namespace stap {

// The bytes of section `name` of the ELF image `object`; false with
// `error` set when the image is no ELF file or has no such section.
bool read_elf_section(std::string_view object, const char* name, std::string& out,
                      std::string& error);

// The module of a compiled object: its ".stapbpf.meta" section, decoded.
// False with a message that names the object's problem, not libelf's.
bool read_object_module(std::string_view object, ir::Module& out, std::string& error);

}  // namespace stap
