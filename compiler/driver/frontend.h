// Passes 1-2 as one small API, used by the stap driver, the fuzzer, the
// benchmark and the tests: load the tapset library, parse the user's
// script(s), elaborate.  Each step reports into diagnostics() and says
// whether it succeeded; the caller decides what to print.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "base/source.h"
#include "elaborate/elaborate.h"
#include "elaborate/program.h"
#include "elaborate/tapset_library.h"
#include "parse/preprocessor.h"

namespace stap {

struct FrontendConfig {
  std::vector<std::string> tapset_dirs;  // default directory first, then -I
  PreprocessorEnv env;
  ElaborateOptions elaborate;
  bool suppress_warnings = false;  // -w
  bool warnings_are_errors = false;  // -W
};

class Frontend {
 public:
  explicit Frontend(FrontendConfig config);

  // Pass 1.  The library's macro files are read before the first script.
  bool load_tapsets();
  // Adds one user script ("<input>" for -e); the first one is the main
  // script.  Returns false when it had parse errors.
  bool parse_script(const std::string& name, std::string text);
  // Pass 2 over everything parsed so far.
  bool elaborate();

  SourceManager& sources() { return sources_; }
  Diagnostics& diagnostics() { return diags_; }
  Program& program() { return program_; }
  const TapsetLibrary& library() const { return library_; }
  const FrontendConfig& config() const { return config_; }

 private:
  FrontendConfig config_;
  SourceManager sources_;
  Diagnostics diags_;
  ast::Arena arena_;
  MacroTable macros_;
  TapsetLibrary library_;
  Program program_;
};

// The tapset directory that ships with this binary: <dir of exe>/../share/
// stap-bpf/tapset when installed, the source tree's tapsets/ when run from
// the build tree.  $STAP_BPF_TAPSETS overrides both.
std::string default_tapset_dir();

// kernel_v, kernel_vr, arch and CONFIG_* of the running kernel, or of
// `release` when given (-r): its config from /boot/config-RELEASE.
PreprocessorEnv kernel_preprocessor_env(const std::string& release);

}  // namespace stap
