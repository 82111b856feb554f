// User-space code points (process("P").function/.statement/.plt/.mark,
// with .library) -> ir::Probe of kind uprobe.
//
// Pass 2 resolved each point to its sites in one binary (DerivedProbe::
// user_point, debuginfo/process_points.h).  As for kernel functions, a
// body that reads the site's context ($x, $$parms, @entry) becomes one
// probe per site, since each site has its own variables and locations;
// any other body becomes one probe over every site, one program attached
// at each (the site's index is the attach cookie: probefunc() and pp()
// read it at run time).  Symbol aliases at one address are one site.
//
// Marks' arguments ($argN, $$parms, $$vars, $$name, $$provider) are read
// here from the SDT operands: registers from the uprobe's pt_regs, memory
// operands from the process's memory.  DWARF variables of functions and
// statements are lower_uprobe_target.cpp's.
#include <map>
#include <set>
#include <tuple>

#include "debuginfo/dwarf_location.h"
#include "debuginfo/process_points.h"
#include "elaborate/typecheck.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

// struct pt_regs' ax on x86-64: where a function's value is returned.
constexpr int64_t kRegAxOffset = 80;

// The pid of process(PID) points (0 otherwise): their uprobes fire in that
// process only.
int64_t point_pid(const ast::ProbePoint& point) {
  auto* n = dynamic_cast<const ast::NumberLit*>(point.components[0].arg);
  return n ? n->value : 0;
}

}  // namespace

void Lowerer::lower_uprobe_points(const DerivedProbe& dp) {
  const debuginfo::ResolvedPoint& r = *dp.user_point;
  ir::Probe base;
  base.kind = ir::ProbeKind::uprobe;
  base.context = ir::Context::kernel;
  base.is_return = r.is_return;
  base.binary = r.binary->path;
  base.target_pid = point_pid(*dp.point);
  std::vector<const debuginfo::ProbeSite*> sites;
  std::set<uint64_t> offsets;
  for (const debuginfo::ProbeSite& s : r.sites)
    if (offsets.insert(s.offset).second) sites.push_back(&s);
  auto add_site = [](ir::Probe& p, const debuginfo::ProbeSite& s) {
    p.offsets.push_back(s.offset);
    p.semaphores.push_back(s.semaphore);
    p.functions.push_back(s.function);
    p.site_points.push_back(s.point);
  };
  if (reads_probe_context(dp)) {
    for (const debuginfo::ProbeSite* s : sites) {
      ir::Probe probe = base;
      probe.pp = s->point;
      add_site(probe, *s);
      lower_uprobe_body(dp, std::move(probe), s);
    }
    return;
  }
  ir::Probe probe = base;
  for (const debuginfo::ProbeSite* s : sites) add_site(probe, *s);
  probe.pp = sites.size() == 1 ? sites[0]->point : dp.point->to_string();
  lower_uprobe_body(dp, std::move(probe), sites.size() == 1 ? sites[0] : nullptr);
}

void Lowerer::lower_uprobe_body(const DerivedProbe& dp, ir::Probe probe,
                                const debuginfo::ProbeSite* site) {
  uprobe_point_ = dp.user_point.get();
  uprobe_site_ = site;
  lower_body(dp, std::move(probe));
  uprobe_point_ = nullptr;
  uprobe_site_ = nullptr;
}

bool Lowerer::uprobe_body() const {
  return body_ && body_->uprobe_probe;
}

// probefunc(), probemod() and pp() in a uprobe's body: literals for one
// site, else the running site's entry in the probe's tables.  probemod()
// is the probed file's path, which is what stap's module table holds for
// a process.  register("rax")/u_register() and returnval() read the saved
// user registers (register_value).  Null for anything else.
ir::Node* Lowerer::uprobe_builtin(ast::CallExpr& call) {
  const std::string& name = call.name;
  // The registers are the running program's context, in a probe's body
  // or a function it calls (codegen refuses them where there are none).
  if (name == "register" || name == "u_register") return register_value(call);
  if (name == "returnval") {
    ir::Node* v = make(ir::Op::reg, ir::Type::long_);
    v->a = kRegAxOffset;
    return v;
  }
  if (!uprobe_body() || body_->in_function) return nullptr;
  const ir::Probe& probe = *body_->uprobe_probe;
  if (name == "probemod") return str(probe.binary);
  if (name != "probefunc" && name != "pp") return nullptr;
  bool point = name == "pp";
  if (probe.offsets.size() == 1) return str(point ? probe.site_points[0] : probe.functions[0]);
  ir::Node* n = make(ir::Op::fn_name, ir::Type::string);
  n->b = point ? 1 : 0;
  return n;
}

