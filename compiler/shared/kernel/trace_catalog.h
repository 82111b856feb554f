// The trace events of the running kernel and their record formats, read
// from tracefs on first need and kept for the compilation: pass 2 asks
// about the points of hundreds of syscall aliases (-L, '?'), pass 3 turns
// $field into record reads, and both ask about the same events.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/tracefs.h"

namespace stap::kernel {

class TraceCatalog {
 public:
  // Every event of available_events; null, with why in `why`, when there
  // is no tracefs (not mounted and not root, or unreadable).
  const std::vector<tracefs::Event>* events(std::string& why);
  // An event's format; null with why when it cannot be read.
  const tracefs::Format* format(const tracefs::Event& e, std::string& why);
  // The events "[system:]name" (globs; no system: any) names; false when
  // that cannot be told (no tracefs).
  bool matching(const std::string& spec, std::vector<tracefs::Event>& out);
  // The formats of those events that can be read; empty without tracefs.
  const std::vector<tracefs::Format>& formats_matching(const std::string& spec);

  // "sys:name" -> {"sys", "name"}; "name" -> {"", "name"} (any system).
  static std::pair<std::string, std::string> split_spec(const std::string& spec);

 private:
  bool read_ = false;
  std::string root_;
  std::string error_;
  std::vector<tracefs::Event> events_;
  std::map<std::pair<std::string, std::string>, tracefs::Format> formats_;
  std::map<std::string, std::vector<tracefs::Format>> matches_;
};

// The running kernel's catalog, one per process: what the compiler's
// passes read when the target is this machine.
TraceCatalog& running_trace_catalog();

}  // namespace stap::kernel
