// libFuzzer target over passes 1-2: any input must give a result or
// diagnostics, never a crash, a hang or a sanitizer report.
//
// Build: cmake -DSTAP_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-19 ...
// Run:   fuzz_frontend tests/fuzz/corpus -max_total_time=600
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "driver/frontend.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const stap::PreprocessorEnv env = stap::kernel_preprocessor_env("");
  stap::FrontendConfig config;
  config.tapset_dirs.push_back(stap::default_tapset_dir());
  config.env = env;
  config.env.args = {"1", "two"};
  stap::Frontend fe(config);
  fe.load_tapsets();
  if (fe.parse_script("fuzz.stp", std::string(reinterpret_cast<const char*>(data), size)))
    fe.elaborate();
  std::ostringstream sink;
  fe.diagnostics().flush(sink);
  return 0;
}
