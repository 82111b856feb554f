#include "lower/trace_events.h"

#include "lower/lowerer.h"

namespace stap::lower {

const std::vector<tracefs::Event>* TraceEvents::events(SourceLoc loc, bool quiet) {
  if (!read_) {
    read_ = true;
    std::string why;
    root_ = tracefs::find_root(why);
    if (root_.empty() || !tracefs::list_events(root_, events_, why)) {
      root_.clear();
      error_ = why;
    }
  }
  if (root_.empty()) {
    if (!quiet)
      l_.error(loc, "kernel.trace needs the kernel's tracefs: " + error_ +
                        " (run as root, or mount it: mount -t tracefs nodev /sys/kernel/tracing)");
    return nullptr;
  }
  return &events_;
}

const tracefs::Format* TraceEvents::format(const tracefs::Event& e, SourceLoc loc) {
  auto key = std::make_pair(e.system, e.name);
  auto it = formats_.find(key);
  if (it != formats_.end()) return &it->second;
  if (!events(loc, false)) return nullptr;
  tracefs::Format format;
  std::string why;
  if (!tracefs::read_format(root_, e, format, why)) {
    l_.error(loc, "cannot read the format of trace event " + e.system + ":" + e.name + ": " + why);
    return nullptr;
  }
  return &formats_.emplace(key, std::move(format)).first->second;
}

}  // namespace stap::lower
