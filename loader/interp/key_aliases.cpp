#include "loader/interp/key_aliases.h"

namespace stap {

void KeyAliases::build(const std::vector<std::pair<Packed, std::string>>& keys) {
  reset();
  for (const auto& [packed, identity] : keys) {
    std::vector<Packed>& group = groups_[identity];
    if (group.empty()) order_.push_back(identity);
    group.push_back(packed);
    identity_of_[packed] = identity;
  }
  built_ = true;
}

void KeyAliases::reset() {
  groups_.clear();
  identity_of_.clear();
  order_.clear();
  built_ = false;
}

const std::vector<KeyAliases::Packed>* KeyAliases::group_of(const Packed& packed) const {
  auto it = identity_of_.find(packed);
  if (it == identity_of_.end()) return nullptr;
  const std::vector<Packed>& group = groups_.at(it->second);
  return group.size() > 1 ? &group : nullptr;
}

std::vector<KeyAliases::Packed> KeyAliases::firsts() const {
  std::vector<Packed> out;
  for (const std::string& identity : order_) {
    auto it = groups_.find(identity);
    if (it != groups_.end() && !it->second.empty()) out.push_back(it->second.front());
  }
  return out;
}

void KeyAliases::collapse(const Packed& packed, bool keep) {
  auto it = identity_of_.find(packed);
  if (it == identity_of_.end()) return;
  std::string identity = it->second;
  for (const Packed& p : groups_[identity]) identity_of_.erase(p);
  if (keep) {
    groups_[identity] = {packed};
    identity_of_[packed] = identity;
  } else {
    groups_[identity].clear();
  }
}

}  // namespace stap
