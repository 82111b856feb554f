// The provider table, the pattern machinery shared by every provider, and
// the resolution of points that no alias claimed, with stap's wording for
// mismatches.
#include "base/edit_distance.h"
#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "ast/clone.h"
#include "elaborate/providers/provider.h"

namespace stap {

// ---------------------------------------------------------------- the table

// Adding a probe family: one file in this directory and one line here.
const std::vector<const ProbeProvider*>& all_providers() {
  static const std::vector<const ProbeProvider*> table = {
      &begin_end_provider(),
      &timer_provider(),
      &tracepoint_provider(),
      &btf_tracepoint_provider(),
      &lsm_provider(),
      &watchpoint_provider(),
      &kernel_function_provider(),
      &process_provider(),
      &perf_provider(),
      &procfs_provider(),
      &netfilter_provider(),
  };
  return table;
}

const ProbeProvider* find_provider(const ast::ProbePoint& point) {
  for (const ProbeProvider* p : all_providers())
    if (p->matches(point)) return p;
  return nullptr;
}

// ---------------------------------------------------------------- patterns

ProbePattern parse_pattern(std::string_view text) {
  ProbePattern pattern;
  pattern.text = std::string(text);
  size_t i = 0;
  while (i < text.size()) {
    size_t end = text.find_first_of(".(", i);
    PatternComponent c;
    c.name = std::string(text.substr(i, end == std::string_view::npos ? end : end - i));
    i = end == std::string_view::npos ? text.size() : end;
    if (i < text.size() && text[i] == '(') {
      size_t close = text.find(')', i);
      if (close == std::string_view::npos) std::abort();
      std::string_view kind = text.substr(i + 1, close - i - 1);
      if (kind == "number") c.arg = ArgKind::number;
      else if (kind == "string") c.arg = ArgKind::string;
      else std::abort();
      i = close + 1;
    }
    if (c.name.empty()) std::abort();
    pattern.components.push_back(std::move(c));
    if (i < text.size() && text[i] == '.') ++i;
  }
  return pattern;
}

namespace {

ArgKind arg_kind(const ast::Expr* arg) {
  if (!arg) return ArgKind::none;
  if (dynamic_cast<const ast::StringLit*>(arg)) return ArgKind::string;
  return ArgKind::number;
}

bool glob_matches(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

std::string component_signature(const PatternComponent& c) {
  switch (c.arg) {
    case ArgKind::none: return c.name;
    case ArgKind::number: return c.name + "(number)";
    case ArgKind::string: return c.name + "(string)";
  }
  return c.name;
}

}  // namespace

bool pattern_matches(const ProbePattern& pattern, const ast::ProbePoint& point) {
  if (pattern.components.size() != point.components.size()) return false;
  for (size_t i = 0; i < point.components.size(); ++i) {
    const PatternComponent& want = pattern.components[i];
    const ast::ProbePointComponent& have = point.components[i];
    if (want.name != have.functor || want.arg != arg_kind(have.arg)) return false;
  }
  return true;
}

bool is_wildcard(std::string_view functor) {
  return functor.find_first_of("*?[") != std::string_view::npos;
}

// ---------------------------------------------------------------- provider base

ProbeProvider::ProbeProvider(std::string name, std::vector<std::string> patterns,
                             bool resolved_later)
    : name_(std::move(name)), resolved_later_(resolved_later) {
  for (const std::string& p : patterns) patterns_.push_back(parse_pattern(p));
}

bool ProbeProvider::matches(const ast::ProbePoint& point) const {
  if (point.components.empty()) return false;
  const std::string& head = point.components[0].functor;
  for (const ProbePattern& p : patterns_)
    if (p.components[0].name == head) return true;
  return false;
}

bool ProbeProvider::check_values(ast::ProbePoint&, const ProbePattern&, Diagnostics&) const {
  return true;
}

bool ProbeProvider::has_target_vars(const ast::ProbePoint&) const { return false; }

std::string ProbeProvider::no_target_vars_message(const ast::ProbePoint&) const {
  return "unresolved target-symbol expression";
}

bool ProbeProvider::has_entry_values(const ast::ProbePoint&) const { return false; }

std::optional<bool> ProbeProvider::check_target_use(const ast::ProbePoint&,
                                                    const ast::TargetSymbol&, const TargetUse&,
                                                    Diagnostics&) const {
  return std::nullopt;
}

std::vector<ast::ProbePoint*> ProbeProvider::expand_point(ast::ProbePoint& point,
                                                         const ResolveRequest&,
                                                         ast::Arena&) const {
  return {&point};
}

std::optional<std::vector<std::string>> ProbeProvider::known_target_vars(
    const ast::ProbePoint&) const {
  return std::nullopt;
}

bool ProbeProvider::may_match(const ast::ProbePoint&) const { return true; }

size_t ProbeProvider::resolve(const ast::ProbePoint& point, const ResolveRequest& request,
                              DerivedProbe&, Diagnostics&) const {
  return request.quiet && !may_match(point) ? 0 : 1;
}

std::vector<std::string> ProbeProvider::list_points(const ast::ProbePoint& point) const {
  return {point.to_string()};
}

std::vector<std::pair<std::string, std::string>> ProbeProvider::target_var_list(
    const ast::ProbePoint&) const {
  return {};
}

ast::Type ProbeProvider::target_var_type(const ast::ProbePoint&, const std::string&) const {
  return ast::Type::unknown;
}

const ast::ProbePointComponent* ProbeProvider::find(const ast::ProbePoint& point,
                                                    std::string_view functor) {
  for (const ast::ProbePointComponent& c : point.components)
    if (c.functor == functor) return &c;
  return nullptr;
}

int64_t ProbeProvider::number_arg(const ast::ProbePointComponent& c) {
  auto* n = dynamic_cast<const ast::NumberLit*>(c.arg);
  return n ? n->value : 0;
}

const std::string& ProbeProvider::string_arg(const ast::ProbePointComponent& c) {
  static const std::string none;
  auto* s = dynamic_cast<const ast::StringLit*>(c.arg);
  return s ? s->value : none;
}

void ProbeProvider::value_error(const ast::ProbePoint& point, SourceLoc loc, std::string message,
                                Diagnostics& diags) {
  diags.semantic_error(point.components[0].loc, "while resolving probe point",
                       "identifier '" + point.components[0].functor + "'");
  diags.semantic_error(loc, std::move(message));
}

namespace {

std::string describe_component(const ast::ProbePointComponent& c) {
  if (c.functor == "*" || c.functor == "**") return "operator '" + c.functor + "'";
  return "identifier '" + c.functor + "'";
}


}  // namespace

// " (similar: a, b, c)": the five nearest candidates by edit distance,
// as stap hints; empty when none is near.
std::string similar_hint(const std::string& word, const std::set<std::string>& candidates) {
  std::vector<std::pair<size_t, std::string>> near;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d <= 5) near.emplace_back(d, c);
  }
  std::sort(near.begin(), near.end());
  if (near.empty()) return {};
  std::string hint = " (similar: ";
  for (size_t i = 0; i < near.size() && i < 5; ++i) hint += (i ? ", " : "") + near[i].second;
  return hint + ")";
}

