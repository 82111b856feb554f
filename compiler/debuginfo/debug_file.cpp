#include "debuginfo/debug_file.h"

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
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
static std::string owning_package(const std::string& path) {
  std::vector<std::string> candidates{path};
  if (path.starts_with("/usr/")) candidates.push_back(path.substr(4));
  else candidates.push_back("/usr" + path);
  for (const auto& candidate : candidates) {
    if (candidate.find('\'') != std::string::npos) continue;
    std::string command = "dpkg-query -S '" + candidate + "' 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) continue;
    char line[512];
    std::string first = fgets(line, sizeof line, pipe) ? line : "";
    pclose(pipe);
    // "coreutils: /bin/ls" or "libc6:amd64: /lib/x86_64-linux-gnu/libc.so.6"
    auto colon = first.find(':');
    if (colon != std::string::npos && first.find(',') > colon) return first.substr(0, colon);
  }
  return "";
}

std::string debuginfo_package(const std::string& binary_path) {
  std::string package = owning_package(binary_path);
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
