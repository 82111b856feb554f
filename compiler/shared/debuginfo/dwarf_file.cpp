#include "debuginfo/dwarf_file.h"

#include <dwarf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "debuginfo/debug_file.h"
#include "debuginfo/symbol_match.h"

namespace stap::debuginfo {

std::unique_ptr<DwarfFile> DwarfFile::open(const ElfFile& binary, std::string& why,
                                           const std::string& debug_root) {
  std::unique_ptr<DwarfFile> file(new DwarfFile());
  file->binary_ = &binary;
  Elf* elf = binary.elf();
  if (binary.has_dwarf()) {
    file->debug_path_ = binary.path();
  } else {
    std::string looked;
    file->debug_path_ = find_debug_file(binary, looked, debug_root);
    if (file->debug_path_.empty()) {
      why = no_debuginfo_message(binary, looked);
      return nullptr;
    }
    file->fd_ = ::open(file->debug_path_.c_str(), O_RDONLY | O_CLOEXEC);
    file->debug_elf_ = file->fd_ < 0 ? nullptr : elf_begin(file->fd_, ELF_C_READ_MMAP, nullptr);
    elf = file->debug_elf_;
  }
  file->dwarf_ = elf ? dwarf_begin_elf(elf, DWARF_C_READ, nullptr) : nullptr;
  if (!file->dwarf_) {
    why = file->debug_path_ + ": unreadable DWARF: " + dwarf_errmsg(-1);
    return nullptr;
  }
  // Unwind tables live in the binary (.eh_frame); a .debug file has them
  // as NOBITS.  .debug_frame, when a binary has only that, is in the DWARF.
  file->cfi_ = dwarf_getcfi_elf(binary.elf());
  if (!file->cfi_) file->cfi_ = dwarf_getcfi(file->dwarf_);
  file->read_functions();
  return file;
}

DwarfFile::~DwarfFile() {
  // dwarf_getcfi's result belongs to the Dwarf; dwarf_getcfi_elf's does not.
  if (cfi_ && cfi_ != dwarf_getcfi(dwarf_)) dwarf_cfi_end(cfi_);
  if (dwarf_) dwarf_end(dwarf_);
  if (debug_elf_) elf_end(debug_elf_);
  if (fd_ >= 0) close(fd_);
}

namespace {

struct Walk {
  std::map<Dwarf_Off, std::string> qualified;  // every subprogram DIE seen
  std::vector<Dwarf_Die> with_code;
  std::vector<Dwarf_Die> inlined;              // DW_TAG_inlined_subroutine
};

// The inlined copies inside a function body, at any depth.
void walk_body(Dwarf_Die* parent, Walk& walk, int depth) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_inlined_subroutine) walk.inlined.push_back(child);
    if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
      walk_body(&child, walk, depth + 1);
  } while (dwarf_siblingof(&child, &child) == 0);
}

