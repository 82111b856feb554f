#include "elaborate/syscall_tapset.h"

#include <algorithm>
#include <filesystem>
#include <fnmatch.h>
#include <set>
#include <sstream>

namespace stap {

namespace {

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> words;
  std::istringstream in{std::string(line)};
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

bool valid_kind(const std::string& kind) {
  static const std::set<std::string> plain = {"d", "i", "u", "x", "o", "p", "s", "-", "dfd"};
  if (plain.count(kind)) return true;
  return kind.starts_with("fn=") && kind.find('@') != std::string::npos;
}

// One table line: NAME [ret=N] [name=STAPNAME] VAR:KIND ... [| ARGSTR-EXPRESSION]
bool parse_entry(std::string_view line, SyscallEntry& e, std::string& why) {
  std::string_view head = line, tail;
  if (size_t bar = line.find('|'); bar != std::string_view::npos) {
    head = line.substr(0, bar);
    tail = line.substr(bar + 1);
  }
  std::vector<std::string> words = split_words(head);
  if (words.empty()) return (why = "no syscall name"), false;
  e.name = words[0];
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.starts_with("ret=")) {
      e.ret_format = std::atoi(w.c_str() + 4);
      if (e.ret_format < 1 || e.ret_format > 3) return (why = "ret= takes 1, 2 or 3"), false;
      continue;
    }
    if (w.starts_with("name=")) {
      e.stap_name = w.substr(5);
      if (e.stap_name.empty()) return (why = "name= takes a name"), false;
      continue;
    }
    size_t colon = w.find(':');
    if (colon == std::string::npos || colon == 0) return (why = "'" + w + "' is not VAR:KIND"), false;
    SyscallArgSpec a{w.substr(0, colon), w.substr(colon + 1)};
    if (size_t slash = a.var.find('/'); slash != std::string::npos) {
      a.string_var = a.var.substr(slash + 1);
      a.var.resize(slash);
    }
    if (!valid_kind(a.kind)) return (why = "unknown kind '" + a.kind + "'"), false;
    e.args.push_back(std::move(a));
  }
  size_t first = tail.find_first_not_of(" \t");
  if (first != std::string_view::npos) e.argstr = std::string(tail.substr(first));
  while (!e.argstr.empty() && (e.argstr.back() == ' ' || e.argstr.back() == '\t'))
    e.argstr.pop_back();
  return true;
}

// Words stap reserves: a kernel field with such a name gets a '_' added.
bool is_keyword(const std::string& w) {
  static const std::set<std::string> words = {
      "probe", "global", "function", "if",    "else",   "for",   "foreach",
      "in",    "limit",  "return",   "delete", "while", "break", "continue",
      "next",  "string", "long",     "try",   "catch",  "private", "name", "argstr",
      "argv",  "argc"};
  return words.count(w) > 0;
}

bool is_unsigned_type(const std::string& t) {
  static const std::set<std::string> named = {"size_t", "umode_t", "uid_t",  "gid_t",
                                              "qid_t",  "aio_context_t", "old_uid_t",
                                              "old_gid_t", "cap_user_header_t"};
  return t.starts_with("unsigned") || t.starts_with("u8") || t.starts_with("u16") ||
         t.starts_with("u32") || t.starts_with("u64") || t.starts_with("__u") || named.count(t);
}

// The kind of an argument the table does not describe, from its C type:
// a `const char *` is a path or name stap shows quoted, other pointers as
// addresses, numbers signed or not as declared.
std::string default_kind(const tracefs::Field& f) {
  if (f.type == "const char *" && f.name.find("buf") == std::string::npos) return "s";
  if (f.type.find('*') != std::string::npos) return "p";
  return is_unsigned_type(f.type) ? "u" : "d";
}

// The variable holding a decoded string: "flags" -> "flags_str",
// "req_uaddr" -> "req_str", as stap names them, unless the table names it.
std::string string_var(const SyscallArgSpec& spec) {
  if (!spec.string_var.empty()) return spec.string_var;
  const std::string& var = spec.var;
  std::string base = var.ends_with("_uaddr") ? var.substr(0, var.size() - 6) : var;
  return base + "_str";
}

