#include "debuginfo/process_listing.h"

#include <fnmatch.h>

#include <algorithm>

#include <map>
#include <tuple>
#include <set>

#include "debuginfo/binary_path.h"
#include "debuginfo/dwarf_file.h"
#include "debuginfo/sdt_notes.h"
#include "debuginfo/symbol_match.h"

namespace stap::debuginfo {

namespace {

struct Component {
  std::string name, arg;
  bool has_arg = false;
};

// "process(\"a.b\").function(\"f\").call" -> components; false on
// anything but names with optional string arguments.
bool split_components(const std::string& text, std::vector<Component>& out) {
  size_t at = 0;
  while (at < text.size()) {
    Component c;
    while (at < text.size() && (isalnum(static_cast<unsigned char>(text[at])) || text[at] == '_'))
      c.name += text[at++];
    if (c.name.empty()) return false;
    if (text.compare(at, 2, "(\"") == 0) {
      size_t end = text.find("\")", at + 2);
      if (end == std::string::npos) return false;
      c.arg = text.substr(at + 2, end - at - 2);
      c.has_arg = true;
      at = end + 2;
    }
    out.push_back(std::move(c));
    if (at == text.size()) break;
    if (text[at++] != '.') return false;
  }
  return !out.empty();
}

bool glob(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

std::string quoted(const std::string& kind, const std::string& arg) {
  return "." + kind + "(\"" + arg + "\")";
}

// Listed name -> the variables of each probe point listed under it.
using Listed = std::map<std::string, std::vector<std::vector<std::string>>>;

std::vector<std::string> vars_of(const DwarfFile& dwarf, const DwarfFunction& fn, uint64_t pc,
                                 bool is_return) {
  std::vector<std::string> out;
  if (is_return) {
    Type ret = dwarf.return_type(fn);
    if (!ret.is_void) out.push_back("$return:" + type_name(ret));
  }
  // stap 4.8 lists only the parameters of an inlined copy (checked on
  // glibc's and the test programs' inlines).
  for (const auto& v : dwarf.variables_at(fn, pc))
    if (v.is_parameter || !fn.inlined) out.push_back("$" + v.name + ":" + type_name(v.type));
  return out;
}

// " $a:int $b:long": the variables every point of the name has (an inline
// function's copies each see their own), in the first point's order, as
// stap prints them.
std::string common_vars(const std::vector<std::vector<std::string>>& points) {
  std::string out;
  for (const auto& var : points.front()) {
    bool everywhere = true;
    for (const auto& other : points)
      everywhere = everywhere && std::find(other.begin(), other.end(), var) != other.end();
    if (everywhere) out += " " + var;
  }
  return out;
}

struct Target {
  std::string prefix;  // process("...")[.library("...")]
  std::unique_ptr<ElfFile> elf;
  std::unique_ptr<DwarfFile> dwarf;
};

void list_functions(const ProcessPattern& p, Target& t, bool with_vars,
                    Listed& out) {
  std::set<std::pair<uint64_t, const DwarfFunction*>> added;
  std::set<uint64_t> covered;  // entry pcs listed through DWARF
  bool is_return = p.suffix == ".return";
  auto add = [&](const DwarfFunction& fn) {
    if (!added.insert({fn.entry_pc, &fn}).second) return;
    covered.insert(fn.entry_pc);
    // Assembly functions have no declaration: the line table says where.
    std::string file = fn.decl_file;
    int line = fn.decl_line;
    if (file.empty())
      if (auto at = t.dwarf->line_at(fn.entry_pc)) std::tie(file, line) = std::tie(at->file, at->line);
    std::string name = t.prefix + quoted("function", fn.name + "@" + file + ":" +
                                                         std::to_string(line)) + p.suffix;
    uint64_t pc = fn.inlined ? fn.entry_pc : t.dwarf->function_probe_pc(fn);
    out[name].push_back(with_vars ? vars_of(*t.dwarf, fn, pc, is_return) : std::vector<std::string>{});
  };
  if (t.dwarf)
    for (const auto* fn : t.dwarf->match_functions(p.spec)) add(*fn);
  // Inlined copies are .function points too (not .return ones).
  if (t.dwarf && !is_return)
    for (const auto* fn : t.dwarf->match_inlined(p.spec)) add(*fn);
  if (p.spec.find('@') != std::string::npos) return;
  // Symbols: an alias of a DWARF function (malloc for __libc_malloc)
  // lists that function; a symbol where no DWARF function starts (a .cold
  // part, assembly, no debuginfo at all) is the point itself.
  std::map<uint64_t, const DwarfFunction*> starts;
  if (t.dwarf)
    for (const auto& fn : t.dwarf->functions()) starts.emplace(fn.entry_pc, &fn);
  for (const auto* sym : match_symbols(*t.elf, p.spec)) {
    // An IFUNC symbol's address is its resolver's, not the function's
    // (stap reads STT_FUNC only).
    if (sym->ifunc) continue;
    auto fn = starts.find(sym->address);
    if (fn != starts.end()) add(*fn->second);
    else if (!covered.count(sym->address))
      out[t.prefix + quoted("function", sym->name) + p.suffix].emplace_back();
  }
}

void list_statements(const ProcessPattern& p, Target& t, bool with_vars,
                     Listed& out) {
  if (!t.dwarf) return;
  FunctionSpec spec = parse_function_spec(p.spec);
  int first = 0, last = 0;
  bool any_line = spec.line.empty() || spec.line == "*";
  if (!any_line) {
    size_t dash = spec.line.find('-');
    first = std::atoi(spec.line.c_str());
    last = dash == std::string::npos ? first : std::atoi(spec.line.c_str() + dash + 1);
  }
  for (const auto* fn : t.dwarf->match_functions(p.spec)) {
    for (const auto& [line, addr] : t.dwarf->function_lines(*fn)) {
      if (!any_line && (line.line < first || line.line > last)) continue;
      if (!spec.file.empty() && !file_matches(spec.file, line.file)) continue;
      std::string name = t.prefix + quoted("statement", fn->name + "@" + line.file + ":" +
                                                            std::to_string(line.line)) + p.suffix;
      out[name].push_back(with_vars ? vars_of(*t.dwarf, *fn, addr, false) : std::vector<std::string>{});
    }
  }
}

void list_marks(const ProcessPattern& p, Target& t, bool with_vars,
                Listed& out) {
  for (const auto& mark : read_sdt_marks(*t.elf)) {
    if (!glob(p.spec, mark.name) || (!p.provider.empty() && !glob(p.provider, mark.provider)))
      continue;
    std::string name = t.prefix + (p.provider.empty() ? "" : quoted("provider", mark.provider)) +
                       quoted("mark", mark.name);
    std::vector<std::string> vars;
    for (size_t i = 1; with_vars && i <= mark.args.size(); ++i)
      vars.push_back("$arg" + std::to_string(i) + ":long");
    out[name].push_back(vars);
  }
}

}  // namespace

std::optional<ProcessPattern> parse_process_pattern(const std::string& text) {
  std::vector<Component> parts;
  if (!split_components(text, parts) || parts[0].name != "process" || !parts[0].has_arg ||
      parts.size() < 2)
    return std::nullopt;
  ProcessPattern p;
  p.process = parts[0].arg;
  size_t i = 1;
  if (parts[i].name == "library" && parts[i].has_arg) p.library = parts[i++].arg;
  if (i < parts.size() && parts[i].name == "provider" && parts[i].has_arg) p.provider = parts[i++].arg;
  if (i >= parts.size() || !parts[i].has_arg) return std::nullopt;
  p.kind = parts[i].name;
  p.spec = parts[i++].arg;
  bool known = p.kind == "function" || p.kind == "statement" || p.kind == "plt" || p.kind == "mark";
  if (!known || (!p.provider.empty() && p.kind != "mark")) return std::nullopt;
  if (i < parts.size() && p.kind == "function" && !parts[i].has_arg &&
      (parts[i].name == "call" || parts[i].name == "return"))
    p.suffix = "." + parts[i++].name;
  if (i != parts.size()) return std::nullopt;
  return p;
}

std::vector<std::string> list_process_points(const ProcessPattern& p, bool with_vars,
                                             std::string& why) {
  std::string exe = find_executable(p.process, why);
  if (exe.empty()) return {};
  Target t;
  t.prefix = "process(\"" + exe + "\")";
  std::string path = exe;
  if (!p.library.empty()) {
    path = find_library(p.library, exe, why);
    if (path.empty()) return {};
    t.prefix += ".library(\"" + path + "\")";
  }
  t.elf = ElfFile::open(path, why);
  if (!t.elf) return {};
  std::string no_dwarf;
  if (p.kind == "function" || p.kind == "statement") t.dwarf = DwarfFile::open(*t.elf, no_dwarf);
  if (t.dwarf) t.elf->add_debug_symbols(t.dwarf->debug_elf());
  Listed listed;
  if (p.kind == "function") list_functions(p, t, with_vars, listed);
  if (p.kind == "statement") list_statements(p, t, with_vars, listed);
  if (p.kind == "mark") list_marks(p, t, with_vars, listed);
  if (p.kind == "plt")
    for (const auto& entry : t.elf->plt_entries())
      if (glob(p.spec, entry.name)) listed[t.prefix + quoted("plt", entry.name)].emplace_back();
  why = listed.empty() && p.kind == "statement" ? no_dwarf : "";
  std::vector<std::string> out;
  for (const auto& [name, points] : listed) out.push_back(name + common_vars(points));
  return out;
}

}  // namespace stap::debuginfo