void walk_scope(Dwarf_Die* parent, const std::string& prefix, Walk& walk, int depth) {
  Dwarf_Die child;
  if (depth > 32 || dwarf_child(parent, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    const char* name = dwarf_diename(&child);
    if (tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
        tag == DW_TAG_union_type) {
      walk_scope(&child, name ? prefix + name + "::" : prefix, walk, depth + 1);
    } else if (tag == DW_TAG_subprogram) {
      if (name) walk.qualified[dwarf_dieoffset(&child)] = prefix + name;
      Dwarf_Addr low;
      if (!dwarf_hasattr(&child, DW_AT_declaration) &&
          (dwarf_lowpc(&child, &low) == 0 || dwarf_hasattr(&child, DW_AT_ranges))) {
        walk.with_code.push_back(child);
        walk_body(&child, walk, 0);
      }
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The DIE a definition refers back to (DW_AT_specification for a C++
// member defined outside its class, DW_AT_abstract_origin for an
// out-of-line copy of an inline function): where its scope is.
Dwarf_Die declaration_of(Dwarf_Die die) {
  for (int i = 0; i < 8; ++i) {
    Dwarf_Attribute attr;
    Dwarf_Die next;
    if ((!dwarf_attr(&die, DW_AT_specification, &attr) &&
         !dwarf_attr(&die, DW_AT_abstract_origin, &attr)) ||
        !dwarf_formref_die(&attr, &next))
      break;
    die = next;
  }
  return die;
}

bool function_range(Dwarf_Die* die, DwarfFunction& fn) {
  Dwarf_Addr entry = 0, base = 0, start = 0, end = 0;
  bool have_entry = dwarf_entrypc(die, &entry) == 0;
  bool first = true, contained = false;
  uint64_t lowest = UINT64_MAX, highest = 0;
  for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &start, &end)) > 0;) {
    // Without DW_AT_entry_pc/low_pc, the first range listed is the hot
    // entry part (GCC lists a .cold split part after it).
    if (!have_entry && first) entry = start;
    first = false;
    lowest = std::min<uint64_t>(lowest, start);
    highest = std::max<uint64_t>(highest, end);
    if (!contained && entry >= start && entry < end) {
      fn.low_pc = start;
      fn.high_pc = end;
      contained = true;
    }
  }
  // An inlined copy's entry pc can sit in an empty range (GCC's location
  // views): the copy spans all its ranges then.
  if (!contained) {
    fn.low_pc = lowest;
    fn.high_pc = highest;
  }
  fn.entry_pc = entry;
  // A copy inlined into nothing but an entry pc (code folded away) is
  // still a point stap lists and probes.
  if (fn.high_pc <= fn.low_pc) fn.low_pc = fn.high_pc = entry;
  return have_entry || fn.high_pc > fn.low_pc;
}

std::string string_attr(Dwarf_Die* die, int name) {
  Dwarf_Attribute attr;
  const char* s = dwarf_attr_integrate(die, name, &attr) ? dwarf_formstring(&attr) : nullptr;
  return s ? s : "";
}

}  // namespace

// A DwarfFunction for `die` (a subprogram with code or an inlined copy);
// false when it has no name or no address range.
static bool describe_function(Dwarf_Die die, Dwarf_Die cu, const Walk& walk, DwarfFunction& fn) {
  const char* name = dwarf_diename(&die);
  if (!name || !function_range(&die, fn)) return false;
  fn.name = name;
  Dwarf_Die decl = declaration_of(die);
  auto scoped = walk.qualified.find(dwarf_dieoffset(&decl));
  fn.qualified = scoped != walk.qualified.end() ? scoped->second : fn.name;
  fn.linkage_name = string_attr(&die, DW_AT_linkage_name);
  if (fn.linkage_name.empty()) fn.linkage_name = string_attr(&die, DW_AT_MIPS_linkage_name);
  const char* file = dwarf_decl_file(&die);
  fn.decl_file = file ? file : "";
  dwarf_decl_line(&die, &fn.decl_line);
  Dwarf_Attribute attr;
  bool external = false;
  if (dwarf_attr_integrate(&die, DW_AT_external, &attr)) dwarf_formflag(&attr, &external);
  fn.external = external;
  fn.inlined = dwarf_tag(&die) == DW_TAG_inlined_subroutine;
  fn.die = die;
  fn.cu = cu;
  return true;
}

void DwarfFile::read_functions() {
  Dwarf_Off offset = 0, next = 0;
  size_t header_size = 0;
  Walk walk;
  std::vector<std::pair<Dwarf_Die, Dwarf_Die>> found, inlined;  // (function, cu)
  while (dwarf_nextcu(dwarf_, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dwarf_, offset + header_size, &cu)) {
      walk.with_code.clear();
      walk.inlined.clear();
      walk_scope(&cu, "", walk, 0);
      for (auto& die : walk.with_code) found.emplace_back(die, cu);
      for (auto& die : walk.inlined) inlined.emplace_back(die, cu);
    }
    offset = next;
  }
  auto by_name = [](const DwarfFunction& a, const DwarfFunction& b) {
    return a.qualified != b.qualified ? a.qualified < b.qualified : a.entry_pc < b.entry_pc;
  };
  for (auto& [die, cu] : found) {
    DwarfFunction fn;
    if (describe_function(die, cu, walk, fn)) functions_.push_back(std::move(fn));
  }
  std::sort(functions_.begin(), functions_.end(), by_name);
  for (auto& [die, cu] : inlined) {
    DwarfFunction fn;
    if (describe_function(die, cu, walk, fn)) inlined_.push_back(std::move(fn));
  }
  std::sort(inlined_.begin(), inlined_.end(), by_name);
}

