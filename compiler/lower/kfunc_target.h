// Target paths over BTF types (kernel functions' $vars, @cast, @var),
// shared by lower_kfunc_target.cpp, lower_kfunc_pretty.cpp and
// lower_kfunc_entry.cpp.
//
// A Place is an object the path has reached: either a value held in a
// register (a function argument, the return value, @cast's pointer
// operand) or an object in kernel memory at an address.  Each step of a
// path (->f, [i]) moves the place; a pointer is read (one kread) when the
// path goes through it.  Nothing is read until the path needs it, so
// &$p->f is pure address arithmetic.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lower/lowerer.h"

namespace stap::lower {

struct Place {
  kernel::Type type;
  ir::Node* value = nullptr;    // a register value (integers and pointers only)
  ir::Node* address = nullptr;  // else the object's address
  uint32_t bit_offset = 0;      // a bitfield: its first bit, from `address`
  uint32_t bit_size = 0;        // 0: not a bitfield
};

// Walks paths for one expression, reporting errors at it in stap's words
// (`loc`, `token`: where and what the message blames; `site`: the runtime
// error location of the reads).  Quiet: errors are only remembered
// (@defined).
class TypePath {
 public:
  TypePath(Lowerer& l, SourceLoc loc, std::string token, bool quiet = false);

  // Applies components [first, end); false after an error.
  bool walk(Place& p, const std::vector<ast::TargetComponent>& comps, size_t first = 0);
  // One component: ->field or [index] (index: the lowered index value).
  bool member(Place& p, const std::string& field, SourceLoc loc, const std::string& shown);
  bool index(Place& p, ir::Node* index, SourceLoc loc, const std::string& shown);
  // The place's member m (struct or union at an address).
  Place member_place(const Place& p, const kernel::Member& m);
  // The long the place holds: an integer (bitfields extracted, signed ones
  // extended), a pointer, or an array's address.  Null after an error.
  ir::Node* value(const Place& p);
  // &place: null after an error.
  ir::Node* address(const Place& p);
  // A kernel memory read at this expression's site.
  ir::Node* read(ir::Node* address, uint32_t size, bool is_signed);
  // The pointer a place holds, for going through it (null after an error).
  ir::Node* pointer_value(const Place& p);
  bool failed() const { return failed_; }
  void fail(SourceLoc loc, const std::string& message, const std::string& token = {});
  Lowerer& lowerer() { return l_; }
  SourceLoc loc() const { return loc_; }
  const std::string& token() const { return token_; }

 private:
  ir::Node* bitfield(const Place& p, uint32_t size, bool is_signed);

  Lowerer& l_;
  SourceLoc loc_;
  std::string token_;
  bool quiet_;
  bool failed_ = false;
  uint32_t site_ = 0;
};

// address + k, folding constants.
ir::Node* add_offset(Lowerer& l, ir::Node* address, int64_t k);
// A register value of a type as BTF gives it: size 1/2/4/8 (0: not
// readable as one long, e.g. a struct by value) and signedness.
uint32_t register_size(kernel::Type t);
// "->f_path", "[2]", "[$i]": a component as stap prints it in messages.
std::string component_text(const ast::TargetComponent& c);
// Names as stap's messages quote them.
std::string type_text(kernel::Type t);

}  // namespace stap::lower