// register("NAME") / u_register("NAME"): a register by stap's x86-64
// names ("rax", "eax", "ax", "al", "rip", "orig_rax", "r8"...).  The
// 32/16/8-bit names give the low part, sign-extended by register() and
// zero-extended by u_register(), as stap's tapset does.
ir::Node* Lowerer::register_value(ast::CallExpr& call) {
  std::string token = describe_expr(call);
  auto* lit = call.args.empty() ? nullptr : dynamic_cast<ast::StringLit*>(call.args[0]);
  if (!lit) {
    error(call.loc, call.name + "() needs the register's name as a literal string here", token);
    return num(0);
  }
  static const std::map<std::string, int64_t> kOffsets = {
      {"r15", 0},  {"r14", 8},   {"r13", 16},  {"r12", 24},       {"rbp", 32},  {"rbx", 40},
      {"r11", 48}, {"r10", 56},  {"r9", 64},   {"r8", 72},        {"rax", 80},  {"rcx", 88},
      {"rdx", 96}, {"rsi", 104}, {"rdi", 112}, {"orig_rax", 120}, {"rip", 128}, {"xcs", 136},
      {"eflags", 144}, {"rsp", 152}, {"xss", 160}};
  static const std::map<std::string, std::pair<std::string, uint32_t>> kParts = {
      {"ebp", {"rbp", 4}}, {"ebx", {"rbx", 4}}, {"eax", {"rax", 4}}, {"ecx", {"rcx", 4}},
      {"edx", {"rdx", 4}}, {"esi", {"rsi", 4}}, {"edi", {"rdi", 4}}, {"orig_eax", {"orig_rax", 4}},
      {"eip", {"rip", 4}}, {"esp", {"rsp", 4}}, {"bp", {"rbp", 2}},  {"bx", {"rbx", 2}},
      {"ax", {"rax", 2}},  {"cx", {"rcx", 2}},  {"dx", {"rdx", 2}},  {"si", {"rsi", 2}},
      {"di", {"rdi", 2}},  {"ip", {"rip", 2}},  {"sp", {"rsp", 2}},  {"bl", {"rbx", 1}},
      {"al", {"rax", 1}},  {"cl", {"rcx", 1}},  {"dl", {"rdx", 1}}};
  std::string reg = lit->value;
  uint32_t size = 8;
  if (auto part = kParts.find(reg); part != kParts.end()) std::tie(reg, size) = part->second;
  auto at = kOffsets.find(reg);
  if (at == kOffsets.end()) {
    error(lit->loc, "Unknown register: " + lit->value, describe_expr(*lit));
    return num(0);
  }
  ir::Node* v = make(ir::Op::reg, ir::Type::long_);
  v->a = at->second;
  if (size == 8) return v;
  return narrow_register(v, size, call.name == "register");
}

// ---------------------------------------------------------------- marks

// A saved register of the probed thread, `size` bytes of it from bit
// `shift` (%ah: 8), sign- or zero-extended.
ir::Node* Lowerer::user_register(int dwarf_reg, uint32_t size, uint32_t shift, bool is_signed,
                                 SourceLoc loc, const std::string& token) {
  std::optional<uint32_t> offset = debuginfo::pt_regs_offset(dwarf_reg);
  if (!offset) {
    error(loc, "register " + debuginfo::register_name(dwarf_reg) +
                   " is not in the probed thread's saved registers", token);
    return num(0);
  }
  ir::Node* v = make(ir::Op::reg, ir::Type::long_);
  v->a = *offset;
  if (shift) {
    ir::Node* shifted = make(ir::Op::shr, ir::Type::long_);
    shifted->kids = {v, num(shift)};
    ir::Node* mask = make(ir::Op::bit_and, ir::Type::long_);
    mask->kids = {shifted, num(0xff)};
    v = mask;
  }
  return narrow_register(v, size, is_signed);
}

// The low `size` bytes of a register value, sign- or zero-extended.
ir::Node* Lowerer::narrow_register(ir::Node* v, uint32_t size, bool is_signed) {
  if (size >= 8) return v;
  if (!is_signed) {
    ir::Node* masked = make(ir::Op::bit_and, ir::Type::long_);
    masked->kids = {v, num(static_cast<int64_t>((uint64_t{1} << (8 * size)) - 1))};
    return masked;
  }
  // Shift the low bytes up and arithmetically back.
  int64_t bits = 64 - 8 * static_cast<int64_t>(size);
  ir::Node* up = make(ir::Op::shl, ir::Type::long_);
  up->kids = {v, num(bits)};
  ir::Node* down = make(ir::Op::shr, ir::Type::long_);
  down->kids = {up, num(bits)};
  return down;
}

