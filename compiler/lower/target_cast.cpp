// @cast(p, "type"[, "module"]) and @var("name"[, "module"]) in any body:
// @cast of kernel types through the target kernel's BTF, of a user
// binary's through its DWARF (dwarf_vars.cpp); @var through DWARF only
// (BTF describes no globals but per-CPU ones).
#include <filesystem>
#include <fstream>

#include "elaborate/typecheck.h"
#include "lower/dwarf_vars.h"
#include "lower/target_path.h"

namespace stap::lower {

// The type @cast names, or nothing (after an error unless quiet).
std::optional<TType> Lowerer::cast_type(const ast::CastExpr& n, bool quiet) {
  if (n.module.find(':') != std::string::npos) {
    // "foo:kernel:bar": the first of the modules that has the type, as stap
    // searches them.
    ast::CastExpr one = n;
    for (size_t start = 0; start <= n.module.size();) {
      size_t end = std::min(n.module.find(':', start), n.module.size());
      one.module = n.module.substr(start, end - start);
      if (!one.module.empty())
        if (std::optional<TType> t = cast_type(one, true)) return t;
      start = end + 1;
    }
    if (!quiet)
      error(n.loc, "type definition '" + n.type_name + "' not found in '" + n.module + "'",
            describe_expr(n));
    return std::nullopt;
  }
  // A user binary's type, or (no module) the probed binary's in a process
  // probe, as stap defaults to the probe's module.
  // Not found there (no module named): the kernel's.
  if (user_cast(*this, n)) {
    std::optional<TType> t = dwarf_cast_type(*this, n, quiet || n.module.empty());  // dwarf_vars.cpp
    if (t || !n.module.empty()) return t;
  }
  std::string token = describe_expr(n);
  kernel::KernelBtf* btf = this->btf(n.loc, token, quiet);
  if (!btf) return std::nullopt;
  // "kernel", "kernel<linux/sched.h>" and bare headers are vmlinux's types.
  std::string module = n.module;
  if (module.starts_with("kernel") || module.starts_with("<")) module.clear();
  std::optional<kernel::Type> t = btf->find_type(n.type_name, module);
  if (!t) {
    if (!quiet)
      error(n.loc, "type definition '" + n.type_name + "' not found in '" +
                       (n.module.empty() ? std::string("kernel") : n.module) + "'",
            token);
    return std::nullopt;
  }
  return TType::of(*t);
}

namespace {

// Whether evaluating `n` reads a process's memory: a user-context probe
// has no probed process (kernel memory it reads, interp_memory.cpp).
bool reads_user_memory(const ir::Node* n) {
  if (!n) return false;
  if (n->op == ir::Op::uread) return true;
  for (const ir::Node* k : n->kids)
    if (reads_user_memory(k)) return true;
  return false;
}

// stap takes @cast(p, "T") as a pointer to T: a leading [i] steps over
// whole T's, so &@cast(0, "T")[1] is sizeof(T) (tapsets/sizeof.stpm).
// Returns the components left, with `address` moved.
std::vector<ast::TargetComponent> step_leading_index(Lowerer& l, const TType& type, ir::Node*& address,
                                                     const std::vector<ast::TargetComponent>& comps) {
  if (comps.empty() || comps[0].kind == ast::TargetComponent::Kind::field) return comps;
  int64_t size = types::size(type);
  if (size <= 0) return comps;  // the path reports the bad index
  ir::Node* step;
  if (comps[0].kind == ast::TargetComponent::Kind::literal_index) {
    step = l.num(comps[0].index * size);
  } else {
    step = l.make(ir::Op::mul, ir::Type::long_);
    step->kids = {l.expr(comps[0].index_expr), l.num(size)};
  }
  ir::Node* moved = l.make(ir::Op::add, ir::Type::long_);
  moved->kids = {address, step};
  address = moved;
  return {comps.begin() + 1, comps.end()};
}

}  // namespace

ir::Node* Lowerer::cast_expr(ast::CastExpr& n) {
  std::optional<TType> type = cast_type(n, false);
  if (!type) return num(0);
  Place p{*type, nullptr, expr(n.operand)};
  std::vector<ast::TargetComponent> comps = step_leading_index(*this, *type, p.address, n.components);
  return refuse_process_read(n, finish_path(*this, n, p, comps, n.address_of, n.pretty, false));
}

// &@cast(0, "T")->m and &@cast(0, "T")[1] are offsets and sizes
// (tapsets/sizeof.stpm, offsetof.stpm), and kernel memory is read on
// request (loader/interp/kernel_memory.h); a user binary's type is read
// from the probed process, which these probes have not.
ir::Node* Lowerer::refuse_process_read(const ast::Expr& n, ir::Node* out, const std::string& what) {
  bool user_probe = body_ && body_->context == ir::Context::user && !body_->in_function;
  if (!user_probe || !reads_user_memory(out)) return out;
  error(n.loc, what + " reads the probed process's memory, which this "
               "probe has not: it runs in the runtime (begin, end and timer.s/ms probes do); "
               "read it from a process probe",
        describe_expr(n));
  return num(0);
}

std::optional<bool> Lowerer::cast_exists(const ast::CastExpr& n) {
  std::optional<TType> type = cast_type(n, true);
  if (!type) return false;
  Place p{*type, nullptr, num(0)};
  std::vector<ast::TargetComponent> comps = step_leading_index(*this, *type, p.address, n.components);
  return path_exists(*this, n, p, comps, n.address_of, n.pretty);
}

ir::Node* Lowerer::at_var(ast::AtVar& n) {
  // User binaries, and the kernel's or a module's DWARF where the probe
  // has it or the @var names a file: dwarf_vars.cpp.
  if (dwarf_at_var_wanted(*this, n)) return dwarf_at_var(*this, n);
  // BTF has VARs for per-CPU variables only; a global's type (and a
  // static's address) is in vmlinux's DWARF.
  std::string release;
  if (std::ifstream f("/proc/sys/kernel/osrelease"); f) std::getline(f, release);
  std::string dwarf = "/usr/lib/debug/boot/vmlinux-" + release;
  std::string why =
      std::filesystem::exists(dwarf)
          ? "reading the kernel's DWARF (" + dwarf + ") is not supported yet by this engine"
          : std::string("it is not installed (Debian: linux-image-$(uname -r)-dbg; Fedora: "
                        "kernel-debuginfo)");
  error(n.loc,
        "@var(\"" + n.name + "\") needs the kernel's debuginfo (DWARF): BTF describes the "
        "types of functions and per-CPU variables only, not of kernel globals, and " + why,
        describe_expr(n));
  return num(0);
}

// @kderef(SIZE, ADDR), @uderef(SIZE, ADDR): SIZE bytes at ADDR, unsigned.
ir::Node* Lowerer::deref(ast::AtOp& n) {
  auto* size = dynamic_cast<const ast::NumberLit*>(n.operands[0]);
  int64_t bytes = size ? size->value : 0;
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) {
    error(n.loc, "unsupported @" + n.op + " size " + std::to_string(bytes) +
                     ": 1, 2, 4 or 8 bytes", describe_expr(n));
    return num(0);
  }
  ir::Node* read = make(n.op == "uderef" ? ir::Op::uread : ir::Op::kread, ir::Type::long_);
  read->kids = {expr(n.operands[1])};
  read->b = bytes;
  read->c = 0;  // unsigned, as stap reads it
  read->loc = location(n);
  return refuse_process_read(n, read, "@uderef");
}

}  // namespace stap::lower
