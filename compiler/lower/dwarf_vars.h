// DWARF variables at a probe site (dwarf_vars.cpp): the body context of
// process probes' code points (kinds/uprobe.cpp) and of kernel functions
// placed from the kernel's DWARF (kinds/kfunc_dwarf.cpp), and @cast/@var
// of DWARF types, which any body may use.
#pragma once

#include <optional>
#include <string>

#include "lower/lowerer.h"
#include "lower/target_type.h"

namespace stap::debuginfo {
struct Binary;
}

namespace stap::lower {

// A body whose variables are DWARF's at `site`: $local, $param, $return,
// $$parms/$$locals/$$vars/$$return, read from the saved registers and the
// probed code's memory (user memory, or kernel memory for kernel code).
class DwarfSiteBody : public BodyContext {
 public:
  DwarfSiteBody(Lowerer& l, DwarfSite site) : BodyContext(l), site_(site) {}

  ir::Node* target(ast::TargetSymbol& n, bool any_type) override;
  std::optional<bool> target_exists(const ast::Expr& e) override;
  bool at_return() const override { return site_.at_return; }
  const DwarfSite* dwarf() const override { return &site_; }

 protected:
  // The register or memory a $name starts from at the site.
  bool base(const ast::TargetSymbol& n, Place& p, bool quiet);
  ir::Node* all_vars(ast::TargetSymbol& n);

  DwarfSite site_;
};

// Whether @cast(p, "type", MODULE) reads a user binary's type: MODULE names
// one, or (no module) the body is a process probe's.
bool user_cast(Lowerer& l, const ast::CastExpr& n);
// The type @cast names in a user binary, or nothing (after an error
// unless quiet).
std::optional<TType> dwarf_cast_type(Lowerer& l, const ast::CastExpr& n, bool quiet);
// @var("name[@file]"[, "module"]) through DWARF: of a user binary (the
// probed one unless a module names another), or of the kernel or a
// module.  Whether a @var is DWARF's to read: dwarf_at_var_wanted().
ir::Node* dwarf_at_var(Lowerer& l, ast::AtVar& n);
bool dwarf_at_var_wanted(Lowerer& l, const ast::AtVar& n);
// A kernel DWARF address (DW_OP_addr) where the running kernel has it;
// null after reporting why at `loc`.
ir::Node* kernel_dwarf_address(Lowerer& l, const debuginfo::Binary& bin, const std::string& module,
                               uint64_t address, SourceLoc loc, const std::string& token);

}  // namespace stap::lower
