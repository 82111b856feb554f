// procfs("PATH").read / .write (PATH "command" when left out), with
// .umask(M) before the direction and .read.maxsize(N): files a script
// serves.  A BPF engine cannot add /proc entries, so the runtime serves
// each as a FIFO under /var/tmp/systemtap-$USER/MODULE/ (as stapbpf does),
// and the bodies run in user context (lower/kinds/procfs.cpp,
// loader/attach/procfs_files.h).  procfs("__stdin").write is the script's
// standard input, one byte per run (tapsets/input.stp).
//
// Their one target variable is $value, a string: assigned (= or .=) in a
// read probe to make the text a reader gets, read in a write probe as the
// text written.  Its rules are stap's, checked here in pass 2.
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

std::vector<std::string> procfs_patterns() {
  std::vector<std::string> out;
  for (const char* head : {"procfs", "procfs(string)"}) {
    std::string h = head;
    out.push_back(h + ".read");
    out.push_back(h + ".umask(number).read");
    out.push_back(h + ".read.maxsize(number)");
    out.push_back(h + ".umask(number).read.maxsize(number)");
    out.push_back(h + ".write");
    out.push_back(h + ".umask(number).write");
  }
  return out;
}

bool is_write(const ast::ProbePoint& point) {
  for (const ast::ProbePointComponent& c : point.components)
    if (c.functor == "write") return true;
  return false;
}

class ProcfsProvider : public ProbeProvider {
 public:
  ProcfsProvider() : ProbeProvider("procfs", procfs_patterns(), /*resolved_later=*/false) {}

  bool has_target_vars(const ast::ProbePoint&) const override { return true; }

  ast::Type target_var_type(const ast::ProbePoint&, const std::string& name) const override {
    return name == "value" ? ast::Type::string : ast::Type::unknown;
  }

  std::vector<std::pair<std::string, std::string>> target_var_list(
      const ast::ProbePoint&) const override {
    return {{"value", "string"}};
  }

  std::optional<std::vector<std::string>> known_target_vars(
      const ast::ProbePoint&) const override {
    return std::vector<std::string>{"$value"};
  }

  std::optional<bool> check_target_use(const ast::ProbePoint& point, const ast::TargetSymbol& n,
                                       const TargetUse& use, Diagnostics& diags) const override {
    auto fail = [&](SourceLoc loc, std::string message) {
      diags.semantic_error(loc, std::move(message), "operator '" + n.name + "'");
      return false;
    };
    if (n.name != "$value")
      return fail(n.loc, "invalid target symbol for procfs probe, $value expected");
    if (!n.components.empty()) {
      const ast::TargetComponent& c = n.components.front();
      bool index = c.kind != ast::TargetComponent::Kind::field;
      return fail(c.loc, std::string("procfs variable '$value' may not be used as ") +
                             (index ? "array" : "a structure"));
    }
    if (n.pretty) return fail(n.loc, "procfs variable '$value' may not be pretty-printed");
    bool write = is_write(point);
    if (write && use.written)
      return fail(n.loc, "procfs $value variable is read-only in a procfs write probe");
    if (!write && !use.written)
      return fail(n.loc, "procfs $value variable cannot be read in a procfs read probe");
    if (n.address_of) return fail(n.loc, "cannot take address of procfs variable");
    if (use.written && use.op != "=" && use.op != ".=")
      return fail(n.loc,
                  "Only the following assign operators are implemented on procfs read target "
                  "variables: '=', '.='");
    return true;
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    const ast::ProbePointComponent& head = point.components[0];
    if (head.arg && !check_path(point, string_arg(head), head.arg->loc, diags)) return false;
    if (const ast::ProbePointComponent* m = find(point, "maxsize"); m && number_arg(*m) <= 0) {
      value_error(point, m->arg->loc, "maxsize must be greater than 0", diags);
      return false;
    }
    if (const ast::ProbePointComponent* u = find(point, "umask");
        u && (number_arg(*u) < 0 || number_arg(*u) > 0777)) {
      value_error(point, u->arg->loc, "umask must be between 0 and 0777", diags);
      return false;
    }
    return true;
  }

 private:
  // stap's rules for a path: relative to the module's directory, no empty,
  // "." or ".." components, no leading or trailing '/'.
  static bool check_path(const ast::ProbePoint& point, const std::string& path, SourceLoc loc,
                         Diagnostics& diags) {
    auto fail = [&](const char* message) {
      value_error(point, loc, message, diags);
      return false;
    };
    if (path.empty()) return fail("procfs path component cannot be empty");
    if (path.front() == '/') return fail("procfs path cannot start with a '/'");
    if (path.back() == '/') return fail("procfs path cannot end with a '/'");
    size_t start = 0;
    while (true) {
      size_t end = path.find('/', start);
      std::string part = path.substr(start, end == std::string::npos ? end : end - start);
      if (part.empty()) return fail("procfs path component cannot be empty");
      if (part == "." || part == "..")
        return fail("procfs path cannot be relative (and contain '.' or '..')");
      if (end == std::string::npos) return true;
      start = end + 1;
    }
  }
};

}  // namespace

const ProbeProvider& procfs_provider() {
  static const ProcfsProvider provider;
  return provider;
}

}  // namespace stap
