// Pass 3's view of the target kernel's trace events and formats: the
// catalog LowerOptions hands in (kernel/trace_catalog.h), with each
// failure reported at the probe that needed the event.
#pragma once

#include <string>
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
};

}  // namespace stap::lower
