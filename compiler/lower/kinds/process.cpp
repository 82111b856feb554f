// Process life events and system calls (stapprobes(3stap), USER-SPACE):
//   process[("P"|PID)].begin / .end / .thread.begin / .thread.end
//   process[("P"|PID)].syscall / .syscall.return  ($syscall, $argN, $return)
// stap reports these through its task finder (utrace); here each becomes a
// probe on a mechanism the kernel already offers, so nothing new reaches
// codegen or the loader:
//   .begin           the new process's first return from fork, vfork,
//                    clone or clone3 (raw sys_exit with 0, an ir::SyscallSpec
//                    of those numbers): it runs in the child, as stap's does
//                    (its clone report runs the probe from the child's
//                    task_work); and an exec (sched:sched_process_exec, in
//                    the new image), where stap's task finder reports the
//                    process again with its new path.
//   .thread.begin    the same first return, in a thread (tid != pid).
//   .end             sched:sched_process_exit of the group's last thread
//   .thread.end      (signal->live == 0, stap's process_p at death) or of
//                    another thread.  Two threads leaving at once can both
//                    read live == 0: the first to claim the process in a
//                    hidden map ends it, the other gets .thread.end
//                    (ProcessIr::exit_role).
//   .syscall[.return] raw sys_enter/sys_exit for every call.
// Each body is guarded by its scope:
//   process(PID)     pid() == PID.
//   process("P")     the running image is P: its exe_file's inode and device
//                    (current->mm, read with kread at offsets from the
//                    kernel's BTF) against stat(P) taken at compile time.  At
//                    exit the mm is gone on 6.1 (the tracepoint follows
//                    exit_mm), so a tracker records each process's image at
//                    fork and exec in a hidden map, which .end reads.
//   process          with -c or -x (target() != 0), only the target's
//                    process tree: a hidden map of the tree's pids, which a
//                    tracker on sched:sched_process_fork fills (and clears
//                    for a reused pid outside the tree); else every process.
// Processes already running: stap runs .begin (and .thread.begin) once for
// each, in its context.  Here the same body is also lowered in user
// context (ir::RunningTasksSpec), which the runtime runs once per such
// task after attaching, its context functions answering for the task
// (loader/session/running_tasks.cpp); a body that needs a kernel probe
// (task_current(), cmdline_str() ...) runs for new tasks only,
// with a warning.
// Not as stap: a process that predates the script and is probed by path
// gets its .end only where the kernel keeps the mm until
// sched_process_exit (6.18, not 6.1).  stap's
// task finder also reports an .end for the old image at exec; here exec
// gives the new image's .begin only.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <functional>
#include <set>

#include "ast/visitor.h"
#include "debuginfo/binary_path.h"
#include "elaborate/typecheck.h"
#include "ir/memory_readers.h"
#include "lower/kinds/kinds.h"
#include "lower/trace_events.h"

