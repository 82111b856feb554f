// Kernel code: kernel.function(PAT)[.call|.return|.inline|.exported ...],
// module(M).function(PAT)[...], kernel.statement(...), and the symbol-only
// kprobe.function(F)[.return], kprobe.module(M).function(F),
// kprobe.statement(ADDR).absolute.  PAT is "func[@file[:line]]" with
// wildcards.  Which functions match is known only from the kernel's symbols
// and BTF/DWARF, so pass 2 checks the shape and keeps the point for the
// provider's resolution.
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

// The suffixes a function point takes, after "function(string)" (the
// numeric-address form takes fewer).
const char* const kFunctionSuffixes[] = {
    "", ".call", ".return", ".return.maxactive(number)", ".inline", ".exported",
    ".label(string)", ".callee(string)", ".callee(string).call", ".callee(string).return",
    ".callees", ".callees(number)",
};
const char* const kAddressSuffixes[] = {
    "", ".call", ".return", ".return.maxactive(number)", ".exported",
};
const char* const kKprobeSuffixes[] = {"", ".call", ".return", ".return.maxactive(number)"};

std::vector<std::string> kernel_patterns() {
  std::vector<std::string> out;
  for (std::string head : {"kernel", "module(string)"}) {
    for (const char* s : kFunctionSuffixes) out.push_back(head + ".function(string)" + s);
    for (const char* s : kAddressSuffixes) out.push_back(head + ".function(number)" + s);
    for (const char* kind : {"(string)", "(number)"}) {
      out.push_back(head + ".statement" + kind);
      out.push_back(head + ".statement" + kind + ".nearest");
    }
  }
  out.push_back("kernel.statement(number).absolute");
  for (const char* s : kKprobeSuffixes) {
    out.push_back(std::string("kprobe.function(string)") + s);
    out.push_back(std::string("kprobe.module(string).function(string)") + s);
  }
  out.push_back("kprobe.statement(number).absolute");
  return out;
}

class KernelFunctionProvider : public ProbeProvider {
 public:
  KernelFunctionProvider()
      : ProbeProvider("kernel.function", kernel_patterns(), /*resolved_later=*/true) {}

  // "kernel" is shared with the tracepoint family; everything else under
  // it ("kernel" alone included, for the truncation message) is ours.
  // Function arguments and locals ($x, $$parms, $return) come from BTF or
  // DWARF; the names are checked when the point is resolved.
  bool has_target_vars(const ast::ProbePoint&) const override { return true; }
  bool has_entry_values(const ast::ProbePoint& point) const override {
    return find(point, "return") != nullptr;
  }

  bool matches(const ast::ProbePoint& point) const override {
    if (point.components.empty()) return false;
    const std::string& head = point.components[0].functor;
    if (head == "module" || head == "kprobe") return true;
    if (head != "kernel") return false;
    return point.components.size() < 2 || (point.components[1].functor != "trace" &&
                                           point.components[1].functor != "tracepoint");
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    for (const ast::ProbePointComponent& c : point.components) {
      if (!dynamic_cast<const ast::StringLit*>(c.arg) || !string_arg(c).empty()) continue;
      value_error(point, c.arg->loc,
                  "empty " + c.functor + " name (expected a name or a wildcard pattern)",
                  diags);
      return false;
    }
    return true;
  }
};

}  // namespace

const ProbeProvider& kernel_function_provider() {
  static const KernelFunctionProvider provider;
  return provider;
}

}  // namespace stap
