// DwarfFile's file-scope variables (@var("x@file.c"), $x naming a global
// of the probed function's unit) and named types (@cast(p, "struct foo",
// "/path/to/binary")).
#include <dwarf.h>

#include <cstring>

#include "debuginfo/dwarf_file.h"

namespace stap::debuginfo {

namespace {

// Calls f(cu) for each compilation unit until it returns true.
template <typename F>
bool each_cu(Dwarf* dwarf, F f) {
  Dwarf_Off offset = 0, next = 0;
  size_t header_size = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dwarf, offset + header_size, &cu) && f(cu)) return true;
    offset = next;
  }
  return false;
}

bool is_definition(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  return dwarf_attr_integrate(die, DW_AT_location, &attr) ||
         dwarf_attr_integrate(die, DW_AT_const_value, &attr);
}

std::optional<DwarfVariable> cu_variable(Dwarf_Die cu, const std::string& name) {
  Dwarf_Die child;
  if (dwarf_child(&cu, &child) != 0) return std::nullopt;
  do {
    if (dwarf_tag(&child) != DW_TAG_variable) continue;
    const char* n = dwarf_diename(&child);
    if (!n || name != n || !is_definition(&child)) continue;
    return DwarfVariable{.name = name, .type = type_of(&child), .is_parameter = false, .die = child};
  } while (dwarf_siblingof(&child, &child) == 0);
  return std::nullopt;
}

// "struct foo" -> (DW_TAG_structure_type, "foo"); "foo" -> (0, "foo").
std::pair<int, std::string> split_type_name(const std::string& name) {
  static const std::pair<const char*, int> kPrefixes[] = {{"struct ", DW_TAG_structure_type},
                                                          {"union ", DW_TAG_union_type},
                                                          {"enum ", DW_TAG_enumeration_type},
                                                          {"class ", DW_TAG_class_type}};
  for (auto [prefix, tag] : kPrefixes)
    if (name.starts_with(prefix)) return {tag, name.substr(strlen(prefix))};
  return {0, name};
}

bool named_type_tag(int tag) {
  return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type ||
         tag == DW_TAG_enumeration_type || tag == DW_TAG_typedef || tag == DW_TAG_base_type;
}

// Searches a scope (a unit or namespace) for the type, depth first.
std::optional<Type> search_type(Dwarf_Die* scope, int want_tag, const std::string& name, int depth) {
  Dwarf_Die child;
  if (depth > 8 || dwarf_child(scope, &child) != 0) return std::nullopt;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_namespace) {
      if (auto t = search_type(&child, want_tag, name, depth + 1)) return t;
      continue;
    }
    if (want_tag ? tag != want_tag : !named_type_tag(tag)) continue;
    const char* n = dwarf_diename(&child);
    if (!n || name != n || dwarf_hasattr(&child, DW_AT_declaration)) continue;
    return Type::of(&child);
  } while (dwarf_siblingof(&child, &child) == 0);
  return std::nullopt;
}

}  // namespace

std::optional<DwarfVariable> DwarfFile::global_variable(const std::string& name,
                                                        const Dwarf_Die* cu,
                                                        const std::string& file) const {
  if (cu) return cu_variable(*cu, name);
  std::optional<DwarfVariable> found;
  each_cu(dwarf_, [&](Dwarf_Die unit) {
    const char* unit_name = dwarf_diename(&unit);
    if (!file.empty() && (!unit_name || !file_matches(file, unit_name))) return false;
    found = cu_variable(unit, name);
    return found.has_value();
  });
  return found;
}

std::vector<std::string> DwarfFile::global_names(const Dwarf_Die& unit) const {
  std::vector<std::string> out;
  Dwarf_Die cu = unit, child;
  if (dwarf_child(&cu, &child) != 0) return out;
  do {
    const char* n = dwarf_diename(&child);
    if (dwarf_tag(&child) == DW_TAG_variable && n && is_definition(&child)) out.push_back(n);
  } while (dwarf_siblingof(&child, &child) == 0);
  return out;
}

std::optional<Type> DwarfFile::find_type(const std::string& name) const {
  auto [tag, bare] = split_type_name(name);
  std::optional<Type> found;
  each_cu(dwarf_, [&](Dwarf_Die unit) {
    found = search_type(&unit, tag, bare, 0);
    return found.has_value();
  });
  return found;
}

std::optional<Location> DwarfFile::global_location(const DwarfVariable& var,
                                                   std::string& why) const {
  Dwarf_Die variable = var.die;
  LocationContext ctx{.function = nullptr, .cfi = cfi_, .pc = 0};
  return variable_location(&variable, ctx, why);
}

}  // namespace stap::debuginfo
