#include "kernel/trace_catalog.h"

namespace stap::kernel {

const std::vector<tracefs::Event>* TraceCatalog::events(std::string& why) {
  if (!read_) {
    read_ = true;
    root_ = tracefs::find_root(error_);
    if (root_.empty() || !tracefs::list_events(root_, events_, error_)) root_.clear();
  }
  if (root_.empty()) {
    why = error_;
    return nullptr;
  }
  return &events_;
}

const tracefs::Format* TraceCatalog::format(const tracefs::Event& e, std::string& why) {
  auto key = std::make_pair(e.system, e.name);
  auto it = formats_.find(key);
  if (it != formats_.end()) return &it->second;
  if (!events(why)) return nullptr;
  tracefs::Format format;
  if (!tracefs::read_format(root_, e, format, why)) return nullptr;
  return &formats_.emplace(key, std::move(format)).first->second;
}

bool TraceCatalog::matching(const std::string& spec, std::vector<tracefs::Event>& out) {
  std::string why;
  const std::vector<tracefs::Event>* all = events(why);
  if (!all) return false;
  auto [system, name] = split_spec(spec);
  out = tracefs::match_events(*all, system, name);
  return true;
}

const std::vector<tracefs::Format>& TraceCatalog::formats_matching(const std::string& spec) {
  auto [it, fresh] = matches_.try_emplace(spec);
  if (!fresh) return it->second;
  std::vector<tracefs::Event> events;
  if (!matching(spec, events)) return it->second;
  std::string why;
  for (const tracefs::Event& e : events)
    if (const tracefs::Format* f = format(e, why)) it->second.push_back(*f);
  return it->second;
}

std::pair<std::string, std::string> TraceCatalog::split_spec(const std::string& spec) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return {"", spec};
  return {spec.substr(0, colon), spec.substr(colon + 1)};
}

TraceCatalog& running_trace_catalog() {
  static TraceCatalog catalog;
  return catalog;
}

}  // namespace stap::kernel