namespace stap::lower {

namespace {

// Where a body (or a function it calls) names task_current(): the
// runtime answers it with its own thread (loader/interp/kernel_memory.h),
// not with the running task it reports, so such a body does not run for
// those tasks.  `found` stays null when it does not.
struct CurrentTaskFinder : ast::TraversingVisitor {
  std::set<const ast::FunctionDecl*> seen;
  ast::CallExpr* found = nullptr;
  void visit(ast::CallExpr& n) override {
    ast::TraversingVisitor::visit(n);
    if (found) return;
    if (!n.decl && answers_for_runtime(n.name)) found = &n;
    else if (n.decl && n.decl->body && seen.insert(n.decl).second) n.decl->body->accept(*this);
  }
  // Builtins whose user-context answer is the runtime's own task, not the
  // running one: its task, its memory (user_*), its lack of registers.
  static bool answers_for_runtime(const std::string& name) {
    static const std::set<std::string, std::less<>> names = {"task_current", "probefunc", "addr",
                                                             "user_mode", "is_return"};
    const ir::NumberReader* reader = ir::find_number_reader(name);
    return names.contains(name) || name.starts_with("user_string") ||
           name.starts_with("user_buffer") || (reader && reader->user);
  }
};

// process.begin/.end/.thread.*/.syscall[.return].
enum class ProcessEvent : uint8_t { begin, end, thread_begin, thread_end, syscall, syscall_return };

// x86-64 numbers of the calls a new task first returns from.
constexpr int64_t kForkCalls[] = {56 /*clone*/, 57 /*fork*/, 58 /*vfork*/, 435 /*clone3*/};
// Mixes an image's device into its inode number: one long per image.
constexpr uint64_t kDevMix = 0x9E3779B97F4A7C15ull;
// Processes each hidden map remembers (the least recently used give way).
constexpr int64_t kTrackedProcesses = 65536;
constexpr const char* kToken = "identifier 'process'";

bool has(const ast::ProbePoint& point, const char* functor) {
  for (size_t i = 1; i < point.components.size(); ++i)
    if (point.components[i].functor == functor) return true;
  return false;
}

ProcessEvent event_of(const ast::ProbePoint& point) {
  bool thread = has(point, "thread");
  if (has(point, "syscall"))
    return has(point, "return") ? ProcessEvent::syscall_return : ProcessEvent::syscall;
  if (has(point, "begin")) return thread ? ProcessEvent::thread_begin : ProcessEvent::begin;
  return thread ? ProcessEvent::thread_end : ProcessEvent::end;
}

const char* event_text(ProcessEvent e) {
  switch (e) {
    case ProcessEvent::begin: return "begin";
    case ProcessEvent::end: return "end";
    case ProcessEvent::thread_begin: return "thread.begin";
    case ProcessEvent::thread_end: return "thread.end";
    case ProcessEvent::syscall: return "syscall";
    case ProcessEvent::syscall_return: return "syscall.return";
  }
  return "";
}

// What one process point filters on.
struct ProcessPoint {
  ProcessEvent event = ProcessEvent::begin;
  int64_t pid = 0;   // process(PID)
  std::string path;  // process("P"), canonical
  int64_t image = 0; // stat(path) as ProcessIr::image() computes it in the kernel
};

// The hidden maps of a compilation's process probes (-1: none yet): the
// -c tree's pids, and each process's image.
struct ProcessMaps {
  int tree = -1;
  int images = -1;
};

// The IR the guards and trackers are made of.
class ProcessIr {
 public:
  ProcessIr(Lowerer& l, SourceLoc loc, ProcessMaps* maps = nullptr) : l_(l), loc_(loc), maps_(maps) {
    kread_loc_ = l.location(loc, kToken);
  }

  ir::Node* builtin(const char* name) { return l_.builtin_call(name); }
  ir::Node* op(ir::Op o, ir::Node* x, ir::Node* y) { return l_.long_op(o, x, y); }
  ir::Node* num(int64_t v) { return l_.num(v); }
  ir::Node* kread(ir::Node* address, int64_t offset, int64_t size) {
    ir::Node* n = l_.make(ir::Op::kread, ir::Type::long_);
    n->kids = {op(ir::Op::add, address, num(offset))};
    n->b = size;
    n->loc = kread_loc_;
    return n;
  }
  // A temporary's value, or (value given) its assignment.
  ir::Node* local(int slot, ir::Node* value = nullptr) {
    ir::Node* n = l_.make(value ? ir::Op::set_local : ir::Op::local, ir::Type::long_);
    n->a = slot;
    if (value) n->kids = {value};
    return n;
  }
  ir::Node* cond(ir::Node* test, ir::Node* then, ir::Node* otherwise) {
    ir::Node* n = l_.make(ir::Op::cond, ir::Type::long_);
    n->kids = {test, then, otherwise};
    return n;
  }
  ir::Node* map_op(ir::Op o, int global, std::vector<ir::Node*> kids) {
    ir::Node* n = l_.make(o, o == ir::Op::delete_elem ? ir::Type::none : ir::Type::long_);
    n->a = global;
    n->kids = std::move(kids);
    return n;
  }
  static int temp(std::vector<ir::Type>& slots) {
    slots.push_back(ir::Type::long_);
    return int(slots.size() - 1);
  }

  // The byte offset of `member` in struct `type`, from the kernel's BTF;
  // -1 after an error.
  int64_t offset(const char* type, const char* member) {
    kernel::KernelBtf* btf = l_.btf(loc_, kToken, true);
    std::optional<kernel::Type> t =
        btf ? btf->find_type(std::string("struct ") + type) : std::nullopt;
    std::optional<kernel::Member> m = t ? kernel::KernelBtf::member(*t, member) : std::nullopt;
    if (m) return m->bit_offset / 8;
    if (!failed_)
      l_.error(loc_,
               std::string("process probes need the kernel's type information (BTF): no ") +
                   type + "." + member,
               kToken);
    failed_ = true;
    return -1;
  }