namespace {

// Where a point stops matching every pattern, and stap's words for it.
struct Mismatch {
  size_t index = 0;       // the component blamed
  std::string message;
};

Mismatch locate_mismatch(const ast::ProbePoint& point, const std::vector<std::string>& extra) {
  std::vector<const ProbePattern*> live;
  for (const ProbeProvider* p : all_providers())
    for (const ProbePattern& pat : p->patterns()) live.push_back(&pat);
  const auto& comps = point.components;
  for (size_t i = 0; i < comps.size(); ++i) {
    std::vector<const ProbePattern*> next;
    std::set<std::string> names;
    bool longer = false, complete = false;
    for (const ProbePattern* pat : live) {
      if (pat->components.size() <= i) {
        complete = complete || pat->components.size() == i;
        continue;
      }
      longer = true;
      const PatternComponent& want = pat->components[i];
      names.insert(want.name);
      if (glob_matches(comps[i].functor, want.name) && want.arg == arg_kind(comps[i].arg))
        next.push_back(pat);
    }
    // Past a point that is complete by itself, stap calls the rest a suffix.
    if (!longer || (next.empty() && complete)) return {i, "invalid suffix for probe"};
    if (next.empty()) {
      if (i == 0) names.insert(extra.begin(), extra.end());
      std::string what = is_wildcard(comps[i].functor)
                             ? "probe point mismatch: didn't find any wildcard matches"
                             : "probe point mismatch";
      return {i, what + similar_hint(comps[i].functor, names)};
    }
    live = std::move(next);
  }
  // Every component matched but no pattern ends here.
  std::set<std::string> follow;
  for (const ProbePattern* pat : live)
    if (pat->components.size() > comps.size())
      follow.insert(component_signature(pat->components[comps.size()]));
  std::string list;
  for (const std::string& f : follow) list += " " + f;
  return {comps.size() - 1, "probe point truncated (follow: " + list + ")"};
}

void report_mismatch(const ast::ProbePoint& point, const std::vector<std::string>& extra,
                     Diagnostics& diags) {
  Mismatch m = locate_mismatch(point, extra);
  const ast::ProbePointComponent& blamed = point.components[m.index];
  diags.semantic_error(point.components[0].loc, "while resolving probe point",
                       describe_component(point.components[0]));
  diags.semantic_error(blamed.loc, m.message, describe_component(blamed));
}

// The concrete name lists a wildcard point stands for, in pattern order.
std::vector<std::vector<std::string>> expand_names(const ast::ProbePoint& point) {
  std::vector<std::vector<std::string>> out;
  std::set<std::vector<std::string>> seen;
  for (const ProbeProvider* p : all_providers()) {
    for (const ProbePattern& pat : p->patterns()) {
      if (pat.components.size() != point.components.size()) continue;
      std::vector<std::string> names;
      for (size_t i = 0; i < pat.components.size(); ++i) {
        const ast::ProbePointComponent& c = point.components[i];
        if (!glob_matches(c.functor, pat.components[i].name) ||
            pat.components[i].arg != arg_kind(c.arg))
          break;
        names.push_back(pat.components[i].name);
      }
      if (names.size() == pat.components.size() && seen.insert(names).second)
        out.push_back(std::move(names));
    }
  }
  return out;
}

}  // namespace

