// What %( %) conditions see of the kernel: its release and its .config.
#include <sys/utsname.h>
#include <zlib.h>

#include <fstream>
#include <sstream>

#include "driver/frontend.h"

namespace stap {

namespace {

std::string read_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return {};
  std::string text;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return text;
}

std::string read_plain(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "CONFIG_X=y" lines; "# CONFIG_X is not set" leaves X out, which the
// preprocessor treats as the empty string, as stap does.
void parse_config(const std::string& text, std::map<std::string, std::string>& out) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("CONFIG_", 0) != 0) continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    // String values keep their quotes, as stap compares them.
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
}

}  // namespace

PreprocessorEnv kernel_preprocessor_env(const std::string& release) {
  PreprocessorEnv env;
  utsname u{};
  uname(&u);
  std::string running = u.release;
  env.kernel_vr = release.empty() ? running : release;
  env.kernel_v = env.kernel_vr.substr(0, env.kernel_vr.find('-'));
  env.arch = u.machine;
  if (env.arch == "i686" || env.arch == "i586" || env.arch == "i486") env.arch = "i386";

  std::string config;
  if (env.kernel_vr == running) config = read_gzip("/proc/config.gz");
  if (config.empty()) config = read_plain("/boot/config-" + env.kernel_vr);
  if (config.empty()) config = read_plain("/lib/modules/" + env.kernel_vr + "/build/.config");
  parse_config(config, env.kernel_config);
  return env;
}

}  // namespace stap
