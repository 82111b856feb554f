// Passes 3-4 as the driver runs them: the elaborated program lowered to
// the IR (compiler/lower), then compiled to a BPF object
// (compiler/codegen), with the limits and settings of the command line.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "base/source.h"
#include "codegen/codegen.h"
#include "elaborate/program.h"
#include "ir/ir.h"

namespace stap {

// -D NAME=VALUE: MAXSTRINGLEN, MAXMAPENTRIES, MAXERRORS and MAXACTION set
// the limits; any other name is accepted and ignored, as stap hands them to
// the C compiler.  False with `error` set for a limit that is no number or
// out of range.
bool limits_from_defines(const std::map<std::string, std::string>& defines, ir::Limits& limits,
                         std::string& error);

struct BackendConfig {
  ir::Limits limits;
  std::string script_name;
  int64_t kernel_hz = 0;                      // CONFIG_HZ, 0 = unknown
  std::vector<std::string> global_settings;   // -G VAR=VALUE
  bool timing = false;                        // -t: probes keep their hit counts and times
  bool checking = false;                      // pass 2's check (LowerOptions::checking)
};

// Pass 3: lowers `program` into `out`; false after reporting errors into
// `diags`.
bool lower_pass(const Program& program, const BackendConfig& config, const SourceManager& sources,
                Diagnostics& diags, ir::Module& out);

// -G VAR=VALUE: the initial value of global VAR.  False with `error` set
// when VAR is no scalar global of the script or VALUE does not fit its type.
bool apply_global_settings(const std::vector<std::string>& settings, ir::Module& module,
                           std::string& error);

// Pass 4 (and the text -p3 prints): the object.
CodegenResult codegen_pass(ir::Module& module, bool want_ir_text);

}  // namespace stap
