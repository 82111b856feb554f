// netfilter.hook("HOOK").pf("PF")[.priority("N")] (or .pf().hook()): a
// program run at a netfilter hook for every packet of a protocol family,
// through the kernel's BPF netfilter link (BPF_PROG_TYPE_NETFILTER, Linux
// 6.4+).  Names are the kernel's constants as stap spells them
// (NF_INET_LOCAL_IN, NFPROTO_IPV4, NF_IP_PRI_FILTER); the priority is a
// string, as in stap, defaulting to "0".  stap's tapset
// (tapsets/netfilter.stp) builds netfilter.ipv4.local_in ... on these.
//
// The target variables are stap's: $hooknum, $skb, $in, $out, $okfn, read
// anywhere; $verdict, the packet's fate (NF_DROP 0, NF_ACCEPT 1), written
// only under -g.  Under -g stap passes an unknown hook or family name on to
// the C compiler, so pass 2 lets it through there (semok/netfilter01); pass
// 3 then says that only names and numbers can be compiled.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "elaborate/providers/provider.h"

namespace stap {

namespace {

struct NamedValue {
  const char* name;
  int64_t value;
};

struct Family {
  const char* name;  // NFPROTO_IPV4
  int64_t number;
  std::vector<NamedValue> hooks;
  const char* priority_prefix;  // "NF_IP_PRI_", or null: numbers only
};

const std::vector<Family>& families() {
  static const std::vector<Family> table = {
      {"NFPROTO_IPV4",
       2,
       {{"NF_INET_PRE_ROUTING", 0}, {"NF_INET_LOCAL_IN", 1}, {"NF_INET_FORWARD", 2},
        {"NF_INET_LOCAL_OUT", 3}, {"NF_INET_POST_ROUTING", 4}, {"NF_IP_PRE_ROUTING", 0},
        {"NF_IP_LOCAL_IN", 1}, {"NF_IP_FORWARD", 2}, {"NF_IP_LOCAL_OUT", 3},
        {"NF_IP_POST_ROUTING", 4}},
       "NF_IP_PRI_"},
      // The kernel numbers IPv6 hooks as IPv4's (enum nf_inet_hooks), so
      // its NF_INET_ names are taken too.
      {"NFPROTO_IPV6",
       10,
       {{"NF_IP6_PRE_ROUTING", 0}, {"NF_IP6_LOCAL_IN", 1}, {"NF_IP6_FORWARD", 2},
        {"NF_IP6_LOCAL_OUT", 3}, {"NF_IP6_POST_ROUTING", 4}, {"NF_INET_PRE_ROUTING", 0},
        {"NF_INET_LOCAL_IN", 1}, {"NF_INET_FORWARD", 2}, {"NF_INET_LOCAL_OUT", 3},
        {"NF_INET_POST_ROUTING", 4}},
       "NF_IP6_PRI_"},
      {"NFPROTO_ARP", 3, {{"NF_ARP_IN", 0}, {"NF_ARP_OUT", 1}, {"NF_ARP_FORWARD", 2}}, nullptr},
      {"NFPROTO_BRIDGE",
       7,
       {{"NF_BR_PRE_ROUTING", 0}, {"NF_BR_LOCAL_IN", 1}, {"NF_BR_FORWARD", 2},
        {"NF_BR_LOCAL_OUT", 3}, {"NF_BR_POST_ROUTING", 4}},
       nullptr},
  };
  return table;
}

// The priorities of include/uapi/linux/netfilter_ipv4.h (and _ipv6.h),
// after their NF_IP_PRI_ / NF_IP6_PRI_ prefix.
constexpr NamedValue kPriorities[] = {
    {"FIRST", INT_MIN},           {"CONNTRACK_DEFRAG", -400}, {"RAW", -300},
    {"SELINUX_FIRST", -225},      {"CONNTRACK", -200},        {"MANGLE", -150},
    {"NAT_DST", -100},            {"FILTER", 0},              {"SECURITY", 50},
    {"NAT_SRC", 100},             {"SELINUX_LAST", 225},      {"CONNTRACK_CONFIRM", INT_MAX},
    {"LAST", INT_MAX},
};

// A whole decimal integer in [lo, hi].
std::optional<int64_t> decimal(const std::string& s, int64_t lo, int64_t hi) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end || v < lo || v > hi || s.front() == ' ' || s.front() == '+')
    return std::nullopt;
  return v;
}

const ast::ProbePointComponent* component(const ast::ProbePoint& point, std::string_view functor) {
  for (const ast::ProbePointComponent& c : point.components)
    if (c.functor == functor) return &c;
  return nullptr;
}

std::string text_of(const ast::ProbePointComponent* c) {
  auto* s = c ? dynamic_cast<const ast::StringLit*>(c->arg) : nullptr;
  return s ? s->value : std::string();
}