// Mark argument `argno` (1-based) of the site being lowered.
ir::Node* Lowerer::mark_argument(const debuginfo::SdtMark& mark, size_t argno,
                                 const ast::TargetSymbol& n) {
  std::string token = describe_expr(n);
  if (!mark.arg_error.empty()) {
    error(n.loc, "cannot read the arguments of mark \"" + mark.name + "\": " + mark.arg_error,
          token);
    return num(0);
  }
  const debuginfo::SdtOperand& op = mark.args[argno - 1];
  if (!op.symbol.empty()) {
    error(n.loc, "mark argument " + std::to_string(argno) + " (" + op.text +
                     ") refers to a symbol, which this engine does not read yet", token);
    return num(0);
  }
  if (op.kind == debuginfo::SdtOperand::immediate) return num(op.value);
  if (op.kind == debuginfo::SdtOperand::in_reg)
    return user_register(op.reg, op.size, op.reg_shift, op.is_signed, n.loc, token);
  // [disp](%base[,%index[,scale]])
  ir::Node* address = num(op.value);
  auto add = [&](ir::Node* term) {
    ir::Node* sum = make(ir::Op::add, ir::Type::long_);
    sum->kids = {address, term};
    address = sum;
  };
  if (op.reg >= 0) add(user_register(op.reg, 8, 0, false, n.loc, token));
  if (op.index_reg >= 0) {
    ir::Node* scaled = make(ir::Op::mul, ir::Type::long_);
    scaled->kids = {user_register(op.index_reg, 8, 0, false, n.loc, token), num(op.scale)};
    add(scaled);
  }
  ir::Node* read = make(ir::Op::uread, ir::Type::long_);
  read->kids = {address};
  read->b = op.size;
  read->c = op.is_signed ? 1 : 0;
  read->loc = location(n.loc, token);
  return read;
}

ir::Node* Lowerer::mark_target(ast::TargetSymbol& n, bool any_type) {
  const debuginfo::SdtMark& mark = *body_->uprobe_site->mark;
  std::string token = describe_expr(n);
  if (n.address_of) {
    error(n.loc, "cannot take address of context variable", token);
    return num(0);
  }
  if (n.name == "$$name") return str(mark.name);
  if (n.name == "$$provider") return str(mark.provider);
  if (n.name == "$$vars" || n.name == "$$parms") {
    // stap's "$arg1=%#x $arg2=%#x" over the mark's arguments.
    std::string format;
    ir::Node* s = make(ir::Op::sprintf, ir::Type::string);
    for (size_t i = 1; i <= mark.args.size(); ++i) {
      format += (i > 1 ? " $arg" : "$arg") + std::to_string(i) + "=%#x";
      ast::TargetSymbol arg;
      arg.name = "$arg" + std::to_string(i);
      arg.loc = n.loc;
      s->kids.push_back(mark_argument(mark, i, arg));
    }
    s->a = module().add_format(format);
    return s;
  }
  size_t argno = 0;
  if (n.name.starts_with("$arg")) {
    const std::string digits = n.name.substr(4);
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos)
      argno = std::stoul(digits);
  }
  if (argno < 1 || argno > mark.args.size()) {
    // stap's words: such a name could only come from DWARF.
    error(n.loc, "target-symbol requires debuginfo", token);
    return num(0);
  }
  if (!n.components.empty()) {
    error(n.loc, "mark arguments are plain numbers: " + token + " cannot be dereferenced here "
                 "(use @cast or user_* functions on the value)", token);
    return num(0);
  }
  return checked_long(mark_argument(mark, argno, n), n, any_type);
}

// ---------------------------------------------------------------- dispatch

ir::Node* Lowerer::uprobe_target(ast::TargetSymbol& n, bool any_type) {
  const debuginfo::ProbeSite* site = body_->uprobe_site;
  if (!site) {
    // A probe over many sites reads no variable (lower_uprobe_points); a
    // function body lands here.
    error(n.loc, "target variable '" + n.name + "' has no probe context to be read from here",
          describe_expr(n));
    return num(0);
  }
  if (site->mark) return mark_target(n, any_type);
  return dwarf_target(n, any_type);  // lower_uprobe_target.cpp
}

std::optional<bool> Lowerer::uprobe_exists(const ast::Expr* e) {
  const debuginfo::ProbeSite* site = body_->uprobe_site;
  auto* t = dynamic_cast<const ast::TargetSymbol*>(e);
  if (!site || !t) return std::nullopt;
  if (!site->mark) return dwarf_exists(e);
  if (!t->components.empty()) return false;
  const std::string& name = t->name;
  if (name == "$$name" || name == "$$provider" || name == "$$vars" || name == "$$parms") return true;
  if (!name.starts_with("$arg")) return false;
  const std::string digits = name.substr(4);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  size_t argno = std::stoul(digits);
  return argno >= 1 && argno <= site->mark->args.size();
}

}  // namespace stap::lower
