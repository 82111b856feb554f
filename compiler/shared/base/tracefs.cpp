#include "base/tracefs.h"

#include <fnmatch.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/lockdown.h"

namespace stap::tracefs {

namespace {

constexpr const char* kRoot = "/sys/kernel/tracing";
constexpr const char* kDebugRoot = "/sys/kernel/debug/tracing";

bool readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

bool read_text(const std::string& path, std::string& out) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "offset:24" within a field line -> 24.
bool number_after(std::string_view line, std::string_view key, int64_t& out) {
  size_t at = line.find(key);
  if (at == std::string_view::npos) return false;
  std::string digits(line.substr(at + key.size()));
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(digits.c_str(), &end, 10);
  if (end == digits.c_str() || errno != 0) return false;
  out = v;
  return true;
}

bool is_char_type(std::string_view t) {
  return t == "char" || t == "const char" || t == "signed char" || t == "unsigned char";
}

}  // namespace

const Field* Format::find(std::string_view field) const {
  for (const Field& f : fields)
    if (f.name == field) return &f;
  return nullptr;
}

std::string find_root(std::string& error) {
  const std::string probe = "/available_events";
  const std::string hint = " (run as root, or mount it: mount -t tracefs nodev /sys/kernel/tracing)";
  if (readable(kRoot + probe)) return kRoot;
  int root_errno = errno;
  if (readable(kDebugRoot + probe)) return kDebugRoot;
  // Mounted but closed: a locked-down kernel refuses even root, and says so
  // only in its log; otherwise the process lacks the permission.
  if (std::string locked = lockdown::explain_tracefs(); !locked.empty()) {
    error = std::string("cannot read ") + kRoot + probe + ": " + locked;
    return {};
  }
  if (root_errno == EACCES || root_errno == EPERM) {
    error = std::string("cannot read ") + kRoot + probe + ": " + std::strerror(root_errno) + hint;
    return {};
  }
  // Neither is mounted (a minimal system or container): mount it where
  // the kernel documents it, as `mount -t tracefs nodev /sys/kernel/tracing`.
  if (mount("nodev", kRoot, "tracefs", 0, nullptr) != 0) {
    error = std::string("cannot mount tracefs on ") + kRoot + ": " + std::strerror(errno) + hint;
    return {};
  }
  if (readable(kRoot + probe)) return kRoot;
  error = std::string("tracefs mounted on ") + kRoot + " has no available_events";
  return {};
}

bool list_events(const std::string& root, std::vector<Event>& out, std::string& error) {
  std::string text;
  if (!read_text(root + "/available_events", text)) {
    error = "cannot read " + root + "/available_events: " + std::strerror(errno);
    return false;
  }
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    out.push_back({line.substr(0, colon), line.substr(colon + 1)});
  }
  return true;
}

std::vector<Event> match_events(const std::vector<Event>& all, const std::string& system_glob,
                                const std::string& name_glob) {
  std::vector<Event> out;
  for (const Event& e : all) {
    if (!system_glob.empty() && fnmatch(system_glob.c_str(), e.system.c_str(), 0) != 0) continue;
    if (fnmatch(name_glob.c_str(), e.name.c_str(), 0) != 0) continue;
    out.push_back(e);
  }
  return out;
}

bool read_format(const std::string& root, const Event& event, Format& out, std::string& error) {
  std::string path = root + "/events/" + event.system + "/" + event.name + "/format";
  std::string text;
  if (!read_text(path, text)) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  out.system = event.system;
  if (!parse_format(text, out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

bool parse_declaration(std::string_view decl, Field& out) {
  decl = trim(decl);
  static constexpr std::string_view kDataLoc = "__data_loc ";
  if (decl.starts_with(kDataLoc)) {
    // "__data_loc char[] name", or "__data_loc cpumask_t mask" (a
    // dynamic field whose type is no array: its bytes are one value).
    out.is_data_loc = true;
    decl.remove_prefix(kDataLoc.size());
    size_t brackets = decl.find("[]");
    if (brackets == std::string_view::npos) {
      size_t space = decl.find_last_of(" \t");
      if (space == std::string_view::npos) return false;
      out.element_type = std::string(trim(decl.substr(0, space)));
      out.name = std::string(trim(decl.substr(space + 1)));
    } else {
      out.element_type = std::string(trim(decl.substr(0, brackets)));
      out.name = std::string(trim(decl.substr(brackets + 2)));
    }
    out.type = "__data_loc " + out.element_type + "[]";
    out.is_string = is_char_type(out.element_type);
    return !out.name.empty();
  }
  if (decl.ends_with(']')) {
    // "char prev_comm[16]", "u8 data[]"
    size_t open = decl.rfind('[');
    if (open == std::string_view::npos) return false;
    std::string_view len = decl.substr(open + 1, decl.size() - open - 2);
    out.array_length = 0;
    for (char c : len) {
      if (c < '0' || c > '9') break;
      out.array_length = out.array_length * 10 + (c - '0');
    }
    decl = trim(decl.substr(0, open));
  }
  size_t start = decl.size();
  while (start > 0 && is_ident_char(decl[start - 1])) --start;
  if (start == decl.size()) return false;
  out.name = std::string(decl.substr(start));
  out.type = std::string(trim(decl.substr(0, start)));
  if (out.array_length >= 0) {
    out.element_type = out.type;
    out.is_string = is_char_type(out.type);
  }
  return !out.type.empty();
}

bool parse_format(std::string_view text, Format& out, std::string& error) {
  out.fields.clear();
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.starts_with("name:")) {
      out.name = std::string(trim(line.substr(5)));
    } else if (line.starts_with("ID:")) {
      number_after(line, "ID:", out.id);
    } else if (line.starts_with("field:")) {
      size_t semi = line.find(';');
      if (semi == std::string_view::npos) {
        error = "malformed field line '" + std::string(line) + "'";
        return false;
      }
      Field f;
      int64_t offset = 0, size = 0, is_signed = 0;
      if (!parse_declaration(line.substr(6, semi - 6), f) ||
          !number_after(line, "offset:", offset) || !number_after(line, "size:", size)) {
        error = "malformed field line '" + std::string(line) + "'";
        return false;
      }
      number_after(line, "signed:", is_signed);  // absent in very old kernels
      f.offset = static_cast<uint32_t>(offset);
      f.size = static_cast<uint32_t>(size);
      f.is_signed = is_signed != 0;
      out.fields.push_back(std::move(f));
    }
  }
  if (out.name.empty()) {
    error = "no 'name:' line";
    return false;
  }
  return true;
}

}  // namespace stap::tracefs
