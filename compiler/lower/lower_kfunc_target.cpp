// Target variables of kernel-function probes, from BTF (no debuginfo),
// walked by lower_target_path.cpp:
//   $param                fn_arg of its index, sized and signed as BTF says
//   $return               fn_ret (return probes)
//   $p->f->g, $p->a[i]    each pointer gone through is one kread; '->'
//                         also steps into embedded structs and unions, as
//                         in stap; [i] indexes arrays and pointers
//   &$p->f                the address, with nothing read
//   bitfields             the containing unit read, shifted, masked and
//                         sign-extended when the type is signed
//   char arrays           their address (a long, for kernel_string)
// and @cast(p, "type"[, "module"]) in any kernel-context body, @var,
// @defined over these.  Errors use stap's words (dwflpp.cxx).
#include <filesystem>
#include <fstream>
#include <set>

#include "elaborate/typecheck.h"
#include "lower/kfunc_target.h"

namespace stap::lower {

// ---------------------------------------------------------------- $vars

namespace {

std::string function_text(const kernel::Function& fn) {
  return fn.module.empty() ? fn.name : fn.name + " [" + fn.module + "]";
}

std::set<std::string> param_names(const kernel::Function& fn) {
  std::set<std::string> out;
  for (const kernel::Param& p : fn.params) out.insert(p.name);
  return out;
}

}  // namespace

bool Lowerer::kfunc_body() const {
  return body_ && body_->kfunc_probe;
}

// The register a $name starts from: a parameter or the return value.
bool Lowerer::kfunc_base(const ast::TargetSymbol& n, Place& p, bool quiet) {
  const kernel::Function* fn = body_->kfunc;
  std::string token = describe_expr(n);
  auto fail = [&](const std::string& message) {
    if (!quiet) error(n.loc, message, token);
    return false;
  };
  if (!fn) {
    std::string what = body_->kfunc_probe && body_->kfunc_probe->functions.size() == 1
                           ? "function " + body_->kfunc_probe->functions[0]
                           : std::string("a probe over several functions");
    return fail("target variable '" + n.name + "' cannot be read: " + what +
                " has no BTF type information here (kernels with CONFIG_DEBUG_INFO_BTF "
                "describe their functions; a probe over several functions has no one set "
                "of parameters)");
  }
  std::string name = n.name.substr(1);
  if (name == "return" && body_->kfunc_return) {
    TType ret = TType::of(fn->ret);
    if (ret.is_void()) return fail("function " + function_text(*fn) + " has no return value");
    uint32_t size = register_size(ret);
    if (!size)
      return fail("the return value of " + function_text(*fn) + " (" + type_text(ret) +
                  ") is not returned in a register and cannot be read");
    ir::Node* v = make(ir::Op::fn_ret, ir::Type::long_);
    v->b = size;
    v->c = value_signed(ret);
    p = Place{ret, v};
    return true;
  }
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const kernel::Param& param = fn->params[i];
    if (param.name != name) continue;
    if (i >= 6)
      return fail("parameter '" + name + "' of " + function_text(*fn) + " is argument " +
                  std::to_string(i + 1) +
                  "; only the first 6 arguments (those passed in registers) can be read");
    TType type = TType::of(param.type);
    uint32_t size = register_size(type);
    if (!size)
      return fail("parameter '" + name + "' of " + function_text(*fn) + " is a " +
                  type_text(type) +
                  " passed by value, which cannot be read from the argument registers");
    ir::Node* v = make(ir::Op::fn_arg, ir::Type::long_);
    v->a = static_cast<int64_t>(i);
    v->b = size;
    v->c = value_signed(type);
    p = Place{type, v};
    return true;
  }
  std::string sugs = suggest(name, param_names(*fn), 5);
  return fail("unable to find local '" + name + "' in " + function_text(*fn) + " (" +
              (sugs.empty() ? "<no alternatives>" : "alternatives: " + sugs) + ")");
}

// A long where the script wants one; `any_type`: print's arguments.
ir::Node* Lowerer::checked_long(ir::Node* v, const ast::Expr& n, bool any_type) {
  ir::Type wanted = ir_type(n.type);
  if (!any_type && wanted != ir::Type::none && wanted != v->type)
    error(n.loc, std::string("type mismatch: '") + describe_expr(n) + "' is a " +
                     ir::type_name(v->type) + ", used here as a " + ir::type_name(wanted) +
                     (v->type == ir::Type::long_ ? " (read a char* or char[] with kernel_string())"
                                                 : ""),
          describe_expr(n));
  return v;
}