  // The current task's running image as one long, 0 for a task without
  // one (a kernel thread, or an exiting task whose mm is gone):
  //   mm = task->mm; inode = mm->exe_file->f_inode;
  //   inode->i_ino ^ (inode->i_sb->s_dev * kDevMix)
  ir::Node* image(std::vector<ir::Type>& slots) {
    int64_t mm = offset("task_struct", "mm"), exe = offset("mm_struct", "exe_file"),
            f_inode = offset("file", "f_inode"), ino = offset("inode", "i_ino"),
            sb = offset("inode", "i_sb"), dev = offset("super_block", "s_dev");
    if (mm < 0 || exe < 0 || f_inode < 0 || ino < 0 || sb < 0 || dev < 0) return num(0);
    int s_mm = temp(slots), s_file = temp(slots), s_inode = temp(slots);
    auto nonzero = [&](ir::Node* v) { return op(ir::Op::ne, v, num(0)); };
    ir::Node* have = op(
        ir::Op::log_and, nonzero(local(s_mm, kread(builtin("task_current"), mm, 8))),
        op(ir::Op::log_and, nonzero(local(s_file, kread(local(s_mm), exe, 8))),
           nonzero(local(s_inode, kread(local(s_file), f_inode, 8)))));
    ir::Node* kdev = kread(kread(local(s_inode), sb, 8), dev, 4);
    ir::Node* ident = op(ir::Op::bit_xor, kread(local(s_inode), ino, 8),
                         op(ir::Op::mul, kdev, num(int64_t(kDevMix))));
    return cond(have, ident, num(0));
  }
  static int64_t image_of(const struct stat& st) {
    uint64_t kernel_dev = (uint64_t(major(st.st_dev)) << 20) | minor(st.st_dev);
    return int64_t(uint64_t(st.st_ino) ^ (kernel_dev * kDevMix));
  }

  // Whether the current thread's group is dead: task->signal->live,
  // decremented before sched_process_exit (6.1 and 6.18); see exit_role().
  ir::Node* group_dead() {
    int64_t signal = offset("task_struct", "signal"), live = offset("signal_struct", "live");
    if (signal < 0 || live < 0) return num(0);
    return op(ir::Op::eq, kread(kread(builtin("task_current"), signal, 8), live, 4), num(0));
  }

  // A hidden kernel probe on SYSTEM:EVENT (sched unless named) whose one
  // statement `body` makes.
  void tracker(const char* event,
               const std::function<ir::Node*(ir::Probe&, const tracefs::Format&)>& body,
               const char* system = "sched") {
    const tracefs::Format* format = l_.trace_events().format({system, event}, loc_);
    if (!format) return;
    ir::Probe probe;
    probe.context = ir::Context::kernel;
    probe.spec = ir::TracepointSpec{system, event};
    probe.pp = std::string("kernel.trace(\"") + system + ":" + event + "\")";
    ir::Node* stmt = l_.make(ir::Op::expr);
    stmt->kids = {body(probe, *format)};
    probe.body = l_.make(ir::Op::block);
    probe.body->kids = {stmt};
    l_.module().probes.push_back(std::move(probe));
  }

  // sched_process_fork's child pid (or another event's pid `field`).
  ir::Node* fork_child(const tracefs::Format& format, const char* field = "child_pid") {
    const tracefs::Field* f = format.find(field);
    if (!f) {
      l_.error(loc_, std::string("no field ") + field + " in the tracepoint's format", kToken);
      return num(0);
    }
    ir::Node* n = l_.make(ir::Op::tp_field, ir::Type::long_);
    n->a = f->offset;
    n->b = f->size;
    n->c = 1;
    return n;
  }

  int hidden_map(const char* name) {
    ir::Global g;
    g.name = name;
    g.keys = {ir::Type::long_};
    g.max_entries = kTrackedProcesses;
    g.wrap = true;
    return l_.hidden_global(std::move(g));
  }

