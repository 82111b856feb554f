// The unwind tables a script's user stacks are unwound with
// (bpf_runtime/unwind.c): which binaries, their rows built from CFI
// (compiler/debuginfo/unwind_table.h), and the maps filled before any
// probe is attached.  Only objects that capture user stacks have the
// maps; for others this does nothing.
//
// The binaries: every process("P") probe's binary, the -c command's
// program, -x PID's mapped files, -d FILE, and (recursively) the
// DT_NEEDED libraries and the interpreter of each, so libc and ld.so are
// always in; and the vDSO when any of them is.  A binary without usable CFI is skipped (its frames take
// frame-pointer steps).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bpf_runtime/unwind_row.h"
#include "debuginfo/unwind_table.h"
#include "ir/ir.h"

struct bpf_object;

namespace stap {

struct UnwindSources {
  std::string command;                  // -c CMD
  int64_t target_pid = 0;               // -x PID
  std::vector<std::string> modules;     // -d FILE
};

class UnwindTables {
 public:
  // Before bpf_object__load: builds the tables and sizes the rows map.
  void prepare(bpf_object* obj, const ir::Module& module, const UnwindSources& sources,
               int verbose);
  // After the load: writes the rows and files.  false with `error` set
  // when the kernel refused an update.
  bool fill(bpf_object* obj, std::string& error) const;

  // The binaries named by the sources (canonical paths, no duplicates).
  static std::vector<std::string> binaries(const ir::Module& module, const UnwindSources& sources);

 private:
  void add_binary(const std::string& path, int verbose);
  void add_vdso(int verbose);
  void add_table(const stap_unwind_file& key, const debuginfo::UnwindTable& table,
                 const std::string& name, int verbose);

  bool active_ = false;
  std::vector<uint64_t> rows_;  // [0] is the header: the number of files
  std::vector<std::pair<stap_unwind_file, stap_unwind_range>> files_;
};

}  // namespace stap
