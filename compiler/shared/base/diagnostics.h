// Diagnostics are data: collected while a pass runs, rendered afterwards in
// SystemTap's layout, so users who grep stap output find what they expect:
//
//   parse error: expected literal string or number
//           saw: operator '}' at <input>:1:19
//        source: probe begin { x = }
//                                  ^
//
// Every label is right-aligned to the width of "<category>: ".  Errors that
// arise inside a tapset, alias or macro carry the chain of expansions back
// to the user's script.
#pragma once

#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "base/source.h"

namespace stap {

enum class Severity { error, warning };

// One step of an expansion chain, innermost first: "in expansion of macro
// '@foo'", "from alias 'syscall.open'", ...
struct ExpansionStep {
  std::string what;
  SourceLoc loc;
};

struct Diagnostic {
  Severity severity = Severity::error;
  std::string category;  // "parse error", "semantic error", "WARNING"
  std::string message;   // what went wrong and what was expected
  // The offending token, described as stap does: "identifier 'x'",
  // "operator '}'", "string \"abc\"", "keyword".  May be empty.
  std::string token;
  // Parse errors name the token on a separate "saw:" line.
  bool saw_line = false;
  // The label of that line: stap says "at:" for errors found by its lexer
  // and preprocessor ("at: junk '' at <input>:1:5").
  std::string saw_label = "saw";
  SourceLoc loc;
  std::vector<ExpansionStep> chain;
  // False for an error that does not fail the run: a tapset file that does
  // not parse is reported, then skipped (TapsetLibrary::load).  Such a
  // diagnostic is rendered like the others but counted by neither
  // error_count() nor count_of(), and said even when identical to an
  // earlier one (each skipped file reports its own "1 parse error.").
  bool counted = true;
};

class Diagnostics {
 public:
  explicit Diagnostics(const SourceManager& sources) : sources_(sources) {}

  void report(Diagnostic d);
  // Convenience for the common shapes.
  void parse_error(SourceLoc loc, std::string message, std::string saw_token);
  void semantic_error(SourceLoc loc, std::string message, std::string token = {});
  void warning(SourceLoc loc, std::string message, std::string token = {});
  // A message with no category and no location, e.g. "Input file 'x' is
  // empty.", as stap prints a few driver-level errors.
  void plain_error(std::string message);

  // Chain pushed by the elaborator while it works inside an expansion;
  // every diagnostic reported meanwhile gets a copy.
  void push_expansion(ExpansionStep step) { context_.push_back(std::move(step)); }
  void pop_expansion() { context_.pop_back(); }

  size_t error_count() const { return errors_; }
  size_t count_of(const std::string& category) const;
  size_t warning_count() const { return warnings_; }
  const std::vector<Diagnostic>& all() const { return list_; }

  // -w: drop warnings; -W: make them errors.
  void set_suppress_warnings(bool on) { suppress_warnings_ = on; }
  void set_warnings_are_errors(bool on) { warnings_are_errors_ = on; }

  void render(const Diagnostic& d, std::ostream& out) const;
  // Renders everything not rendered yet, in report order.
  void flush(std::ostream& out);

 private:
  const SourceManager& sources_;
  std::vector<Diagnostic> list_;
  std::vector<ExpansionStep> context_;
  std::set<std::string> seen_;
  size_t flushed_ = 0;
  size_t errors_ = 0;
  size_t warnings_ = 0;
  bool suppress_warnings_ = false;
  bool warnings_are_errors_ = false;
};

// "<input>:1:19"
std::string format_loc(const SourceManager& sources, SourceLoc loc);

}  // namespace stap
