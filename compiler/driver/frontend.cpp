#include "driver/frontend.h"

#include <unistd.h>

#include <filesystem>

#include "parse/lexer.h"
#include "parse/parser.h"

namespace stap {

Frontend::Frontend(FrontendConfig config) : config_(std::move(config)), diags_(sources_) {
  diags_.set_suppress_warnings(config_.suppress_warnings);
  diags_.set_warnings_are_errors(config_.warnings_are_errors);
}

bool Frontend::load_tapsets() {
  size_t before = diags_.error_count();
  library_.load(config_.tapset_dirs, config_.env, macros_, sources_, arena_, diags_);
  return diags_.error_count() == before;
}

bool Frontend::parse_script(const std::string& name, std::string text) {
  size_t before = diags_.error_count();
  FileId id = sources_.add(name, std::move(text), FileOrigin::user_script);
  program_.files.push_back(parse_file(sources_, id, config_.env, macros_, arena_, diags_));
  const ast::File& file = *program_.files.back();
  if (!file.parser_saw_input) {
    // stap refuses a script that gives its parser nothing, and says whether
    // the preprocessor (conditionals, or only its own errors) emptied it;
    // that message then stands in place of the parse-error count.
    Diagnostics scratch(sources_);
    bool no_tokens = lex(sources_, id, scratch).size() <= 1;
    diags_.plain_error("Input file '" + name + "' is empty" +
                       (no_tokens ? "." : " after preprocessing."));
  }
  return diags_.error_count() == before;
}

bool Frontend::elaborate() {
  return stap::elaborate(program_, library_, config_.elaborate, arena_, sources_, diags_);
}

std::string default_tapset_dir() {
  // This engine's own variable first, so that a SYSTEMTAP_TAPSET kept for
  // SystemTap's tapsets (embedded C) can be overridden.
  if (const char* env = std::getenv("STAP_BPF_TAPSETS")) return env;
  if (const char* env = std::getenv("SYSTEMTAP_TAPSET")) return env;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / STAP_INSTALL_TAPSET_DIR;
    if (fs::is_directory(installed, ec)) return installed.string();
  }
  return STAP_SOURCE_TAPSET_DIR;
}

}  // namespace stap
