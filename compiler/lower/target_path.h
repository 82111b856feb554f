// Target paths over BTF or DWARF types (target_type.h): kernel functions'
// $vars (kinds/kfunc_vars.cpp), DWARF variables (dwarf_vars.cpp), @cast
// and @var (target_cast.cpp), their pretty printing (target_pretty.cpp)
// and entry values (entry_values.cpp).  The walker is target_path.cpp.
//
// A Place is an object the path has reached: either a value held in a
// register (a function argument, the return value, @cast's pointer
// operand, a DWARF variable in a register or computed) or an object in
// memory at an address: kernel memory for BTF types, the probed process's
// memory for DWARF types.  Each step of a path (->f, [i]) moves the
// place; a pointer is read (one kread or uread) when the path goes
// through it.  Nothing is read until the path needs it, so &$p->f is pure
// address arithmetic.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lower/lowerer.h"
#include "lower/target_type.h"

namespace stap::lower {

struct Place {
  TType type;
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
  Place member_place(const Place& p, const TMember& m);
  // The long the place holds: an integer (bitfields extracted, signed ones
  // extended), a pointer, or an array's address.  Null after an error.
  ir::Node* value(const Place& p);
  // &place: null after an error.
  ir::Node* address(const Place& p);
  // A memory read at this expression's site: kernel memory, or the
  // process's (`user`: the place's type is from DWARF).
  ir::Node* read(ir::Node* address, uint32_t size, bool is_signed, bool user);
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

// A variable of $$parms/$$locals/$$vars/$$return: its name and type.
struct NamedVar {
  std::string name;
  TType type;
};
// stap's text of such a list: "a=0x1 s={...} arr=[...] gone=?" (each
// value %#x; with a trailing $ or $$ each as $a$ or $a$$ shows it).
// `base` gives the place a variable starts from, false when it cannot be
// read there ("=?").
ir::Node* vars_text(Lowerer& l, const ast::TargetSymbol& n, const std::vector<NamedVar>& vars,
                    const std::function<bool(const NamedVar&, Place&)>& base);

// address + k, folding constants.
ir::Node* add_offset(Lowerer& l, ir::Node* address, int64_t k);
// A register value of a type: size 1/2/4/8 (0: not readable as one
// long, e.g. a struct by value or a double).
uint32_t register_size(TType t);
// Whether a long of the type is sign-extended (signed integers and enums).
bool value_signed(TType t);
// "->f_path", "[2]", "[$i]": a component as stap prints it in messages.
std::string component_text(const ast::TargetComponent& c);
// Names as stap's messages quote them.
std::string type_text(TType t);
// stap's levenshtein_suggest: the candidates nearest first (ties in name
// order), at most `max`, joined by ", ".
std::string suggest(const std::string& word, const std::set<std::string>& candidates,
                    size_t max = SIZE_MAX);

// The rest of a target expression `n` once the place its base names is
// known: the path's components, then $/$$ pretty printing, & or the value
// (a long where the script wants one).  0 after an error, reported at n.
ir::Node* finish_path(Lowerer& l, const ast::Expr& n, Place p,
                      const std::vector<ast::TargetComponent>& comps, bool address_of, int pretty,
                      bool any_type);
// Whether that would succeed (@defined): nothing is reported.
bool path_exists(Lowerer& l, const ast::Expr& n, Place p,
                 const std::vector<ast::TargetComponent>& comps, bool address_of, int pretty);

}  // namespace stap::lower
