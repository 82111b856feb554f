#include "debuginfo/process_listing.h"

#include <dwarf.h>

#include <fnmatch.h>

#include <algorithm>

#include <map>
#include <tuple>
#include <set>

#include "debuginfo/process_points.h"

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

// Listed name -> the variables of each probe point listed under it.
using Listed = std::map<std::string, std::vector<std::vector<std::string>>>;

// The DIE offsets of the variables and parameters declared directly in
// fn's scope (not in its lexical blocks).
std::set<Dwarf_Off> own_variables(const DwarfFunction& fn) {
  std::set<Dwarf_Off> out;
  Dwarf_Die die = fn.die, child;
  if (dwarf_child(&die, &child) != 0) return out;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) out.insert(dwarf_dieoffset(&child));
  } while (dwarf_siblingof(&child, &child) == 0);
  return out;
}

// stap lists what a probe sees: at a statement line the innermost block's
// variables and its enclosing scopes', at a function's entry the
// function's own (its blocks' locals are not listed even where their
// range starts at the entry).
std::vector<std::string> vars_of(const DwarfFile& dwarf, const DwarfFunction& fn, uint64_t pc,
                                 bool is_return, bool in_block) {
  std::vector<std::string> out;
  if (is_return) {
    Type ret = dwarf.return_type(fn);
    if (!ret.is_void) out.push_back("$return:" + type_name(ret));
  }
  std::set<Dwarf_Off> own = in_block ? std::set<Dwarf_Off>{} : own_variables(fn);
  for (const auto& v : dwarf.variables_at(fn, pc)) {
    Dwarf_Die die = v.die;
    if (in_block || own.count(dwarf_dieoffset(&die))) out.push_back("$" + v.name + ":" + type_name(v.type));
  }
  return out;
}

}  // namespace

std::vector<std::string> site_vars(const ResolvedPoint& r, const ProbeSite& s) {
  std::vector<std::string> vars;
  if (s.mark) {
    for (size_t i = 1; i <= s.mark->args.size(); ++i)
      vars.push_back("$arg" + std::to_string(i) + ":long");
  } else if (s.fn && r.binary->dwarf) {
    vars = vars_of(*r.binary->dwarf, *s.fn, s.pc, r.is_return, s.in_block);
  }
  return vars;
}

namespace {

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
  ResolvedPoint resolved;
  if (!resolve_process_point(p, resolved, why)) return {};
  Listed listed;
  for (const ProbeSite& s : resolved.sites)
    listed[s.point].push_back(with_vars ? site_vars(resolved, s) : std::vector<std::string>{});
  if (!listed.empty()) why.clear();
  std::vector<std::string> out;
  for (const auto& [name, points] : listed) out.push_back(name + common_vars(points));
  return out;
}

}  // namespace stap::debuginfo
