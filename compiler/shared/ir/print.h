// A readable dump of the IR, one node per line with its operands, for
// tests and for `-p3 -v` (which shows the module before code generation).
#pragma once

#include <string>

#include "ir/ir.h"

namespace stap::ir {

std::string print_node(const Module& m, const Node& n, int indent = 0);
std::string print_module(const Module& m);

}  // namespace stap::ir