// Reads a point's hook, family and priority.  `numbers`: a hook or family
// may also be given by number (what stap's guru mode allows, as C).  On
// failure `error` says what is wrong and `where` points at it.
std::optional<NetfilterHook> read_point(const ast::ProbePoint& point, bool numbers,
                                        std::string& error, SourceLoc& where) {
  const ast::ProbePointComponent* hook_c = component(point, "hook");
  const ast::ProbePointComponent* pf_c = component(point, "pf");
  const ast::ProbePointComponent* prio_c = component(point, "priority");
  std::string hook = text_of(hook_c), pf = text_of(pf_c);
  std::string priority = prio_c ? text_of(prio_c) : "0";
  auto fail = [&](const ast::ProbePointComponent* c, std::string message) {
    error = std::move(message);
    where = c && c->arg ? c->arg->loc : point.components[0].loc;
    return std::nullopt;
  };

  // A family given by number (-1: not one).
  int64_t pf_number = numbers ? decimal(pf, 0, 255).value_or(-1) : -1;
  const Family* family = nullptr;
  for (const Family& f : families())
    if (pf == f.name || pf_number == f.number) family = &f;
  NetfilterHook out;
  if (family) out.pf = family->number;
  else if (pf_number >= 0) out.pf = pf_number;
  else return fail(pf_c, "unsupported netfilter protocol family \"" + pf + "\"");

  std::optional<int64_t> prio = decimal(priority, INT_MIN, INT_MAX);
  if (!prio && family && family->priority_prefix &&
      priority.starts_with(family->priority_prefix))
    for (const NamedValue& p : kPriorities)
      if (priority.substr(std::string_view(family->priority_prefix).size()) == p.name)
        prio = p.value;
  if (!prio)
    return fail(prio_c, "unsupported netfilter priority \"" + priority +
                            "\" for protocol family \"" + pf + "\"");
  // The BPF link keeps the two ends for the kernel's own hooks (it refuses
  // them with ERANGE): FIRST and LAST are the nearest it allows.
  out.priority = std::clamp<int64_t>(*prio, INT_MIN + 1LL, INT_MAX - 1LL);

  std::optional<int64_t> number;
  if (family)
    for (const NamedValue& h : family->hooks)
      if (hook == h.name) number = h.value;
  if (!number && numbers) number = decimal(hook, 0, 255);
  if (!number)
    return fail(hook_c, "unsupported netfilter hook \"" + hook + "\" for protocol family \"" +
                            pf + "\"");
  out.hook = *number;
  return out;
}

constexpr const char* kVariables[] = {"$hooknum", "$skb", "$in", "$out", "$okfn", "$verdict"};

class NetfilterProvider : public ProbeProvider {
 public:
  NetfilterProvider()
      : ProbeProvider("netfilter",
                      {"netfilter.hook(string).pf(string)", "netfilter.pf(string).hook(string)",
                       "netfilter.hook(string).pf(string).priority(string)",
                       "netfilter.pf(string).hook(string).priority(string)"},
                      /*resolved_later=*/false) {}

  bool has_target_vars(const ast::ProbePoint&) const override { return true; }

  std::vector<std::pair<std::string, std::string>> target_var_list(
      const ast::ProbePoint&) const override {
    std::vector<std::pair<std::string, std::string>> vars;
    for (const char* v : kVariables) vars.emplace_back(v + 1, "long");
    return vars;
  }

  std::optional<std::vector<std::string>> known_target_vars(
      const ast::ProbePoint&) const override {
    return std::vector<std::string>(std::begin(kVariables), std::end(kVariables));
  }

  // stap's names and values; under -g stap takes anything (as C), so pass
  // 2 does too and pass 3 says what it cannot compile.
  size_t resolve(const ast::ProbePoint& point, const ResolveRequest& request, DerivedProbe&,
                 Diagnostics& diags) const override {
    if (request.guru) return 1;
    std::string error;
    SourceLoc where;
    if (read_point(point, /*numbers=*/false, error, where)) return 1;
    if (!request.quiet) value_error(point, where, error + "; need stap -g", diags);
    return 0;
  }

  std::optional<bool> check_target_use(const ast::ProbePoint&, const ast::TargetSymbol& n,
                                       const TargetUse& use, Diagnostics& diags) const override {
    auto fail = [&](std::string message) {
      diags.semantic_error(n.loc, std::move(message), "operator '" + n.name + "'");
      return false;
    };
    bool known = false;
    for (const char* v : kVariables) known = known || n.name == v;
    if (!known) return fail("unsupported context variable");
    if (n.address_of) return fail("cannot take address of netfilter hook context variable");
    bool verdict = n.name == "$verdict";
    if (verdict && (!n.components.empty() || n.pretty))
      return fail("netfilter variable '$verdict' is a number, not a structure");
    if (use.written && !verdict) return fail("write to netfilter parameter not permitted");
    if (use.written && !use.guru)
      return fail("write to netfilter verdict requires guru mode; need stap -g");
    return true;
  }
};

}  // namespace

std::optional<NetfilterHook> netfilter_hook(const ast::ProbePoint& point, std::string& error,
                                            SourceLoc& where) {
  std::optional<NetfilterHook> hook = read_point(point, /*numbers=*/true, error, where);
  if (!hook)
    error += ": this engine compiles hook and family names and numbers only (stap -g would "
             "pass other text on to C)";
  return hook;
}

const ProbeProvider& netfilter_provider() {
  static const NetfilterProvider provider;
  return provider;
}

}  // namespace stap