std::string strip_const(const std::string& t) {
  return t.starts_with("const ") ? t.substr(6) : t;
}

// C types of 32 bits: the tracepoint stores them widened to 64, so stap's
// int_arg()/uint_arg() narrowing is redone (__int32, __uint32).
bool is_int_sized(const std::string& type) {
  static const std::set<std::string> types = {
      "int",    "unsigned int", "unsigned", "pid_t", "u32",          "__u32",  "s32",
      "__s32",  "clockid_t",    "uid_t",    "gid_t", "key_serial_t", "mqd_t",  "timer_t",
      "qid_t",  "rwf_t",        "old_uid_t", "old_gid_t"};
  return types.count(strip_const(type)) > 0;
}

bool is_signed_type(const std::string& type) { return !is_unsigned_type(strip_const(type)); }

// How an argument's raw value is read: `$field`, narrowed to 32 bits as
// the kind reads it (signed for d/dfd, unsigned for u/x/o, the C type's
// own signedness for a decoder).
std::string raw_value(const tracefs::Field& f, const std::string& kind) {
  std::string v = "$" + f.name;
  // "i": a C int the kernel declares wider (mmap's `unsigned long fd`),
  // shown signed as stap's __int32() does.
  if (kind == "i") return "__int32(" + v + ")";
  if (!is_int_sized(f.type) || kind == "p" || kind == "s") return v;
  bool is_signed = kind == "d" || kind == "dfd" ||
                   (kind != "u" && kind != "x" && kind != "o" && is_signed_type(f.type));
  return (is_signed ? "__int32(" : "__uint32(") + v + ")";
}

std::string replace_at(const std::string& expr, const std::string& var) {
  std::string out;
  for (char c : expr) {
    if (c == '@') out += var;
    else out += c;
  }
  return out;
}

struct Piece {
  std::string format;
  std::string value;
};

// Writes the body of one entry alias: raw arguments first, then decoded
// strings (a decoder may use a later argument, write's buffer its count),
// then argstr.
void write_entry_body(std::ostream& out, const SyscallFormat& call, const SyscallEntry* entry) {
  std::vector<std::string> derived;
  std::vector<Piece> pieces;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const tracefs::Field& f = call.args[i];
    SyscallArgSpec spec;
    if (entry && i < entry->args.size()) spec = entry->args[i];
    else spec = {is_keyword(f.name) ? f.name + "_" : f.name, default_kind(f)};
    const std::string& v = spec.var;
    if (spec.kind == "s") {
      out << "  " << v << " = user_string_quoted($" << f.name << ")\n";
      pieces.push_back({"%s", v});
      continue;
    }
    out << "  " << v << " = " << raw_value(f, spec.kind) << "\n";
    if (spec.kind == "dfd" || spec.kind.starts_with("fn=")) {
      std::string call_text = spec.kind == "dfd" ? "_dfd_str(@)" : spec.kind.substr(3);
      derived.push_back(string_var(spec) + " = " + replace_at(call_text, v));
      pieces.push_back({"%s", string_var(spec)});
    } else if (spec.kind == "d" || spec.kind == "i") pieces.push_back({"%d", v});
    else if (spec.kind == "u") pieces.push_back({"%u", v});
    else if (spec.kind == "x") pieces.push_back({"0x%x", v});
    else if (spec.kind == "o") pieces.push_back({"%s", "_sys_alt_octal(" + v + ")"});
    else if (spec.kind == "p") pieces.push_back({"%p", v});
  }
  for (const std::string& d : derived) out << "  " << d << "\n";
  if (entry && !entry->argstr.empty()) {
    out << "  argstr = " << entry->argstr << "\n";
    return;
  }
  if (pieces.empty()) {
    out << "  argstr = \"\"\n";
    return;
  }
  std::string format, values;
  for (const Piece& p : pieces) {
    format += (format.empty() ? "" : ", ") + p.format;
    values += ", " + p.value;
  }
  out << "  argstr = sprintf(\"" << format << "\"" << values << ")\n";
}