  // The -c/-x target's process tree (pids), for bare process probes: at
  // each fork, the child joins when its parent is in the tree, and leaves
  // (a reused pid) otherwise.
  int tree() {
    if (maps_->tree >= 0) return maps_->tree;
    int tree = maps_->tree = hidden_map("__process_tree");
    tracker("sched_process_fork", [&](ir::Probe&, const tracefs::Format& f) {
      ir::Node* member = op(ir::Op::log_or, op(ir::Op::eq, builtin("pid"), builtin("target")),
                            map_op(ir::Op::in_elem, tree, {builtin("pid")}));
      ir::Node* inner = l_.make(ir::Op::if_);
      inner->kids = {member, map_op(ir::Op::set_elem, tree, {fork_child(f), num(1)}),
                     map_op(ir::Op::delete_elem, tree, {fork_child(f)})};
      ir::Node* outer = l_.make(ir::Op::if_);
      outer->kids = {op(ir::Op::ne, builtin("target"), num(0)), inner, l_.nop()};
      return outer;
    });
    return tree;
  }

  // The hidden map `name` this script already has, or -1 (hidden maps come
  // after the script's own globals, which may use any name).
  int existing_map(const char* name) {
    const std::vector<ir::Global>& globals = l_.module().globals;
    for (size_t i = l_.script_globals(); i < globals.size(); ++i)
      if (globals[i].name == name) return int(i);
    return -1;
  }

  // The exiting thread's part: 1 it ends its process, 2 it ends only
  // itself.  The group is dead when signal->live reads 0 at
  // sched_process_exit, but live falls while threads exit: two threads
  // leaving at once can both read 0, and one thread's programs on the
  // event (one per .end or .thread.end probe) can read it before and after
  // another thread's decrement.  So the thread's first program decides
  // once, in __process_exit_role[tid], and every other agrees: live != 0
  // gives 2; live == 0 claims the process (fetch-and-add on
  // __process_end[pid]), and only the first claim, whose old count is 0,
  // gives 1.  The last thread to decrement reads 0, so one claim always
  // wins.  All claims on a pid come before the pid is free again (the
  // group leader's is released after the last thread); every new task
  // (task:task_newtask, io workers included) clears both maps for its pid.
  ir::Node* exit_role(std::vector<ir::Type>& slots) {
    int claims = existing_map("__process_end"), roles = existing_map("__process_exit_role");
    if (claims < 0 || roles < 0) return num(0);  // after an error: exit_roles() made none
    ir::Node* claim = map_op(ir::Op::add_elem, claims, {builtin("pid"), num(1)});
    claim->b = 1;  // the old count
    ir::Node* dead_role = cond(op(ir::Op::eq, claim, num(0)), num(1), num(2));
    ir::Node* decided =
        map_op(ir::Op::set_elem, roles, {builtin("tid"), cond(group_dead(), dead_role, num(2))});
    int s = temp(slots);
    ir::Node* known = local(s, map_op(ir::Op::elem, roles, {builtin("tid")}));
    return cond(op(ir::Op::ne, known, num(0)), local(s), decided);
  }

  // exit_role()'s maps and the tracker that clears them, once per script.
  void exit_roles() {
    if (existing_map("__process_end") >= 0) return;
    int claims = hidden_map("__process_end"), roles = hidden_map("__process_exit_role");
    tracker(
        "task_newtask",
        [&](ir::Probe&, const tracefs::Format& f) {
          ir::Node* forget = l_.make(ir::Op::block);
          forget->kids = {map_op(ir::Op::delete_elem, claims, {fork_child(f, "pid")}),
                          map_op(ir::Op::delete_elem, roles, {fork_child(f, "pid")})};
          return forget;
        },
        "task");
  }

  // Each process's image since its fork or exec, for .end probes by path.
  int images() {
    if (maps_->images >= 0) return maps_->images;
    int images = maps_->images = hidden_map("__process_image");
    auto record = [&](ir::Probe& p, ir::Node* key) {
      return map_op(ir::Op::set_elem, images, {key, image(p.slots)});
    };
    tracker("sched_process_fork",
            [&](ir::Probe& p, const tracefs::Format& f) { return record(p, fork_child(f)); });
    tracker("sched_process_exec",
            [&](ir::Probe& p, const tracefs::Format&) { return record(p, builtin("pid")); });
    return images;
  }

