// procfs("PATH").read / .write (ir::ProcfsSpec): files the script serves,
// run in user context by the runtime over FIFOs
// (loader/attach/procfs_files.h).  $value is the file's text: read in a
// write probe (ir::Op::procfs_value), assigned or appended to in a read
// probe (ir::Op::set_procfs_value); pass 2 checked which is allowed where
// (elaborate/providers/procfs.cpp).
#include <algorithm>
#include <map>

#include "lower/kinds/kinds.h"

namespace stap::lower {

namespace {

class ProcfsBody : public BodyContext {
 public:
  using BodyContext::BodyContext;

  // In a read probe the text so far, which `$value .= x` extends.
  ir::Node* target(ast::TargetSymbol&, bool) override {
    return l_.make(ir::Op::procfs_value, ir::Type::string);
  }
  ir::Node* assign_target(ast::TargetSymbol& n, ir::Node* value) override {
    ir::Node* set = l_.make(ir::Op::set_procfs_value, ir::Type::string);
    set->kids = {value};
    set->loc = l_.location(n);  // "buffer size exceeded" is said near $value
    return set;
  }
};

int64_t number_of(const ast::ProbePoint& point, const char* functor) {
  for (const ast::ProbePointComponent& c : point.components)
    if (c.functor == functor)
      if (auto* n = dynamic_cast<const ast::NumberLit*>(c.arg)) return n->value;
  return -1;
}

class ProcfsLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;

  void lower(const DerivedProbe& dp) override {
    const ast::ProbePoint& point = *dp.point;
    const ast::ProbePointComponent& head = point.components[0];
    auto* name = dynamic_cast<const ast::StringLit*>(head.arg);
    ir::ProcfsSpec spec;
    // stap's default file, so procfs.read and procfs("command").write meet.
    spec.path = name ? name->value : "command";
    spec.write = point.components.back().functor == "write";
    spec.maxsize = std::max<int64_t>(number_of(point, "maxsize"), 0);
    int64_t umask = number_of(point, "umask");
    spec.umask = umask >= 0 ? umask : spec.write ? 022 : 044;
    if (!claim(spec, head.loc)) return;
    ir::Probe probe;
    probe.pp = point.to_string();
    probe.context = ir::Context::user;
    probe.spec = spec;
    ProcfsBody context(l_);
    l_.lower_body(dp, std::move(probe), context);
  }

 private:
  // A FIFO carries data one way, so a file has one read probe or write
  // probes, not both (stapbpf's rule; stap's kernel module allows both).
  bool claim(const ir::ProcfsSpec& spec, SourceLoc loc) {
    if (spec.is_stdin() && !spec.write) {
      l_.error(loc,
               "procfs(\"__stdin\") is the script's standard input: only write probes "
               "(input.char, input.line) can use it",
               "identifier 'procfs'");
      return false;
    }
    auto [it, first] = directions_.try_emplace(spec.path, spec.write);
    if (first) return true;
    if (it->second != spec.write) {
      l_.limitation(loc,
               "both read and write procfs probes cannot exist for the same procfs path \"" +
                   spec.path + "\" in the bpf runtime (a FIFO carries data one way)",
               "identifier 'procfs'");
      return false;
    }
    if (!spec.write) {
      l_.error(loc, "only one read procfs probe can exist for procfs path \"" + spec.path + "\"",
               "identifier 'procfs'");
      return false;
    }
    return true;
  }

  std::map<std::string, bool> directions_;  // path -> has write probes
};

}  // namespace

std::unique_ptr<KindLowering> make_procfs_lowering(Lowerer& l) {
  return std::make_unique<ProcfsLowering>(l);
}

}  // namespace stap::lower
