// The module as bytes: how the user-context bodies, formats, globals and
// probe specs travel inside the object file (section ".stapbpf.meta") to a
// runtime that links neither the front end nor LLVM.
//
// Format: a magic "STAPIR09", then varint-encoded fields in a fixed order;
// nodes are written in pre-order.  Readers reject anything malformed
// (truncated, bad opcode, kid counts, indexes out of range) with a message,
// never by crashing: an object file is input like any other.
#pragma once

#include <string>
#include <string_view>

#include "ir/ir.h"

namespace stap::ir {

inline constexpr const char* kMetaSection = ".stapbpf.meta";

std::string serialize(const Module& m);
// Fills `out` (a fresh module); false with `error` set when the bytes are
// not a module this runtime understands.
bool deserialize(std::string_view bytes, Module& out, std::string& error);

}  // namespace stap::ir
