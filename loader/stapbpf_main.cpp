// stapbpf: runs a compiled object (stap -p4 output) with nothing of the
// compiler linked, as SystemTap's stapbpf does:
//   stapbpf [-v] [-w] [-o FILE] [-c CMD] [-x PID] [-T SEC] [-s MB] OBJECT.bo
#include <getopt.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "loader/output/metrics_server.h"
#include "loader/session/session_run.h"

namespace {

void usage(std::FILE* to) {
  std::fputs(
      "Usage: stapbpf [options] OBJECT.bo\n"
      "Runs a script compiled by stap -p4.\n"
      "Options:\n"
      "   -h         show this help\n"
      "   -v         more verbose (-vvv: libbpf's and the verifier's logs)\n"
      "   -w         suppress warnings\n"
      "   -o FILE    send script output to FILE\n"
      "   -c CMD     start the probes, run CMD, and exit when it finishes\n"
      "   -x PID     set target() to PID\n"
      "   -T SEC     stop the script after SEC seconds\n"
      "   -s NUM     event buffer size in MB\n"
      "   --format=json  print the output as JSON lines (default: text)\n"
      "   --pprof=FILE   write stack-keyed aggregates as a gzipped pprof profile\n"
      "   --metrics=[ADDR:]PORT  serve the globals at http://ADDR:PORT/metrics\n",
      to);
}

bool parse_number(const char* text, long min, long max, int64_t& out) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min || v > max) return false;
  out = v;
  return true;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "stapbpf: %s\n", message.c_str());
  usage(stderr);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  stap::RunOptions options;
  opterr = 0;
  int c;
  enum { opt_format = 256, opt_metrics, opt_pprof };
  const option longs[] = {{"format", required_argument, nullptr, opt_format},
                          {"metrics", required_argument, nullptr, opt_metrics},
                          {"pprof", required_argument, nullptr, opt_pprof},
                          {nullptr, 0, nullptr, 0}};
  while ((c = getopt_long(argc, argv, "+hvwo:c:x:T:s:", longs, nullptr)) != -1) {
    switch (c) {
      case opt_format:
        if (std::strcmp(optarg, "text") != 0 && std::strcmp(optarg, "json") != 0)
          return usage_error(std::string("invalid --format '") + optarg + "': expected text or json");
        options.json = std::strcmp(optarg, "json") == 0;
        break;
      case opt_metrics:
        if (!stap::parse_listen_address(optarg, options.metrics_host, options.metrics_port))
          return usage_error(std::string("invalid --metrics '") + optarg + "': expected [ADDR:]PORT");
        break;
      case opt_pprof: options.pprof_file = optarg; break;
      case 'h': usage(stdout); return 0;
      case 'v': ++options.verbose; break;
      case 'w': options.suppress_warnings = true; break;
      case 'o': options.output_file = optarg; break;
      case 'c': options.command = optarg; break;
      case 'x':
        if (!parse_number(optarg, 1, INT32_MAX, options.target_pid))
          return usage_error(std::string("invalid target process ID '") + optarg + "'");
        break;
      case 'T':
        if (!parse_number(optarg, 1, INT32_MAX, options.timeout_s))
          return usage_error(std::string("invalid -T argument '") + optarg + "'");
        break;
      case 's':
        if (!parse_number(optarg, 1, 4095, options.buffer_mb))
          return usage_error(std::string("invalid buffer size '") + optarg + "' (1-4095)");
        break;
      default:
        if (optopt == opt_format || optopt == opt_metrics || optopt == opt_pprof)
          return usage_error(std::string("option '") + argv[optind - 1] + "' requires an argument");
        if (optopt == 0) return usage_error(std::string("unrecognized option '") + argv[optind - 1] + "'");
        if (optopt && std::strchr("ocxTs", optopt))
          return usage_error(std::string("option requires an argument -- '") +
                             static_cast<char>(optopt) + "'");
        return usage_error(std::string("invalid option -- '") + static_cast<char>(optopt) + "'");
    }
  }
  if (optind != argc - 1)
    return usage_error(optind == argc ? "an object file is needed" : "only one object file");
  const char* path = argv[optind];
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "stapbpf: cannot open %s: %s\n", path, std::strerror(errno));
    return 1;
  }
  std::string object(std::istreambuf_iterator<char>(in), {});
  // module_name() is the object's name, as stap -p4 -m NAME named it.
  std::string name = path;
  name = name.substr(name.rfind('/') + 1);
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".bo") == 0) name.resize(name.size() - 3);
  options.module_name = name;
  return stap::run_object(object, options);
}
