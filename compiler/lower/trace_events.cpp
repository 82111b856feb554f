#include "lower/trace_events.h"

#include "kernel/trace_catalog.h"
#include "lower/lowerer.h"

namespace stap::lower {

const std::vector<tracefs::Event>* TraceEvents::events(SourceLoc loc, bool quiet) {
  kernel::TraceCatalog* catalog = l_.options().trace_events;
  std::string why = "the target kernel's trace events were not given";
  const std::vector<tracefs::Event>* all = catalog ? catalog->events(why) : nullptr;
  if (!all && !quiet)
    l_.error(loc, "kernel.trace needs the kernel's tracefs: " + why);
  return all;
}

const tracefs::Format* TraceEvents::format(const tracefs::Event& e, SourceLoc loc) {
  if (!events(loc, false)) return nullptr;
  std::string why;
  const tracefs::Format* format = l_.options().trace_events->format(e, why);
  if (!format)
    l_.error(loc, "cannot read the format of trace event " + e.system + ":" + e.name + ": " + why);
  return format;
}

}  // namespace stap::lower