// nd_syscall.NAME is an alias of syscall.NAME: both are the tracepoint
// here (stap's nd_ variants exist for kernels without debuginfo).
// `name` is stap's name for the call where it differs from the kernel's
// (newfstatat is "fstatat"); the alias keeps the kernel's name, so
// syscall.* matches each call once, and stap's name is another alias
// that only a point naming it exactly makes (TapsetLibrary::
// generate_syscalls).
void write_call(std::ostream& out, const SyscallFormat& call, const SyscallEntry* entry) {
  const std::string& n = call.name;
  const std::string& shown = entry && !entry->stap_name.empty() ? entry->stap_name : n;
  out << "probe syscall." << n << " = kernel.trace(\"syscalls:sys_enter_" << n
      << "\")\n{\n  name = \"" << shown << "\"\n";
  write_entry_body(out, call, entry);
  out << "}\n";
  out << "probe syscall." << n << ".return = kernel.trace(\"syscalls:sys_exit_" << n
      << "\")\n{\n  name = \"" << shown << "\"\n  retval = $ret\n  retstr = return_str("
      << (entry ? entry->ret_format : 1) << ", $ret)\n}\n";
  out << "probe nd_syscall." << n << " = syscall." << n << " {}\n";
  out << "probe nd_syscall." << n << ".return = syscall." << n << ".return {}\n";
}

}  // namespace

bool SyscallTable::parse(std::string_view text, std::string& error) {
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    SyscallEntry e;
    std::string why;
    if (!parse_entry(line.substr(first), e, why)) {
      error = "line " + std::to_string(line_no) + ": " + why;
      return false;
    }
    entries_[e.name] = std::move(e);
  }
  return true;
}

const SyscallEntry* SyscallTable::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> SyscallTable::kernel_names(const std::string& stap_name) const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries_)
    if (entry.stap_name == stap_name) names.push_back(name);
  return names;
}

std::vector<tracefs::Field> syscall_arguments(const tracefs::Format& enter) {
  std::vector<tracefs::Field> args;
  bool after_nr = false;
  for (const tracefs::Field& f : enter.fields) {
    if (after_nr) args.push_back(f);
    else if (f.name == "__syscall_nr") after_nr = true;
  }
  return args;
}

std::string generate_syscall_aliases(const std::vector<SyscallFormat>& calls,
                                     const SyscallTable& table) {
  std::ostringstream out;
  out << "// Generated from the kernel's syscall trace events (tracefs) and\n"
         "// tapsets/syscalls/syscalls.table.\n";
  for (const SyscallFormat& call : calls) write_call(out, call, table.find(call.name));
  return out.str();
}

std::string generate_stap_name_aliases(const std::string& stap_name, const std::string& kernel_name) {
  std::ostringstream out;
  for (const char* family : {"syscall", "nd_syscall"})
    for (const char* suffix : {"", ".return"})
      out << "probe " << family << "." << stap_name << suffix << " = syscall." << kernel_name
          << suffix << " {}\n";
  return out.str();
}

std::vector<std::string> list_syscalls(const std::string& root, const std::string& glob) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  const std::string prefix = "sys_enter_";
  for (fs::directory_iterator it(root + "/events/syscalls", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string event = it->path().filename().string();
    if (!event.starts_with(prefix)) continue;
    std::string name = event.substr(prefix.size());
    if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<SyscallFormat> read_syscall_formats(const std::string& root,
                                                const std::vector<std::string>& names) {
  std::vector<SyscallFormat> calls;
  for (const std::string& name : names) {
    tracefs::Format format;
    std::string error;
    if (!tracefs::read_format(root, {"syscalls", "sys_enter_" + name}, format, error)) continue;
    calls.push_back({name, syscall_arguments(format)});
  }
  return calls;
}

}  // namespace stap