bool builtin_shape_matches(const ast::ProbePoint& point) { return !expand_names(point).empty(); }

bool ProbeProvider::validate(ast::ProbePoint& point, Diagnostics& diags) const {
  for (const ProbePattern& pattern : patterns_)
    if (pattern_matches(pattern, point)) return check_values(point, pattern, diags);
  report_mismatch(point, {}, diags);
  return false;
}

std::vector<ast::ProbePoint*> resolve_builtin_point(ast::ProbePoint& point, ast::Arena& arena,
                                                    const std::vector<std::string>& extra_names,
                                                    bool quiet, Diagnostics& diags) {
  if (point.components.empty()) return {};
  bool wild = std::any_of(point.components.begin(), point.components.end(),
                          [](const ast::ProbePointComponent& c) { return is_wildcard(c.functor); });
  std::vector<ast::ProbePoint*> concrete;
  if (!wild) {
    concrete.push_back(&point);
  } else {
    for (const std::vector<std::string>& names : expand_names(point)) {
      ast::ProbePoint* copy = ast::clone(&point, arena);
      for (size_t i = 0; i < names.size(); ++i) copy->components[i].functor = names[i];
      concrete.push_back(copy);
    }
  }
  if (concrete.empty() || !find_provider(*concrete[0])) {
    if (!quiet) report_mismatch(point, extra_names, diags);
    return {};
  }
  // An optional point that fails is dropped without a word, whether it
  // matched nothing or was malformed (stap: "timer.ms(0)?" is silent).
  SourceManager scratch_sources;
  Diagnostics scratch(scratch_sources);
  std::vector<ast::ProbePoint*> valid;
  for (ast::ProbePoint* p : concrete) {
    const ProbeProvider* provider = find_provider(*p);
    if (provider && provider->validate(*p, quiet ? scratch : diags)) valid.push_back(p);
  }
  return valid;
}

}  // namespace stap