ir::Node* Lowerer::kfunc_target(ast::TargetSymbol& n, bool any_type) {
  // Placed from DWARF: its variables are DWARF's (lower_uprobe_target.cpp).
  if (body_->uprobe_site) return dwarf_target(n, any_type);
  bool return_var = n.name == "$return" || n.name == "$$return";
  // stap reads every other target variable of a .return probe at entry
  // and keeps it for the return.
  if (body_->kfunc_return && !return_var && body_->kfunc) return entry_value(n, any_type);
  if (n.name.starts_with("$$")) return kfunc_all_vars(n);
  Place p;
  if (!kfunc_base(n, p, false)) return num(0);
  return finish_path(*this, n, p, n.components, n.address_of, n.pretty, any_type);
}

std::optional<bool> Lowerer::kfunc_exists(const ast::Expr* e) {
  if (body_->uprobe_site) return dwarf_exists(e);
  if (auto* c = dynamic_cast<const ast::CastExpr*>(e)) return cast_exists(*c);
  auto* t = dynamic_cast<const ast::TargetSymbol*>(e);
  if (!t) return std::nullopt;
  if (t->name.starts_with("$$"))
    return t->name == "$$vars" || t->name == "$$parms" || t->name == "$$locals" ||
           (t->name == "$$return" && body_->kfunc_return && body_->kfunc &&
            body_->kfunc->ret.id != 0);
  Place p;
  if (!kfunc_base(*t, p, true)) return false;
  return path_exists(*this, *t, p, t->components, t->address_of, t->pretty);
}

// ---------------------------------------------------------------- @cast, @var

kernel::KernelBtf* Lowerer::cast_btf(SourceLoc loc, const std::string& token, bool quiet) {
  if (!cast_btf_) {
    cast_btf_ = std::make_unique<kernel::KernelBtf>();
    if (!cast_btf_->load(cast_btf_error_) && cast_btf_error_.empty())
      cast_btf_error_ = "the kernel's BTF could not be read";
  }
  if (cast_btf_->loaded()) return cast_btf_.get();
  if (!quiet) error(loc, "@cast needs the kernel's type information: " + cast_btf_error_, token);
  return nullptr;
}

// The type @cast names, or nothing (after an error unless quiet).
std::optional<TType> Lowerer::cast_type(const ast::CastExpr& n, bool quiet) {
  // A user binary's type, or (no module) the probed binary's in a process
  // probe, as stap defaults to the probe's module.
  // Not found there (no module named): the kernel's.
  if (user_cast(n)) {
    std::optional<TType> t = dwarf_cast_type(n, quiet || n.module.empty());  // lower_uprobe_target.cpp
    if (t || !n.module.empty()) return t;
  }
  std::string token = describe_expr(n);
  kernel::KernelBtf* btf = cast_btf(n.loc, token, quiet);
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

ir::Node* Lowerer::cast_expr(ast::CastExpr& n) {
  std::string token = describe_expr(n);
  if (body_ && body_->context == ir::Context::user && !body_->in_function) {
    error(n.loc, "@cast reads kernel memory, which this probe cannot: it runs in user space "
                 "(begin, end and timer.s/ms probes do); read it from a kernel-context probe",
          token);
    return num(0);
  }
  std::optional<TType> type = cast_type(n, false);
  if (!type) return num(0);
  Place p{*type, nullptr, expr(n.operand)};
  return finish_path(*this, n, p, n.components, n.address_of, n.pretty, false);
}

std::optional<bool> Lowerer::cast_exists(const ast::CastExpr& n) {
  std::optional<TType> type = cast_type(n, true);
  if (!type) return false;
  Place p{*type, nullptr, num(0)};
  return path_exists(*this, n, p, n.components, n.address_of, n.pretty);
}

ir::Node* Lowerer::at_var(ast::AtVar& n) {
  // User binaries, and the kernel's or a module's DWARF where the probe
  // has it or the @var names a file: lower_uprobe_target.cpp.
  if (uprobe_body() || n.module.find('/') != std::string::npos || dwarf_kernel() ||
      n.name.find('@') != std::string::npos)
    return dwarf_at_var(n);
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

}  // namespace stap::lower
