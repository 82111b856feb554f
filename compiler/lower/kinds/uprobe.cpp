// User-space code points (process("P").function/.statement/.plt/.mark,
// with .library) -> ir::UprobeSpec probes.
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
// statements are dwarf_vars.cpp's.
#include <set>

#include "debuginfo/process_points.h"
#include "elaborate/typecheck.h"
#include "lower/dwarf_vars.h"
#include "lower/kinds/kinds.h"

namespace stap::lower {

namespace {

// The pid of process(PID) points (0 otherwise): their uprobes fire in that
// process only.
int64_t point_pid(const ast::ProbePoint& point) {
  auto* n = dynamic_cast<const ast::NumberLit*>(point.components[0].arg);
  return n ? n->value : 0;
}

// The body of a process probe: DWARF's variables at its site, or a
// mark's arguments; probefunc(), probemod() and pp(); and the guards of
// process(PID) and .library("L") probes.
class UprobeBody : public DwarfSiteBody {
 public:
  UprobeBody(Lowerer& l, const ir::Probe& probe, const debuginfo::ResolvedPoint& point,
             const debuginfo::ProbeSite* site, SourceLoc loc)
      : DwarfSiteBody(l, DwarfSite{&point, site, /*kernel=*/false,
                                   std::get<ir::UprobeSpec>(probe.spec).is_return}),
        spec_(std::get<ir::UprobeSpec>(probe.spec)), loc_(loc) {}

  ir::Node* target(ast::TargetSymbol& n, bool any_type) override {
    if (site_.site && site_.site->mark) return mark_target(n, any_type);
    return DwarfSiteBody::target(n, any_type);
  }
  std::optional<bool> target_exists(const ast::Expr& e) override;
  ir::Node* builtin(ast::CallExpr& call) override;
  // Entry values need the function's DWARF (its probe address).
  bool at_return() const override { return site_.at_return && site_.site && site_.site->fn; }
  std::unique_ptr<EntryProbe> entry_probe(const ir::Probe& ret) override;
  ir::Node* guard(ir::Node* body, ir::Probe& probe) override;

 private:
  ir::Node* mark_target(ast::TargetSymbol& n, bool any_type);
  ir::Node* caller_check(const debuginfo::ProbeSite& site);
  ir::Node* mark_argument(const debuginfo::SdtMark& mark, size_t argno, const ast::TargetSymbol& n);

  const ir::UprobeSpec& spec_;
  SourceLoc loc_;  // the point's, for the guards' errors
};

class UprobeLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;
  void lower(const DerivedProbe& dp) override;

