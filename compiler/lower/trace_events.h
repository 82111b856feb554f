// The kernel's trace events and their record formats (tracefs), read once
// per compilation and only when a probe needs them: kernel.trace points,
// and the tracepoints process probes run on.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/source.h"
#include "base/tracefs.h"

namespace stap::lower {

class Lowerer;

class TraceEvents {
 public:
  explicit TraceEvents(Lowerer& l) : l_(l) {}
  // Every event; null after reporting at `loc` that there is no tracefs
  // (quiet: nothing reported).
  const std::vector<tracefs::Event>* events(SourceLoc loc, bool quiet);
  // An event's format; null after reporting why it cannot be read.
  const tracefs::Format* format(const tracefs::Event& e, SourceLoc loc);

 private:
  Lowerer& l_;
  std::string root_;
  bool read_ = false;
  std::string error_;
  std::vector<tracefs::Event> events_;
  std::map<std::pair<std::string, std::string>, tracefs::Format> formats_;
};

}  // namespace stap::lower