  // The condition a body of `pp` runs under; temporaries go in `slots`.
  ir::Node* scope(const ProcessPoint& pp, std::vector<ir::Type>& slots) {
    if (pp.pid) return op(ir::Op::eq, builtin("pid"), num(pp.pid));
    if (!pp.path.empty()) {
      ir::Node* current = image(slots);
      if (pp.event == ProcessEvent::end || pp.event == ProcessEvent::thread_end) {
        // The mm where the kernel still has it at exit, else the record.
        int s = temp(slots);
        current = cond(op(ir::Op::ne, local(s, current), num(0)), local(s),
                       map_op(ir::Op::elem, images(), {builtin("pid")}));
      }
      return op(ir::Op::eq, current, num(pp.image));
    }
    ir::Node* in_tree = op(ir::Op::log_or, op(ir::Op::eq, builtin("pid"), builtin("target")),
                           map_op(ir::Op::in_elem, tree(), {builtin("pid")}));
    return op(ir::Op::log_or, op(ir::Op::eq, builtin("target"), num(0)), in_tree);
  }

  // What tells the event apart on its mechanism, or null: a first return
  // from fork (0, in a process or a thread), the group's death.
  ir::Node* event_test(ProcessEvent e, bool at_exec, std::vector<ir::Type>& slots) {
    auto child = [&](ir::Op thread_test) {
      ir::Node* ret = l_.make(ir::Op::sys_ret, ir::Type::long_);
      return op(ir::Op::log_and, op(ir::Op::eq, ret, num(0)),
                op(thread_test, builtin("tid"), builtin("pid")));
    };
    switch (e) {
      case ProcessEvent::begin: return at_exec ? nullptr : child(ir::Op::eq);
      case ProcessEvent::thread_begin: return child(ir::Op::ne);
      case ProcessEvent::end: return op(ir::Op::eq, exit_role(slots), num(1));
      case ProcessEvent::thread_end: return op(ir::Op::eq, exit_role(slots), num(2));
      default: return nullptr;
    }
  }