 private:
  void lower_one(const DerivedProbe& dp, ir::Probe&& probe, const debuginfo::ProbeSite* site) {
    UprobeBody context(l_, probe, *dp.user_point, site, dp.point->components[0].loc);
    l_.lower_body(dp, std::move(probe), context);
  }
};

void UprobeLowering::lower(const DerivedProbe& dp) {
  const debuginfo::ResolvedPoint& r = *dp.user_point;
  ir::UprobeSpec base;
  base.is_return = r.is_return;
  base.binary = r.binary->path;
  base.target_pid = point_pid(*dp.point);
  // Sites at one address are one, but for .callee's: each call of the
  // callee from the caller has its own caller check, so its own probe.
  std::vector<const debuginfo::ProbeSite*> sites;
  std::set<uint64_t> offsets;
  bool callee_sites = false;
  for (const debuginfo::ProbeSite& s : r.sites) {
    callee_sites |= !s.callers.empty();
    if (!s.callers.empty() || offsets.insert(s.offset).second) sites.push_back(&s);
  }
  auto add_site = [](ir::UprobeSpec& spec, const debuginfo::ProbeSite& s) {
    spec.offsets.push_back(s.offset);
    spec.semaphores.push_back(s.semaphore);
    spec.functions.push_back(s.function);
    spec.site_points.push_back(s.point);
  };
  if (callee_sites || reads_probe_context(dp)) {
    for (const debuginfo::ProbeSite* s : sites) {
      ir::UprobeSpec spec = base;
      add_site(spec, *s);
      lower_one(dp, kernel_probe(std::move(spec), s->point), s);
    }
    return;
  }
  ir::UprobeSpec spec = base;
  for (const debuginfo::ProbeSite* s : sites) add_site(spec, *s);
  std::string pp = sites.size() == 1 ? sites[0]->point : dp.point->to_string();
  lower_one(dp, kernel_probe(std::move(spec), std::move(pp)),
            sites.size() == 1 ? sites[0] : nullptr);
}

// probefunc(), probemod() and pp() in a uprobe's body: literals for one
// site, else the running site's entry in the probe's tables.  probemod()
// is the probed file's path, which is what stap's module table holds for
// a process.  Null for anything else.
ir::Node* UprobeBody::builtin(ast::CallExpr& call) {
  const std::string& name = call.name;
  if (name == "probemod") return l_.str(spec_.binary);
  if (name != "probefunc" && name != "pp") return nullptr;
  bool point = name == "pp";
  if (spec_.offsets.size() == 1) return l_.str(point ? spec_.site_points[0] : spec_.functions[0]);
  ir::Node* n = l_.make(ir::Op::fn_name, ir::Type::string);
  n->b = point ? 1 : 0;
  return n;
}

// The entry probe of a .return probe: at the function's probe address,
// where the parameters are in place (after the prologue of unoptimized
// code), not at the return site's first instruction.
std::unique_ptr<EntryProbe> UprobeBody::entry_probe(const ir::Probe& ret) {
  const debuginfo::ProbeSite& site = *site_.site;
  const debuginfo::Binary& bin = *site_.point->binary;
  auto e = std::make_unique<EntryProbe>();
  e->site = std::make_shared<debuginfo::ProbeSite>(site);
  // A callee's entry stays at its first instruction, where its caller
  // check reads the stack.
  if (bin.dwarf && site.fn && !site.fn->inlined && site.callers.empty()) {
    uint64_t pc = bin.dwarf->function_probe_pc(*site.fn);
    if (std::optional<uint64_t> offset = bin.elf->file_offset(pc)) {
      e->site->pc = pc;
      e->site->offset = *offset;
    }
  }
  const ir::UprobeSpec& r = std::get<ir::UprobeSpec>(ret.spec);
  ir::UprobeSpec spec;
  spec.binary = r.binary;
  spec.target_pid = r.target_pid;
  spec.offsets = {e->site->offset};
  spec.semaphores = r.semaphores;
  spec.functions = r.functions;
  spec.site_points = r.site_points;
  spec.is_return = false;
  e->probe.context = ir::Context::kernel;
  e->probe.spec = std::move(spec);
  e->probe.pp = ret.pp;
  if (e->probe.pp.ends_with(".return")) e->probe.pp.resize(e->probe.pp.size() - 7);
  e->context = std::make_unique<UprobeBody>(l_, e->probe, *site_.point, e->site.get(), loc_);
  return e;
}

ir::Node* UprobeBody::guard(ir::Node* body, ir::Probe& probe) {
  auto guarded = [&](ir::Node* cond, ir::Node* inner) {
    ir::Node* g = l_.make(ir::Op::if_);
    g->kids = {cond, inner, l_.nop()};
    ir::Node* block = l_.make(ir::Op::block);
    block->kids.push_back(g);
    return block;
  };
  const debuginfo::ResolvedPoint& point = *site_.point;
  if (point.binary->path != point.process) {
    // process("P").library("L"): the library's code runs in every program
    // that maps it; the probe is P's.
    if (ir::Node* runs = runs_image(l_, point.process, probe.slots, loc_))
      body = guarded(runs, body);
    else
      l_.error(loc_, "cannot stat " + point.process + " to scope the library probe to it");
  }
  if (site_.site && !site_.site->callers.empty()) {
    // .callee: the stack holds each caller's return address at its level
    // (checked at the entry, for a .return through an entry value).
    const debuginfo::ProbeSite& site = *site_.site;
    auto check = [&] { return caller_check(site); };
    body = guarded(spec_.is_return ? l_.entry_node(check) : check(), body);
  }
  if (spec_.target_pid > 0) {
    // process(PID): every thread of that process.  (A uprobe attached for
    // one pid follows that one thread only, so the filter is here.)
    body = guarded(l_.long_op(ir::Op::eq, l_.builtin_call("pid"), l_.num(spec_.target_pid)), body);
  }
  return body;
}

// Whether the calls that led to a callee's first instruction are the
// site's: ustack(k) == callers[k-1] for each level k, both relocated by
// the load bias (uaddr() - the site's link-time pc).  ustack past the
// last frame is 0 here (c = 1), not an error: the chain is not the site's.
ir::Node* UprobeBody::caller_check(const debuginfo::ProbeSite& site) {
  ir::Node* all = nullptr;
  for (size_t k = 1; k <= site.callers.size(); ++k) {
    ir::Node* frame = l_.builtin_call("ustack", {l_.num(int64_t(k))});
    frame->c = 1;
    ir::Node* expected = l_.long_op(ir::Op::add, l_.builtin_call("uaddr"),
                                    l_.num(int64_t(site.callers[k - 1] - site.pc)));
    ir::Node* same = l_.long_op(ir::Op::eq, frame, expected);
    all = all ? l_.long_op(ir::Op::log_and, all, same) : same;
  }
  return all;
}

// Mark argument `argno` (1-based) of the site being lowered.
ir::Node* UprobeBody::mark_argument(const debuginfo::SdtMark& mark, size_t argno,
                                    const ast::TargetSymbol& n) {
  std::string token = describe_expr(n);
  if (!mark.arg_error.empty()) {
    l_.error(n.loc, "cannot read the arguments of mark \"" + mark.name + "\": " + mark.arg_error,
          token);
    return l_.num(0);
  }
  const debuginfo::SdtOperand& op = mark.args[argno - 1];
  if (!op.symbol.empty()) {
    l_.limitation(n.loc, "mark argument " + std::to_string(argno) + " (" + op.text +
                     ") refers to a symbol, which this engine does not read yet", token);
    return l_.num(0);
  }
  if (op.kind == debuginfo::SdtOperand::immediate) return l_.num(op.value);
  if (op.kind == debuginfo::SdtOperand::in_reg)
    return l_.user_register(op.reg, op.size, op.reg_shift, op.is_signed, n.loc, token);
  // [disp](%base[,%index[,scale]])
  ir::Node* address = l_.num(op.value);
  auto add = [&](ir::Node* term) {
    ir::Node* sum = l_.make(ir::Op::add, ir::Type::long_);
    sum->kids = {address, term};
    address = sum;
  };
  if (op.reg >= 0) add(l_.user_register(op.reg, 8, 0, false, n.loc, token));
  if (op.index_reg >= 0) {
    ir::Node* scaled = l_.make(ir::Op::mul, ir::Type::long_);
    scaled->kids = {l_.user_register(op.index_reg, 8, 0, false, n.loc, token), l_.num(op.scale)};
    add(scaled);
  }
  ir::Node* read = l_.make(ir::Op::uread, ir::Type::long_);
  read->kids = {address};
  read->b = op.size;
  read->c = op.is_signed ? 1 : 0;
  read->loc = l_.location(n.loc, token);
  return read;
}

ir::Node* UprobeBody::mark_target(ast::TargetSymbol& n, bool any_type) {
  const debuginfo::SdtMark& mark = *site_.site->mark;
  std::string token = describe_expr(n);
  if (n.address_of) {
    l_.error(n.loc, "cannot take address of context variable", token);
    return l_.num(0);
  }
  if (n.name == "$$name") return l_.str(mark.name);
  if (n.name == "$$provider") return l_.str(mark.provider);
  if (n.name == "$$vars" || n.name == "$$parms") {
    // stap's "$arg1=%#x $arg2=%#x" over the mark's arguments.
    std::string format;
    ir::Node* s = l_.make(ir::Op::sprintf, ir::Type::string);
    for (size_t i = 1; i <= mark.args.size(); ++i) {
      format += (i > 1 ? " $arg" : "$arg") + std::to_string(i) + "=%#x";
      ast::TargetSymbol arg;
      arg.name = "$arg" + std::to_string(i);
      arg.loc = n.loc;
      s->kids.push_back(mark_argument(mark, i, arg));
    }
    s->a = l_.module().add_format(format);
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
    l_.error(n.loc, "target-symbol requires debuginfo", token);
    return l_.num(0);
  }
  if (!n.components.empty()) {
    l_.error(n.loc, "mark arguments are plain numbers: " + token + " cannot be dereferenced here "
                 "(use @cast or user_* functions on the value)", token);
    return l_.num(0);
  }
  return l_.checked_long(mark_argument(mark, argno, n), n, any_type);
}

std::optional<bool> UprobeBody::target_exists(const ast::Expr& e) {
  const debuginfo::ProbeSite* site = site_.site;
  auto* t = dynamic_cast<const ast::TargetSymbol*>(&e);
  if (!site || !t) return std::nullopt;
  if (!site->mark) return DwarfSiteBody::target_exists(e);
  if (!t->components.empty()) return false;
  const std::string& name = t->name;
  if (name == "$$name" || name == "$$provider" || name == "$$vars" || name == "$$parms") return true;
  if (!name.starts_with("$arg")) return false;
  const std::string digits = name.substr(4);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  size_t argno = std::stoul(digits);
  return argno >= 1 && argno <= site->mark->args.size();
}

}  // namespace

std::unique_ptr<KindLowering> make_uprobe_lowering(Lowerer& l) {
  return std::make_unique<UprobeLowering>(l);
}

}  // namespace stap::lower
