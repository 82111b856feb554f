#include "debuginfo/debug_file.h"

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

namespace stap::debuginfo {

namespace fs = std::filesystem;

uint32_t debuglink_crc32(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  uLong crc = crc32(0, nullptr, 0);
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(buffer.data()), static_cast<uInt>(in.gcount()));
  }
  return static_cast<uint32_t>(crc);
}

static bool exists(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string find_debug_file(const ElfFile& binary, std::string& why, const std::string& debug_root) {
  std::vector<std::string> looked;
  const std::string& id = binary.build_id();
  if (id.size() > 2) {
    std::string path = debug_root + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
    if (exists(path)) return path;
    looked.push_back(path);
  }
  if (!binary.debuglink().empty()) {
    std::string dir = fs::path(binary.path()).parent_path().string();
    for (const std::string& path : {dir + "/" + binary.debuglink(),
                                    dir + "/.debug/" + binary.debuglink(),
                                    debug_root + dir + "/" + binary.debuglink()}) {
      if (path == binary.path()) continue;
      looked.push_back(path);
      if (!exists(path)) continue;
      bool ok = false;
      if (debuglink_crc32(path, ok) == binary.debuglink_crc() && ok) return path;
      looked.back() += " (CRC mismatch)";
    }
  }
  why = looked.empty() ? "it has no build-id and no .gnu_debuglink" : "looked in";
  for (size_t i = 0; i < looked.size(); ++i) why += (i ? ", " : " ") + looked[i];
  return "";
}

// The package owning `path` per dpkg (Debian merged /usr: dpkg may know
// the file as /lib/... or /bin/... while the canonical path is /usr/...).
// Both spellings go to one dpkg-query, which reads the whole database.
static std::string owning_package(const std::string& path) {
  std::string other = path.starts_with("/usr/") ? path.substr(4) : "/usr" + path;
  if (path.find('\'') != std::string::npos || other.find('\'') != std::string::npos) return "";
  std::string command = "dpkg-query -S '" + path + "' '" + other + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  std::string package;
  char line[512];
  while (package.empty() && fgets(line, sizeof line, pipe)) {
    // "coreutils: /bin/ls" or "libc6:amd64: /lib/x86_64-linux-gnu/libc.so.6"
    std::string text = line;
    auto colon = text.find(':');
    if (colon != std::string::npos && text.find(',') > colon) package = text.substr(0, colon);
  }
  while (fgets(line, sizeof line, pipe)) {
  }
  pclose(pipe);
  return package;
}

std::string debuginfo_package(const std::string& binary_path) {
  // dpkg-query reads the whole package database (about 0.1 s); a script
  // naming one binary in many probes asks once.
  static std::map<std::string, std::string> owners;
  auto known = owners.find(binary_path);
  if (known == owners.end()) known = owners.emplace(binary_path, owning_package(binary_path)).first;
  const std::string& package = known->second;
  if (package.empty()) return "";
  if (package == "libc6" || package == "libc-bin") return "libc6-dbg";
  return package + "-dbgsym";
}

std::string no_debuginfo_message(const ElfFile& binary, const std::string& looked) {
  std::string message = "no debuginfo for " + binary.path();
  if (!binary.build_id().empty()) message += " (build-id " + binary.build_id() + ")";
  message += ": it has no DWARF of its own and no separate debuginfo was found (" + looked + ")";
  std::string package = debuginfo_package(binary.path());
  if (!package.empty())
    message += "; install " + package +
               (package.ends_with("-dbgsym") ? " (from Debian's debug archive)" : "");
  else
    message += "; rebuild it with -g";
  return message;
}

}  // namespace stap::debuginfo
