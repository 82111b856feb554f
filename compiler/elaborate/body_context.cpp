#include "elaborate/body_context.h"

#include "elaborate/alias_expansion.h"
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

const char* const kNoTargetVars = "unresolved target-symbol expression";

std::string probe_name(const DerivedProbe& dp) {
  const ast::ProbeDecl& decl = *dp.decl;
  if (decl.via_aliases.empty() || decl.derived_from.empty())
    return dp.point ? dp.point->to_string() : std::string();
  std::string name = alias_point_name(decl);
  std::string user = decl.derived_from.front()->to_string();
  return name.empty() ? user : name + " from: " + user;
}

}  // namespace

std::unordered_map<const ast::ProbeDecl*, BodyContext> body_contexts(const Program& program) {
  std::unordered_map<const ast::ProbeDecl*, BodyContext> out;
  for (const DerivedProbe& dp : program.probes) {
    if (!dp.decl) continue;
    auto [it, first] = out.try_emplace(dp.decl);
    BodyContext& ctx = it->second;
    if (first) ctx.probe_name = probe_name(dp);
    ctx.probes.push_back(&dp);
    // A point no family claimed was reported already; assume the most.
    if (!dp.provider || !dp.point) continue;
    if (ctx.target_vars && !dp.provider->has_target_vars(*dp.point)) {
      ctx.target_vars = false;
      ctx.no_target_vars_message = dp.provider->no_target_vars_message(*dp.point);
    }
    if (!dp.provider->has_entry_values(*dp.point)) ctx.entry_values = false;
  }
  return out;
}

BodyContext function_context() {
  BodyContext ctx;
  ctx.target_vars = false;
  ctx.entry_values = false;
  ctx.no_target_vars_message = kNoTargetVars;
  return ctx;
}

}  // namespace stap
