// Module bookkeeping and the storage layout shared by codegen and runtime.
#include "ir/ir.h"

#include "bpf_runtime/stap_layout.h"

namespace stap::ir {

const char* type_name(Type t) {
  switch (t) {
    case Type::none: return "none";
    case Type::long_: return "long";
    case Type::string: return "string";
    case Type::stats: return "stats";
  }
  return "?";
}

int HistShape::buckets() const {
  switch (kind) {
    case Kind::none: return 0;
    case Kind::log: return 128;  // loader/histogram_output.h kHistLogBuckets
    case Kind::linear:
      // Underflow and overflow included, as loader/histogram_output.h numbers them.
      if (step <= 0 || high < low) return 0;
      return static_cast<int>((high - low) / step + 3);
  }
  return 0;
}

Node* Module::make(Op op, Type type) {
  nodes_.push_back(std::make_unique<Node>());
  Node* n = nodes_.back().get();
  n->op = op;
  n->type = type;
  return n;
}

uint32_t Module::add_location(std::string text) {
  locations.push_back(Location{std::move(text)});
  return static_cast<uint32_t>(locations.size() - 1);
}

uint32_t Module::add_format(std::string text) {
  for (size_t i = 0; i < formats.size(); ++i)
    if (formats[i] == text) return static_cast<uint32_t>(i);
  formats.push_back(std::move(text));
  return static_cast<uint32_t>(formats.size() - 1);
}

uint32_t assign_layout(Module& m) {
  const uint32_t strlen_max = static_cast<uint32_t>(m.limits.maxstringlen);
  auto size_of = [&](Type t) -> uint32_t { return t == Type::string ? strlen_max : 8; };
  uint32_t offset = sizeof(struct stap_globals_header);
  for (size_t i = 0; i < m.globals.size(); ++i) {
    Global& g = m.globals[i];
    if (g.in_globals_map()) {
      g.offset = offset;
      offset += (size_of(g.type) + 7) & ~7u;
      g.map_name.clear();
      g.key_size = 0;
      g.value_size = size_of(g.type);
      continue;
    }
    g.map_name = STAP_GLOBAL_MAP_PREFIX + std::to_string(i);
    g.key_size = 0;
    for (size_t k = 0; k < g.keys.size(); ++k) g.key_size += g.key_width(k, strlen_max);
    if (g.type == Type::stats)
      g.value_size = sizeof(struct stap_stat) + 8u * static_cast<uint32_t>(g.hist.buckets());
    else
      g.value_size = size_of(g.type);
  }
  return offset;
}

}  // namespace stap::ir
