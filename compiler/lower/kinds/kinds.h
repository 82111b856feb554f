// The probe kinds of pass 3: one KindLowering per family of points, each
// in its own file of this directory, chosen by the table in kinds.cpp.  A
// kind turns each derived probe of its family into ir::Probes (with the
// spec of ir/probe_spec.h) and lowers each body with a BodyContext of its
// own (body_context.h), which answers what differs by kind.
//
// Adding a kind: a file here defining a KindLowering and its make_*
// function, and a row in kinds.cpp's table.
#pragma once

#include <memory>

#include "elaborate/program.h"
#include "lower/lowerer.h"

namespace stap::lower {

class KindLowering {
 public:
  explicit KindLowering(Lowerer& l) : l_(l) {}
  virtual ~KindLowering() = default;
  KindLowering(const KindLowering&) = delete;
  KindLowering& operator=(const KindLowering&) = delete;

  // Lowers one derived probe: zero or more ir::Probes (after reporting why
  // a required point resolves to nothing).
  virtual void lower(const DerivedProbe& dp) = 0;

 protected:
  Lowerer& l_;
};

// The table (kinds.cpp): which row lowers `dp`, -1 when none does.
int kind_row(const DerivedProbe& dp);
size_t kind_rows();
std::unique_ptr<KindLowering> make_kind(int row, Lowerer& l);

// Whether the current task runs the program at `path` (canonical): a long
// 0/1 using temporaries of `slots`; null when `path` cannot be stat'ed
// (process.cpp).  Scopes perf .process("P") and process("P").library("L")
// probes to P's processes.
ir::Node* runs_image(Lowerer& l, const std::string& path, std::vector<ir::Type>& slots,
                     SourceLoc loc);

// One per file of this directory.
std::unique_ptr<KindLowering> make_session_lowering(Lowerer& l);      // session.cpp
std::unique_ptr<KindLowering> make_timer_lowering(Lowerer& l);        // timer.cpp
std::unique_ptr<KindLowering> make_procfs_lowering(Lowerer& l);       // procfs.cpp
std::unique_ptr<KindLowering> make_perf_lowering(Lowerer& l);         // perf.cpp
std::unique_ptr<KindLowering> make_tracepoint_lowering(Lowerer& l);   // tracepoint.cpp
std::unique_ptr<KindLowering> make_btf_tracepoint_lowering(Lowerer& l);  // btf_tracepoint.cpp
std::unique_ptr<KindLowering> make_lsm_lowering(Lowerer& l);            // lsm.cpp
std::unique_ptr<KindLowering> make_netfilter_lowering(Lowerer& l);      // netfilter.cpp
std::unique_ptr<KindLowering> make_watchpoint_lowering(Lowerer& l);     // watchpoint.cpp
std::unique_ptr<KindLowering> make_kfunc_lowering(Lowerer& l);        // kfunc*.cpp
std::unique_ptr<KindLowering> make_uprobe_lowering(Lowerer& l);       // uprobe*.cpp
std::unique_ptr<KindLowering> make_process_lowering(Lowerer& l);      // process.cpp

}  // namespace stap::lower