// Template-aware split on "::": "a::b<c::d>::f" -> {"a", "b<c::d>", "f"}.
static std::vector<std::string> split_scopes(const std::string& name) {
  std::vector<std::string> parts;
  int angle = 0;
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++angle;
    else if (name[i] == '>' && angle > 0) --angle;
    else if (angle == 0 && name.compare(i, 2, "::") == 0) {
      parts.push_back(name.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  parts.push_back(name.substr(start));
  return parts;
}

FunctionSpec parse_function_spec(const std::string& spec) {
  FunctionSpec out;
  std::string head = spec;
  if (auto at = spec.find('@'); at != std::string::npos) {
    head = spec.substr(0, at);
    std::string rest = spec.substr(at + 1);
    auto colon = rest.find_first_of(":+");
    out.file = rest.substr(0, colon);
    if (colon != std::string::npos) out.line = rest.substr(rest[colon] == '+' ? colon : colon + 1);
  }
  auto parts = split_scopes(head);
  out.function = parts.back();
  parts.pop_back();
  out.scopes = std::move(parts);
  return out;
}

static bool glob(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

bool file_matches(const std::string& pattern, const std::string& file) {
  if (glob(pattern, file)) return true;
  for (size_t slash = file.find('/'); slash != std::string::npos; slash = file.find('/', slash + 1))
    if (glob(pattern, file.substr(slash + 1))) return true;
  return false;
}

std::vector<const DwarfFunction*> DwarfFile::match_functions(const std::string& text) const {
  return match(functions_, text);
}

std::vector<const DwarfFunction*> DwarfFile::match_inlined(const std::string& text) const {
  return match(inlined_, text);
}

std::vector<const DwarfFunction*> DwarfFile::match(const std::vector<DwarfFunction>& from,
                                                   const std::string& text) const {
  FunctionSpec spec = parse_function_spec(text);
  std::vector<const DwarfFunction*> out;
  bool mangled = spec.scopes.empty() && spec.function.starts_with("_Z");
  for (const auto& fn : from) {
    if (mangled ? !glob(spec.function, fn.linkage_name) : !glob(spec.function, fn.name)) continue;
    if (!spec.file.empty() && !file_matches(spec.file, fn.decl_file)) continue;
    // Scopes match the innermost enclosing ones, each name or glob.
    auto parents = split_scopes(fn.qualified);
    parents.pop_back();
    if (spec.scopes.size() > parents.size()) continue;
    bool scopes_match = true;
    size_t skip = parents.size() - spec.scopes.size();
    for (size_t i = 0; i < spec.scopes.size() && scopes_match; ++i)
      scopes_match = has_wildcard(spec.scopes[i]) ? glob(spec.scopes[i], parents[skip + i])
                                                  : spec.scopes[i] == parents[skip + i];
    if (scopes_match) out.push_back(&fn);
  }
  return out;
}

const DwarfFunction* DwarfFile::function_at(uint64_t pc) const {
  for (const auto& fn : functions_) {
    Dwarf_Die die = fn.die;
    if (dwarf_haspc(&die, pc) == 1) return &fn;
  }
  return nullptr;
}

static void collect(Dwarf_Die* scope, int wanted_tag, std::optional<uint64_t> pc, bool recurse,
                    std::vector<DwarfVariable>& out, int depth) {
  Dwarf_Die child;
  if (depth > 32 || dwarf_child(scope, &child) != 0) return;
  std::vector<Dwarf_Die> blocks;
  do {
    int tag = dwarf_tag(&child);
    if (tag == wanted_tag) {
      const char* name = dwarf_diename(&child);
      if (name)
        out.push_back({.name = name, .type = type_of(&child),
                       .is_parameter = tag == DW_TAG_formal_parameter, .die = child});
    } else if (recurse && tag == DW_TAG_lexical_block) {
      if (!pc || dwarf_haspc(&child, *pc) == 1) blocks.push_back(child);
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  for (auto& block : blocks) collect(&block, wanted_tag, pc, recurse, out, depth + 1);
}

std::vector<DwarfVariable> DwarfFile::parameters(const DwarfFunction& fn) const {
  std::vector<DwarfVariable> out;
  Dwarf_Die die = fn.die;
  collect(&die, DW_TAG_formal_parameter, std::nullopt, false, out, 0);
  return out;
}

std::vector<DwarfVariable> DwarfFile::locals(const DwarfFunction& fn,
                                             std::optional<uint64_t> pc) const {
  std::vector<DwarfVariable> out;
  Dwarf_Die die = fn.die;
  collect(&die, DW_TAG_variable, pc, true, out, 0);
  return out;
}

// Whether `die` has a location usable at `pc` (or a constant value).
static bool has_location_at(Dwarf_Die* die, uint64_t pc) {
  Dwarf_Attribute attr;
  if (dwarf_attr_integrate(die, DW_AT_const_value, &attr)) return true;
  if (!dwarf_attr_integrate(die, DW_AT_location, &attr)) return false;
  Dwarf_Op* ops = nullptr;
  size_t count = 0;
  return dwarf_getlocation_addr(&attr, pc, &ops, &count, 1) == 1 && count > 0;
}

std::vector<DwarfVariable> DwarfFile::variables_at(const DwarfFunction& fn, uint64_t pc,
                                                  bool located_only) const {
  std::vector<Dwarf_Die> chain{fn.die};
  for (bool deeper = true; deeper && chain.size() < 32;) {
    deeper = false;
    Dwarf_Die child;
    if (dwarf_child(&chain.back(), &child) != 0) break;
    do {
      if (dwarf_tag(&child) == DW_TAG_lexical_block && dwarf_haspc(&child, pc) == 1) {
        chain.push_back(child);
        deeper = true;
        break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  std::vector<DwarfVariable> out;
  for (auto scope = chain.rbegin(); scope != chain.rend(); ++scope) {
    Dwarf_Die child;
    if (dwarf_child(&*scope, &child) != 0) continue;
    do {
      int tag = dwarf_tag(&child);
      if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) continue;
      const char* name = dwarf_diename(&child);
      Type type = type_of(&child);
      if (!name || type.is_void || (located_only && !has_location_at(&child, pc))) continue;
      out.push_back({.name = name, .type = type, .is_parameter = tag == DW_TAG_formal_parameter,
                     .die = child});
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  return out;
}

// Whether any variable of `scope` (recursively) has a location list
// rather than a single expression.
static bool has_location_list(Dwarf_Die* scope, int depth) {
  Dwarf_Die child;
  if (depth > 32 || dwarf_child(scope, &child) != 0) return false;
  do {
    Dwarf_Attribute attr;
    if (dwarf_attr(&child, DW_AT_location, &attr) && dwarf_whatform(&attr) != DW_FORM_exprloc &&
        dwarf_whatform(&attr) != DW_FORM_block1)
      return true;
    if (dwarf_tag(&child) == DW_TAG_lexical_block && has_location_list(&child, depth + 1))
      return true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

namespace {
PrologueSearch prologue_search = PrologueSearch::automatic;
}  // namespace

void set_prologue_search(PrologueSearch mode) { prologue_search = mode; }

uint64_t DwarfFile::function_probe_pc(const DwarfFunction& fn) const {
  if (prologue_search == PrologueSearch::never) return fn.entry_pc;
  if (prologue_search == PrologueSearch::always) return prologue_end(fn);
  Dwarf_Die die = fn.die;
  return has_location_list(&die, 0) ? fn.entry_pc : prologue_end(fn);
}

Type DwarfFile::return_type(const DwarfFunction& fn) const {
  Dwarf_Die die = fn.die;
  return type_of(&die);
}

std::optional<Location> DwarfFile::location(const DwarfFunction& fn, const DwarfVariable& var,
                                            uint64_t pc, std::string& why) const {
  Dwarf_Die function = fn.die, variable = var.die;
  LocationContext ctx{.function = &function, .cfi = cfi_, .pc = pc};
  return variable_location(&variable, ctx, why);
}

}  // namespace stap::debuginfo
