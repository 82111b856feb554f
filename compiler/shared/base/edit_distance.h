// Levenshtein distance (insert, delete, substitute: 1 each), for the
// "similar:" and "alternatives" hints of unknown names.
#pragma once

#include <cstddef>
#include <string>

namespace stap {

size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace stap
