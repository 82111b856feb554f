#include "elaborate/alias_expansion.h"

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "ast/clone.h"
#include "elaborate/providers/provider.h"
#include "parse/printer.h"

namespace stap {

// ---------------------------------------------------------------- matching

namespace {

bool name_has_args(const ast::ProbePoint& name) {
  return std::any_of(name.components.begin(), name.components.end(),
                     [](const ast::ProbePointComponent& c) { return c.arg != nullptr; });
}

bool component_matches(const ast::ProbePointComponent& want, const std::string& name) {
  return !want.arg && fnmatch(want.functor.c_str(), name.c_str(), 0) == 0;
}

// Whether point[i..] matches name[j..] exactly; "**" stands for one or more
// components.
bool match_from(const ast::ProbePoint& point, size_t i, const ast::ProbePoint& name, size_t j) {
  const auto& pc = point.components;
  const auto& nc = name.components;
  if (i == pc.size()) return j == nc.size();
  if (pc[i].functor == "**" && !pc[i].arg) {
    for (size_t k = j + 1; k <= nc.size(); ++k)
      if (match_from(point, i + 1, name, k)) return true;
    return false;
  }
  if (j == nc.size() || !component_matches(pc[i], nc[j].functor)) return false;
  return match_from(point, i + 1, name, j + 1);
}

}  // namespace

AliasMatch match_alias_name(const ast::ProbePoint& point, const ast::ProbePoint& name) {
  if (name.components.empty() || name_has_args(name)) return {};
  if (match_from(point, 0, name, 0)) return {AliasMatch::Kind::full, point.components.size()};
  size_t n = name.components.size();
  if (n >= point.components.size()) return {};
  for (size_t i = 0; i < n; ++i) {
    const ast::ProbePointComponent& c = point.components[i];
    if (c.functor == "**" || !component_matches(c, name.components[i].functor)) return {};
  }
  return {AliasMatch::Kind::prefix, n};
}

bool check_alias_names(const ast::AliasDecl& alias, Diagnostics& diags) {
  for (const ast::ProbePoint* name : alias.names) {
    for (const ast::ProbePointComponent& c : name->components) {
      if (!c.arg) continue;
      diags.semantic_error(alias.loc, "while registering probe alias", "keyword");
      diags.semantic_error(c.loc, "alias component " + c.functor + " contains illegal parameter");
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------- printing

std::string point_text(const ast::ProbePoint& point, bool with_condition) {
  std::ostringstream out;
  out << point.to_string();
  if (point.sufficient) out << '!';
  else if (point.optional) out << '?';
  if (with_condition && point.condition) {
    out << " if (";
    print_expr(*point.condition, out);
    out << ')';
  }
  return out.str();
}

namespace {

std::string join_points(const std::vector<ast::ProbePoint*>& points, const char* sep) {
  std::string out;
  for (size_t i = 0; i < points.size(); ++i) out += (i ? sep : "") + point_text(*points[i]);
  return out;
}

}  // namespace

std::string alias_text(const ast::AliasDecl& alias) {
  return join_points(alias.names, ", ") + (alias.epilogue ? " += " : " = ") +
         join_points(alias.points, ", ");
}

// " /* <- a = begin <- a,end */": the aliases innermost first, then the
// user's probe points as written.
std::string alias_point_name(const ast::ProbeDecl& derived) {
  if (derived.via_aliases.empty() || derived.derived_from.empty()) return "";
  const ast::ProbePoint& user = *derived.derived_from.front();
  for (const ast::ProbePoint* name : derived.via_aliases.back()->names) {
    AliasMatch m = match_alias_name(user, *name);
    if (m.kind == AliasMatch::Kind::none) continue;
    ast::ProbePoint matched;
    matched.components = name->components;
    for (size_t i = m.length; i < user.components.size(); ++i)
      matched.components.push_back(user.components[i]);
    return matched.to_string();
  }
  return "";
}

std::string derivation_note(const ast::ProbeDecl& derived) {
  std::string note = " /*";
  for (const ast::AliasDecl* alias : derived.via_aliases) note += " <- " + alias_text(*alias);
  const ast::ProbeDecl& origin = derived.origin ? *derived.origin : derived;
  note += " <- " + join_points(origin.points, ",");
  return note + " */";
}

// ---------------------------------------------------------------- expansion

namespace {

// Where the derivation of one user probe stands while it descends through
// aliases.
struct Context {
  const ast::ProbeDecl* origin = nullptr;
  std::vector<const ast::AliasDecl*> aliases;     // outermost first
  std::vector<const ast::ProbePoint*> points;     // the points went through
  std::vector<const ast::Block*> prologues;       // outermost first
  std::vector<uint32_t> prologue_expansions;
  std::vector<const ast::Block*> epilogues;       // outermost first
  std::vector<uint32_t> epilogue_expansions;
  ast::Expr* condition = nullptr;  // the outer points' conditions, &&-ed
  uint32_t expansion = 0;          // chain for locations of the current alias's text
  bool quiet = false;              // under an optional point: failures are silent
};

class Expander {
 public:
  Expander(Program& program, TapsetLibrary& library, ast::Arena& arena, SourceManager& sources,
           Diagnostics& diags)
      : program_(program), library_(library), arena_(arena), sources_(sources), diags_(diags) {}

  void collect_user_aliases();
  void refresh_alias_names();
  void expand_probe(const ast::ProbeDecl& probe);

 private:
  size_t derive(const ast::ProbePoint& point, const Context& ctx);
  size_t derive_points(const std::vector<ast::ProbePoint*>& points, const Context& ctx);
  size_t expand_alias(const ast::ProbePoint& point, const ast::AliasDecl& alias,
                      const AliasMatch& match, const Context& ctx);
  std::vector<std::pair<ast::AliasDecl*, AliasMatch>> matching_aliases(
      const ast::ProbePoint& point);
  void add_probe(DerivedProbe derived, const Context& ctx);
  ast::Block* build_body(const Context& ctx);
  // stap's lead-in to every error about a point: "while resolving probe
  // point: identifier 'HEAD' at ...".
  void while_resolving(const ast::ProbePoint& point);
  bool only_aliases_could_match(const ast::ProbePoint& point) const;
  void report_alias_mismatch(const ast::ProbePoint& point);

  SourceLoc map_loc(SourceLoc loc, uint32_t expansion);
  uint32_t map_expansion(uint32_t id, uint32_t expansion);
  ast::LocMap loc_map(uint32_t expansion) {
    if (expansion == 0) return {};
    return [this, expansion](SourceLoc l) { return map_loc(l, expansion); };
  }

  Program& program_;
  TapsetLibrary& library_;
  ast::Arena& arena_;
  SourceManager& sources_;
  Diagnostics& diags_;
  std::vector<ast::AliasDecl*> user_aliases_;
  std::vector<std::string> alias_heads_;  // for "similar:" hints
  std::vector<const ast::ProbePoint*> alias_names_;
  size_t library_aliases_seen_ = 0;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> remapped_;
};

void Expander::collect_user_aliases() {
  for (const auto& file : program_.files) {
    if (file->is_tapset) continue;
    for (ast::AliasDecl* a : file->aliases) user_aliases_.push_back(a);
  }
  std::vector<ast::AliasDecl*> all = library_.all_aliases();
  library_aliases_seen_ = all.size();
  all.insert(all.end(), user_aliases_.begin(), user_aliases_.end());
  for (const ast::AliasDecl* a : all) {
    for (const ast::ProbePoint* n : a->names) {
      if (n->components.empty()) continue;
      alias_heads_.push_back(n->components[0].functor);
      alias_names_.push_back(n);
    }
  }
}

// The library grows while points are expanded (the syscall aliases are
// generated on demand, all of them for a call name that matches none), so
// the names the mismatch hints walk are taken again when it did.
void Expander::refresh_alias_names() {
  if (library_.all_aliases().size() == library_aliases_seen_) return;
  user_aliases_.clear();
  alias_heads_.clear();
  alias_names_.clear();
  collect_user_aliases();
}

// "syscall.nope*": the head names aliases and no provider, so the miss is
// explained over the alias names, as stap walks its tree of names.
bool Expander::only_aliases_could_match(const ast::ProbePoint& point) const {
  const ast::ProbePointComponent& head = point.components[0];
  for (const ProbeProvider* p : all_providers())
    for (const ProbePattern& pat : p->patterns())
      if (component_matches(head, pat.components[0].name)) return false;
  return std::any_of(alias_heads_.begin(), alias_heads_.end(),
                     [&](const std::string& h) { return component_matches(head, h); });
}

void Expander::report_alias_mismatch(const ast::ProbePoint& point) {
  std::vector<const ast::ProbePoint*> live = alias_names_;
  const auto& comps = point.components;
  for (size_t i = 0; i < comps.size(); ++i) {
    std::vector<const ast::ProbePoint*> next;
    std::set<std::string> names;
    for (const ast::ProbePoint* name : live) {
      if (name->components.size() <= i) continue;
      names.insert(name->components[i].functor);
      if (component_matches(comps[i], name->components[i].functor)) next.push_back(name);
    }
    if (!next.empty()) {
      live = std::move(next);
      continue;
    }
    std::string message = names.empty()           ? "invalid suffix for probe"
                          : is_wildcard(comps[i].functor)
                              ? "probe point mismatch: didn't find any wildcard matches"
                              : "probe point mismatch";
    if (!names.empty()) message += similar_hint(comps[i].functor, names);
    const char* kind = comps[i].functor == "*" || comps[i].functor == "**" ? "operator '"
                                                                            : "identifier '";
    while_resolving(point);
    diags_.semantic_error(comps[i].loc, message, kind + comps[i].functor + "'");
    return;
  }
  while_resolving(point);
  diags_.semantic_error({}, "no match");
}

// A location inside alias text, chained to the expansion that brought the
// alias in.  A location already inside a macro expansion keeps its macro
// chain, whose outer end is re-pointed at the alias expansion.
SourceLoc Expander::map_loc(SourceLoc loc, uint32_t expansion) {
  if (expansion == 0) return loc;
  loc.expansion = loc.expansion == 0 ? expansion : map_expansion(loc.expansion, expansion);
  return loc;
}

uint32_t Expander::map_expansion(uint32_t id, uint32_t expansion) {
  auto key = std::make_pair(id, expansion);
  auto it = remapped_.find(key);
  if (it != remapped_.end()) return it->second;
  SourceManager::Expansion e = sources_.expansion(id);
  uint32_t mapped = sources_.add_expansion(e.what, map_loc(e.where, expansion));
  remapped_.emplace(key, mapped);
  return mapped;
}

void Expander::while_resolving(const ast::ProbePoint& point) {
  const ast::ProbePointComponent& head = point.components[0];
  diags_.semantic_error(head.loc, "while resolving probe point",
                        "identifier '" + head.functor + "'");
}

// Every alias whose name the point matches: full matches when there are
// any, else those matching the longest prefix.  With wildcards, ordered by
// name (shorter names first), as stap walks its tree of names.
std::vector<std::pair<ast::AliasDecl*, AliasMatch>> Expander::matching_aliases(
    const ast::ProbePoint& point) {
  std::vector<std::pair<ast::AliasDecl*, AliasMatch>> all;
  auto consider = [&](ast::AliasDecl* a) {
    for (const ast::ProbePoint* name : a->names) {
      AliasMatch m = match_alias_name(point, *name);
      if (m.kind == AliasMatch::Kind::none) continue;
      all.emplace_back(a, m);
      return;
    }
  };
  for (ast::AliasDecl* a : library_.need_aliases(point, program_)) consider(a);
  for (ast::AliasDecl* a : user_aliases_) consider(a);
  bool any_full = std::any_of(all.begin(), all.end(), [](const auto& e) {
    return e.second.kind == AliasMatch::Kind::full;
  });
  size_t longest = 0;
  for (const auto& e : all) longest = std::max(longest, e.second.length);
  bool builtin = !any_full && builtin_shape_matches(point);
  std::erase_if(all, [&](const auto& e) {
    if (builtin) return true;
    return any_full ? e.second.kind != AliasMatch::Kind::full : e.second.length != longest;
  });
  bool wild = std::any_of(point.components.begin(), point.components.end(),
                          [](const ast::ProbePointComponent& c) { return is_wildcard(c.functor); });
  if (wild) {
    auto key = [](const ast::AliasDecl* a) {
      std::vector<std::string> k;
      for (const ast::ProbePointComponent& c : a->names[0]->components) k.push_back(c.functor);
      return k;
    };
    std::stable_sort(all.begin(), all.end(), [&](const auto& x, const auto& y) {
      auto kx = key(x.first), ky = key(y.first);
      return kx.size() != ky.size() ? kx.size() < ky.size() : kx < ky;
    });
  }
  return all;
}

// Points of one list in order; a '!' point that resolved ends the list.
size_t Expander::derive_points(const std::vector<ast::ProbePoint*>& points, const Context& ctx) {
  size_t total = 0;
  for (const ast::ProbePoint* p : points) {
    size_t n = derive(*p, ctx);
    total += n;
    if (n > 0 && p->sufficient) break;
  }
  return total;
}

size_t Expander::derive(const ast::ProbePoint& point, const Context& outer) {
  Context ctx = outer;
  ctx.quiet = outer.quiet || point.optional || point.sufficient;
  ctx.points.push_back(&point);
  if (point.condition) {
    ast::Expr* cond = ast::clone(point.condition, arena_, loc_map(outer.expansion));
    if (ctx.condition) {
      auto* both = arena_.make<ast::BinaryExpr>();
      both->op = "&&";
      both->loc = cond->loc;
      both->left = cond;
      both->right = ctx.condition;
      cond = both;
    }
    ctx.condition = cond;
  }
  auto aliases = matching_aliases(point);
  if (aliases.empty()) refresh_alias_names();
  // syscall.* with the kernel's syscall events closed: that is the reason,
  // not a spelling to correct.
  if (std::string why = library_.why_no_syscall_aliases(point); aliases.empty() && !why.empty()) {
    if (!ctx.quiet) {
      while_resolving(point);
      diags_.semantic_error(point.components[0].loc, "probe point mismatch: " + why,
                            "identifier '" + point.components[0].functor + "'");
    }
    return 0;
  }
  if (aliases.empty() && only_aliases_could_match(point)) {
    if (!ctx.quiet) report_alias_mismatch(point);
    return 0;
  }
  if (aliases.empty()) {
    ast::ProbePoint* copy = ast::clone(&point, arena_, loc_map(outer.expansion));
    std::vector<ast::ProbePoint*> concrete =
        resolve_builtin_point(*copy, arena_, alias_heads_, ctx.quiet, diags_);
    size_t added = 0;
    ResolveRequest request{ctx.quiet, program_.will_run, program_.guru, program_.target_program};
    for (ast::ProbePoint* point : concrete) {
      const ProbeProvider* provider = find_provider(*point);
      std::vector<ast::ProbePoint*> expanded{point};
      if (provider) expanded = provider->expand_point(*point, request, arena_);
      for (ast::ProbePoint* p : expanded) {
        DerivedProbe derived{nullptr, p, provider};
        if (provider && provider->resolve(*p, request, derived, diags_) == 0) continue;
        add_probe(std::move(derived), ctx);
        ++added;
      }
    }
    return added;
  }
  size_t total = 0;
  for (const auto& [alias, match] : aliases) total += expand_alias(point, *alias, match, ctx);
  // Inner failures were reported where they happened; like stap, say "no
  // match" once, for the user's own point, not for every alias level.
  if (total == 0 && !ctx.quiet && outer.aliases.empty()) {
    while_resolving(point);
    diags_.semantic_error({}, "no match");
  }
  return total;
}

size_t Expander::expand_alias(const ast::ProbePoint& point, const ast::AliasDecl& alias,
                              const AliasMatch& match, const Context& outer) {
  if (std::find(outer.aliases.begin(), outer.aliases.end(), &alias) != outer.aliases.end()) {
    while_resolving(point);
    diags_.semantic_error(point.loc.valid() ? point.loc : point.components[0].loc,
                          "recursive loop in alias expansion of " + point_text(point, false));
    return 0;
  }
  std::vector<const ast::ProbePointComponent*> suffix;
  for (size_t i = match.length; i < point.components.size(); ++i) {
    const ast::ProbePointComponent& c = point.components[i];
    if (is_wildcard(c.functor)) {
      if (!outer.quiet) {
        while_resolving(point);
        diags_.semantic_error(c.loc, "invalid suffix for probe", "operator '" + c.functor + "'");
      }
      return 0;
    }
    suffix.push_back(&c);
  }
  Context ctx = outer;
  ctx.aliases.push_back(&alias);
  std::string name = point_text(*alias.names[0], false);
  SourceLoc where = point.components[0].loc;
  ctx.expansion = sources_.add_expansion("in expansion of probe alias '" + name + "'", where);
  if (alias.body) {
    if (alias.epilogue) {
      ctx.epilogues.push_back(alias.body);
      ctx.epilogue_expansions.push_back(ctx.expansion);
    } else {
      ctx.prologues.push_back(alias.body);
      ctx.prologue_expansions.push_back(ctx.expansion);
    }
  }
  // The alias's points, with the user's extra components appended.
  std::vector<ast::ProbePoint*> points;
  for (const ast::ProbePoint* p : alias.points) {
    ast::ProbePoint* copy = ast::clone(p, arena_, loc_map(ctx.expansion));
    for (const ast::ProbePointComponent* c : suffix) {
      ast::ProbePointComponent extra = *c;
      extra.arg = ast::clone(c->arg, arena_);
      copy->components.push_back(extra);
    }
    points.push_back(copy);
  }
  // Conditions of the copies are already chained; derive() must not map
  // them again, so the points are derived under the user's expansion.
  Context inner = ctx;
  inner.expansion = 0;
  return derive_points(points, inner);
}

// { innermost prologue ... outermost prologue, user body, outermost
// epilogue ... innermost epilogue }, each part a copy of its own.
ast::Block* Expander::build_body(const Context& ctx) {
  auto* body = arena_.make<ast::Block>();
  const ast::Block* user = ctx.origin->body;
  if (user) body->loc = user->loc;
  if (ctx.prologues.empty() && ctx.epilogues.empty()) {
    if (user) body->statements = ast::clone(user, arena_)->statements;
    return body;
  }
  for (size_t i = ctx.prologues.size(); i-- > 0;)
    body->statements.push_back(
        ast::clone(ctx.prologues[i], arena_, loc_map(ctx.prologue_expansions[i])));
  if (user) body->statements.push_back(ast::clone(user, arena_));
  for (size_t i = 0; i < ctx.epilogues.size(); ++i)
    body->statements.push_back(
        ast::clone(ctx.epilogues[i], arena_, loc_map(ctx.epilogue_expansions[i])));
  return body;
}

void Expander::add_probe(DerivedProbe derived, const Context& ctx) {
  ast::ProbePoint* point = derived.point;
  point->condition = ctx.condition ? ast::clone(ctx.condition, arena_) : nullptr;
  auto* probe = arena_.make<ast::ProbeDecl>();
  probe->loc = ctx.origin->loc;
  probe->is_private = ctx.origin->is_private;
  probe->points.push_back(point);
  probe->body = build_body(ctx);
  probe->derived_from.assign(ctx.points.begin(), ctx.points.end());
  probe->via_aliases.assign(ctx.aliases.rbegin(), ctx.aliases.rend());
  probe->origin = ctx.origin;
  derived.decl = probe;
  program_.probes.push_back(std::move(derived));
}

void Expander::expand_probe(const ast::ProbeDecl& probe) {
  Context ctx;
  ctx.origin = &probe;
  derive_points(probe.points, ctx);
}

}  // namespace

bool expand_aliases(Program& program, TapsetLibrary& library, ast::Arena& arena,
                    SourceManager& sources, Diagnostics& diags) {
  size_t errors = diags.error_count();
  // Registering the user's aliases comes first, once per file.
  for (size_t i = program.expanded_files; i < program.files.size(); ++i) {
    ast::File& file = *program.files[i];
    if (file.is_tapset) continue;
    std::erase_if(file.aliases, [&](ast::AliasDecl* a) { return !check_alias_names(*a, diags); });
  }
  Expander expander(program, library, arena, sources, diags);
  expander.collect_user_aliases();
  // Expanding can pull tapset files in (need_aliases), whose own probes
  // join the program too: the loop runs until no new file arrived.
  while (program.expanded_files < program.files.size()) {
    ast::File* file = program.files[program.expanded_files++].get();
    for (const ast::ProbeDecl* probe : file->probes) expander.expand_probe(*probe);
  }
  return diags.error_count() == errors;
}

}  // namespace stap
