// Target variables of kernel-function probes, from BTF (no debuginfo),
// walked by target_path.cpp:
//   $param                fn_arg of its index, sized and signed as BTF says
//   $return               fn_ret (return probes)
//   $p->f->g, $p->a[i]    each pointer gone through is one kread; '->'
//                         also steps into embedded structs and unions, as
//                         in stap; [i] indexes arrays and pointers
//   &$p->f                the address, with nothing read
//   bitfields             the containing unit read, shifted, masked and
//                         sign-extended when the type is signed
//   char arrays           their address (a long, for kernel_string)
// and @defined over these.  Errors use stap's words (dwflpp.cxx).
#include <set>

#include "elaborate/typecheck.h"
#include "lower/kinds/kfunc.h"
#include "lower/target_path.h"

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

// How many registers (u64 slots) a parameter takes: one for a scalar or
// pointer, one or two for a struct or union of up to 16 bytes passed by
// value (tcp_setsockopt's sockptr_t), none (the stack) for a larger one.
int registers_of(const kernel::Param& p) {
  TType t = TType::of(p.type);
  TypeKind k = types::kind(t);
  if (k != TypeKind::struct_ && k != TypeKind::union_) return 1;
  uint32_t size = types::size(t);
  return size <= 8 ? 1 : size <= 16 ? 2 : 0;
}

constexpr int kArgumentRegisters = 6;

}  // namespace

// x86-64's C convention: each parameter takes the next free argument
// registers; one that takes two and finds only one free, or a struct too
// large for registers, goes to the stack, and the parameters after it
// still take the registers left.
std::vector<int> argument_registers(const kernel::Function& fn) {
  std::vector<int> out;
  int next = 0;
  for (const kernel::Param& p : fn.params) {
    int n = registers_of(p);
    if (n == 0 || next + n > kArgumentRegisters) {
      out.push_back(-1);
      continue;
    }
    out.push_back(next);
    next += n;
  }
  return out;
}

// The BPF trampoline's context holds one u64 slot per register a
// parameter takes, then the return value; it refuses a function with a
// parameter larger than 16 bytes (-1 here: kprobes only).
int64_t trampoline_slots(const kernel::Function& fn) {
  int64_t slots = 0;
  for (const kernel::Param& p : fn.params) {
    int n = registers_of(p);
    if (n == 0) return -1;
    slots += n;
  }
  return slots;
}

// The register a $name starts from: a parameter or the return value.
bool KfuncBody::base(const ast::TargetSymbol& n, Place& p, bool quiet) {
  const kernel::Function* fn = fn_ ? &*fn_ : nullptr;
  std::string token = describe_expr(n);
  auto fail = [&](const std::string& message) {
    if (!quiet) l_.error(n.loc, message, token);
    return false;
  };
  if (!fn) {
    std::string what = spec_.functions.size() == 1 ? "function " + spec_.functions[0]
                                                   : std::string("a probe over several functions");
    return fail("target variable '" + n.name + "' cannot be read: " + what +
                " has no BTF type information here (kernels with CONFIG_DEBUG_INFO_BTF "
                "describe their functions; a probe over several functions has no one set "
                "of parameters)");
  }
  std::string name = n.name.substr(1);
  if (name == "return" && spec_.is_return) {
    TType ret = TType::of(fn->ret);
    if (ret.is_void()) return fail("function " + function_text(*fn) + " has no return value");
    uint32_t size = register_size(ret);
    if (!size)
      return fail("the return value of " + function_text(*fn) + " (" + type_text(ret) +
                  ") is not returned in a register and cannot be read");
    ir::Node* v = l_.make(ir::Op::fn_ret, ir::Type::long_);
    v->b = size;
    v->c = value_signed(ret);
    p = Place{ret, v};
    return true;
  }
  std::vector<int> registers = argument_registers(*fn);
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const kernel::Param& param = fn->params[i];
    if (param.name != name) continue;
    if (registers[i] < 0)
      return fail("parameter '" + name + "' of " + function_text(*fn) + " is argument " +
                  std::to_string(i + 1) +
                  ", passed on the stack; only arguments passed in the 6 argument registers "
                  "can be read");
    TType type = TType::of(param.type);
    uint32_t size = register_size(type);
    if (!size)
      return fail("parameter '" + name + "' of " + function_text(*fn) + " is a " +
                  type_text(type) +
                  " passed by value, which cannot be read from the argument registers");
    ir::Node* v = l_.make(ir::Op::fn_arg, ir::Type::long_);
    v->a = registers[i];
    v->b = size;
    v->c = value_signed(type);
    p = Place{type, v};
    return true;
  }
  std::string sugs = suggest(name, param_names(*fn), 5);
  return fail("unable to find local '" + name + "' in " + function_text(*fn) + " (" +
              (sugs.empty() ? "<no alternatives>" : "alternatives: " + sugs) + ")");
}

ir::Node* KfuncBody::target(ast::TargetSymbol& n, bool any_type) {
  bool return_var = n.name == "$return" || n.name == "$$return";
  // stap reads every other target variable of a .return probe at entry
  // and keeps it for the return.
  if (spec_.is_return && !return_var && fn_) return l_.entry_value(n, any_type);
  if (n.name.starts_with("$$")) return all_vars(n);
  Place p;
  if (!base(n, p, false)) return l_.num(0);
  return finish_path(l_, n, p, n.components, n.address_of, n.pretty, any_type);
}

std::optional<bool> KfuncBody::target_exists(const ast::Expr& e) {
  auto* t = dynamic_cast<const ast::TargetSymbol*>(&e);
  if (!t) return std::nullopt;
  if (t->name.starts_with("$$"))
    return t->name == "$$vars" || t->name == "$$parms" || t->name == "$$locals" ||
           (t->name == "$$return" && spec_.is_return && fn_ && fn_->ret.id != 0);
  Place p;
  if (!base(*t, p, true)) return false;
  return path_exists(l_, *t, p, t->components, t->address_of, t->pretty);
}

// $$parms, $$vars, $$locals, $$return (and their $/$$ forms).
ir::Node* KfuncBody::all_vars(ast::TargetSymbol& n) {
  const kernel::Function* fn = fn_ ? &*fn_ : nullptr;
  if (!fn) {
    Place unused;
    base(n, unused, false);  // says why
    return l_.str("");
  }
  std::vector<NamedVar> vars;
  if (n.name == "$$return" && spec_.is_return) {
    if (fn->ret.id != 0) vars.push_back({"return", TType::of(fn->ret)});
  } else if (n.name != "$$locals") {
    // $$locals: BTF describes no locals; they need DWARF.
    for (const kernel::Param& param : fn->params)
      vars.push_back({param.name, TType::of(param.type)});
  }
  return vars_text(l_, n, vars, [&](const NamedVar& var, Place& p) {
    ast::TargetSymbol sym;
    sym.name = "$" + var.name;
    sym.loc = n.loc;
    return base(sym, p, true);
  });
}

}  // namespace stap::lower