 private:
  Lowerer& l_;
  SourceLoc loc_;
  ProcessMaps* maps_;  // for trackers: null where none are made (runs_image)
  uint32_t kread_loc_ = 0;
  bool failed_ = false;
};


// $argN's N, 0 when the name is not $argN.
int arg_number(const std::string& name) {
  if (!name.starts_with("$arg")) return 0;
  std::string digits = name.substr(4);
  if (digits.empty() || digits.size() > 2 || digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoi(digits);
}

// The body of a process event probe: stap's utrace variables in
// .syscall[.return], and the guard of the event's test and the scope.
class ProcessEventBody : public BodyContext {
 public:
  ProcessEventBody(Lowerer& l, const ProcessPoint& pp, bool at_exec, SourceLoc loc,
                   ProcessMaps& maps)
      : BodyContext(l), pp_(pp), at_exec_(at_exec), loc_(loc), maps_(maps) {}

  std::optional<bool> target_exists(const ast::Expr& e) override {
    auto* t = dynamic_cast<const ast::TargetSymbol*>(&e);
    if (!t) return std::nullopt;
    bool entry = pp_.event == ProcessEvent::syscall;
    bool exit = pp_.event == ProcessEvent::syscall_return;
    int argno = arg_number(t->name);
    if (t->name == "$syscall") return entry || exit;
    if (t->name == "$return") return exit;
    if (t->name == "$$parms") return entry;
    return entry && argno >= 1 && argno <= 6;
  }

  ir::Node* target(ast::TargetSymbol& n, bool any_type) override;

  // The event's test first (cheap), then the scope.
  ir::Node* guard(ir::Node* body, ir::Probe& probe) override {
    ProcessIr pl(l_, loc_, &maps_);
    ir::Node* scope = pl.scope(pp_, probe.slots);
    ir::Node* test = pl.event_test(pp_.event, at_exec_, probe.slots);
    // The target's own first return from fork is the -c child's, held
    // before its exec (its .begin comes at the exec), scheduled at times
    // only once the probes are attached; a -x target forked long before.
    bool tree = pp_.pid == 0 && pp_.path.empty();
    if (tree && pp_.event == ProcessEvent::begin && !at_exec_)
      test = pl.op(ir::Op::log_and, test,
                   pl.op(ir::Op::ne, pl.builtin("pid"), pl.builtin("target")));
    ir::Node* run = l_.make(ir::Op::if_);
    run->kids = {test ? pl.op(ir::Op::log_and, test, scope) : scope, body, l_.nop()};
    ir::Node* block = l_.make(ir::Op::block);
    block->kids = {run};
    return block;
  }

 private:
  ProcessPoint pp_;
  bool at_exec_;
  SourceLoc loc_;
  ProcessMaps& maps_;
};

// stap's utrace variables (tapset-utrace.cxx): $syscall in both, $argN and
// $$parms at entry, $return at exit, all longs from the thread's saved
// registers.
ir::Node* ProcessEventBody::target(ast::TargetSymbol& n, bool any_type) {
  std::string token = describe_expr(n);
  bool entry = pp_.event == ProcessEvent::syscall;
  bool exit = pp_.event == ProcessEvent::syscall_return;
  if (!entry && !exit) {
    l_.error(n.loc,
             "only \"process(PATH_OR_PID).syscall\" and \"process(PATH_OR_PID).syscall.return\" "
             "probes support target symbols",
             token);
    return l_.num(0);
  }
  if (n.address_of) {
    l_.error(n.loc, "cannot take address of utrace variable", token);
    return l_.num(0);
  }
  if (!n.components.empty()) {
    l_.error(n.loc, "utrace target variable '" + n.name + "' takes no member access or index",
             token);
    return l_.num(0);
  }
  int argno = arg_number(n.name);
  if (argno != 0 || n.name == "$$parms") {
    if (!entry) {
      l_.error(n.loc, "only \"process(PATH_OR_PID).syscall\" support $argN or $$parms.", token);
      return l_.num(0);
    }
    auto arg = [&](int i) {
      ir::Node* a = l_.make(ir::Op::sys_arg, ir::Type::long_);
      a->a = i;
      a->b = 8;
      a->c = 1;
      return a;
    };
    if (n.name == "$$parms") {
      ir::Node* s = l_.make(ir::Op::sprintf, ir::Type::string);
      s->a = l_.module().add_format("$arg1=%#x $arg2=%#x $arg3=%#x $arg4=%#x $arg5=%#x $arg6=%#x");
      for (int i = 0; i < 6; ++i) s->kids.push_back(arg(i));
      return s;
    }
    if (argno < 1 || argno > 6) {
      l_.error(n.loc, "invalid syscall argument number (1-6)", token);
      return l_.num(0);
    }
    return l_.checked_long(arg(argno - 1), n, any_type);
  }
  if (n.name == "$return") {
    if (!exit) {
      l_.error(n.loc, "only \"process(PATH_OR_PID).syscall.return\" support $return.", token);
      return l_.num(0);
    }
    return l_.checked_long(l_.make(ir::Op::sys_ret, ir::Type::long_), n, any_type);
  }
  if (n.name == "$syscall")
    return l_.checked_long(l_.make(ir::Op::sys_nr, ir::Type::long_), n, any_type);
  l_.error(n.loc,
           "invalid target symbol for utrace probe, $syscall, $return, $argN or $$parms expected",
           token);
  return l_.num(0);
}

class ProcessLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;

  void lower(const DerivedProbe& dp) override;

 private:
  // Lowers the body with its guard, after the trackers it needs (which add
  // probes of their own).
  void lower_body(const DerivedProbe& dp, ir::Probe probe, const ProcessPoint& pp, bool at_exec) {
    SourceLoc loc = dp.point->components[0].loc;
    ProcessIr pl(l_, loc, &maps_);
    bool at_exit = pp.event == ProcessEvent::end || pp.event == ProcessEvent::thread_end;
    if (pp.pid == 0 && pp.path.empty()) pl.tree();
    if (!pp.path.empty() && at_exit) pl.images();
    if (at_exit) pl.exit_roles();
    ProcessEventBody context(l_, pp, at_exec, loc, maps_);
    l_.lower_body(dp, std::move(probe), context);
  }

  // The body once more in user context, for the tasks already running
  // when the probes attach (ir::RunningTasksSpec); a body that needs
  // kernel context there (a kernel-only function, task_current()) is dropped with
  // a warning saying why, and runs for new tasks only.
  void lower_running(const DerivedProbe& dp, const std::string& point, const ProcessPoint& pp) {
    size_t errors = l_.diagnostics().error_count();
    std::vector<ir::Probe>& probes = l_.module().probes;
    size_t before = probes.size();
    ir::Probe probe;
    probe.context = ir::Context::user;
    probe.pp = point;
    probe.spec = ir::RunningTasksSpec{pp.event == ProcessEvent::thread_begin, pp.pid, pp.path};
    BodyContext context(l_);
    l_.begin_trial();
    l_.lower_body(dp, std::move(probe), context);
    Lowerer::TrialError failed = l_.end_trial();
    CurrentTaskFinder finder;
    if (failed.message.empty()) {
      if (dp.decl->body) dp.decl->body->accept(finder);
      if (dp.point->condition) dp.point->condition->accept(finder);
      if (finder.found) {
        failed.message = finder.found->name == "task_current"
                             ? std::string("task_current() is the runtime's own task")
                             : finder.found->name + "() answers for the runtime's own task";
        failed.loc = finder.found->loc;
      }
    }
    if (failed.message.empty()) return;
    probes.resize(before);
    // The rule's advice ("call it from a kernel.trace probe") is not
    // this probe's way out.
    const std::string& m = failed.message;
    std::string why = m.substr(0, std::min(m.find(": call it from "), m.find("; read it from ")));
    if (failed.loc.line) why += " at " + l_.where(failed.loc);
    if (l_.diagnostics().error_count() == errors)
      l_.diagnostics().warning(
          dp.point->components[0].loc,
          "probe " + point + " runs for the " +
              (pp.event == ProcessEvent::begin ? "processes" : "threads") +
              " that start after the script, not for those already running: for them the body "
              "runs in user space, where " + why,
          kToken);
  }

  ProcessMaps maps_;
};

void ProcessLowering::lower(const DerivedProbe& dp) {
  const ast::ProbePointComponent& head = dp.point->components[0];
  // Every mechanism here is a tracepoint whose format tracefs has.
  if (!l_.trace_events().events(head.loc, false)) return;
  ProcessPoint pp;
  pp.event = event_of(*dp.point);
  std::string scope = "process";
  if (auto* n = dynamic_cast<const ast::NumberLit*>(head.arg)) {
    pp.pid = n->value;
    struct stat st;
    if (pp.pid <= 0 || stat(("/proc/" + std::to_string(pp.pid)).c_str(), &st) != 0) {
      l_.error(head.loc, "cannot probe pid " + std::to_string(pp.pid) + ": No such process", kToken);
      return;
    }
    scope += "(" + std::to_string(pp.pid) + ")";
  } else if (auto* s = dynamic_cast<const ast::StringLit*>(head.arg)) {
    std::string why;
    pp.path = debuginfo::find_executable(s->value, why);
    struct stat st;
    if (pp.path.empty() || stat(pp.path.c_str(), &st) != 0) {
      l_.error(head.loc, "while resolving probe point", kToken);
      l_.error({}, why.empty() ? "cannot find executable '" + s->value + "'" : why);
      return;
    }
    pp.image = ProcessIr::image_of(st);
    scope += "(\"" + pp.path + "\")";
  }
  ir::Probe base;
  base.context = ir::Context::kernel;
  base.pp = scope + "." + event_text(pp.event);
  switch (pp.event) {
    case ProcessEvent::syscall:
    case ProcessEvent::syscall_return:
      base.spec = ir::SyscallSpec{"raw_syscalls",
                                  pp.event == ProcessEvent::syscall ? "sys_enter" : "sys_exit", -1};
      lower_body(dp, base, pp, false);
      return;
    case ProcessEvent::begin:
    case ProcessEvent::thread_begin:
      for (int64_t nr : kForkCalls) {
        ir::Probe probe = base;
        probe.spec = ir::SyscallSpec{"raw_syscalls", "sys_exit", nr};
        lower_body(dp, std::move(probe), pp, false);
      }
      if (pp.event == ProcessEvent::begin) {
        base.spec = ir::TracepointSpec{"sched", "sched_process_exec"};
        lower_body(dp, base, pp, true);
      }
      lower_running(dp, base.pp, pp);
      return;
    case ProcessEvent::end:
    case ProcessEvent::thread_end:
      base.spec = ir::TracepointSpec{"sched", "sched_process_exit"};
      lower_body(dp, base, pp, false);
      return;
  }
}

}  // namespace

ir::Node* runs_image(Lowerer& l, const std::string& path, std::vector<ir::Type>& slots,
                     SourceLoc loc) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return nullptr;
  ProcessIr pl(l, loc);
  return pl.op(ir::Op::eq, pl.image(slots), l.num(ProcessIr::image_of(st)));
}

std::unique_ptr<KindLowering> make_process_lowering(Lowerer& l) {
  return std::make_unique<ProcessLowering>(l);
}

}  // namespace stap::lower
