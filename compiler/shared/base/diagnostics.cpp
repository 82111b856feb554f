#include "base/diagnostics.h"

#include <ostream>
#include <sstream>

namespace stap {

std::string format_loc(const SourceManager& sources, SourceLoc loc) {
  if (!loc.valid()) return "<unknown location>";
  return sources.name(loc.file) + ":" + std::to_string(loc.line) + ":" +
         std::to_string(loc.column);
}

void Diagnostics::report(Diagnostic d) {
  if (d.severity == Severity::warning) {
    // -w wins over -W: a warning not said is not an error (stap's -wW).
    if (suppress_warnings_) return;
    if (warnings_are_errors_) {
      d.severity = Severity::error;
      d.category = "semantic error";
    }
  }
  for (auto it = context_.rbegin(); it != context_.rend(); ++it) d.chain.push_back(*it);
  // The same message at the same place is said once: recovery and
  // re-elaboration can meet one fault twice, and a fault in a macro body
  // is met again at every use of the macro (at every level of a macro
  // that uses itself), with only the expansion chain differing.
  std::string key = d.category + '\0' + d.message + '\0' + d.token + '\0' +
                    std::to_string(d.loc.file) + ':' + std::to_string(d.loc.line) + ':' +
                    std::to_string(d.loc.column);
  if (d.counted && !seen_.insert(std::move(key)).second) return;
  if (d.counted) {
    if (d.severity == Severity::error) ++errors_; else ++warnings_;
  }
  list_.push_back(std::move(d));
}

void Diagnostics::parse_error(SourceLoc loc, std::string message, std::string saw) {
  Diagnostic d;
  d.category = "parse error";
  d.message = std::move(message);
  d.token = std::move(saw);
  d.saw_line = true;
  d.loc = loc;
  report(std::move(d));
}

void Diagnostics::semantic_error(SourceLoc loc, std::string message, std::string token) {
  Diagnostic d;
  d.category = "semantic error";
  d.message = std::move(message);
  d.token = std::move(token);
  d.loc = loc;
  report(std::move(d));
}

void Diagnostics::warning(SourceLoc loc, std::string message, std::string token) {
  Diagnostic d;
  d.severity = Severity::warning;
  d.category = "WARNING";
  d.message = std::move(message);
  d.token = std::move(token);
  d.loc = loc;
  report(std::move(d));
}

void Diagnostics::plain_error(std::string message) {
  Diagnostic d;
  d.message = std::move(message);
  report(std::move(d));
}

size_t Diagnostics::count_of(const std::string& category) const {
  size_t n = 0;
  for (const Diagnostic& d : list_) n += d.counted && d.category == category;
  return n;
}

namespace {

// Prints "<label>: <text>" with the label right-aligned to `width`.
void labelled(std::ostream& out, size_t width, const std::string& label,
              const std::string& text) {
  size_t used = label.size() + 2;
  if (width > used) out << std::string(width - used, ' ');
  out << label << ": " << text << '\n';
}

void source_line(std::ostream& out, const SourceManager& sources, size_t width,
                 SourceLoc loc) {
  if (!loc.valid()) return;
  std::string_view text = sources.line_text(loc.file, loc.line);
  labelled(out, width, "source", std::string(text));
  // Keep tabs from the source line so the caret lines up in a terminal.
  std::string pad(width, ' ');
  for (uint32_t i = 0; i + 1 < loc.column && i < text.size(); ++i)
    pad += text[i] == '\t' ? '\t' : ' ';
  out << pad << "^\n";
}

}  // namespace

void Diagnostics::render(const Diagnostic& d, std::ostream& out) const {
  if (d.category.empty()) {
    out << d.message << '\n';
    return;
  }
  size_t width = d.category.size() + 2;
  std::string where = format_loc(sources_, d.loc);
  out << d.category << ": " << d.message;
  if (d.saw_line) {
    out << '\n';
    labelled(out, width, d.saw_label, (d.token.empty() ? std::string("end of input") : d.token) +
                                     (d.loc.valid() ? " at " + where : std::string()));
  } else {
    if (!d.token.empty()) out << ": " << d.token;
    if (d.loc.valid()) out << " at " << where;
    out << '\n';
  }
  source_line(out, sources_, width, d.loc);
  for (uint32_t id = d.loc.expansion; id != 0;) {
    const SourceManager::Expansion& e = sources_.expansion(id);
    out << e.what << " at " << format_loc(sources_, e.where) << '\n';
    source_line(out, sources_, width, e.where);
    id = e.where.expansion;
  }
  // Code from a tapset: how the script came to need that file (code copied
  // from an alias already has its expansion chain).  Bounded, since
  // tapsets can need each other.
  FileId file = d.loc.file;
  for (int depth = 0; depth < 16 && d.loc.expansion == 0; ++depth) {
    SourceLoc at = sources_.needed_at(file);
    if (!at.valid() || at.file == file) break;
    out << "in tapset " << sources_.name(file) << ", needed at " << format_loc(sources_, at)
        << '\n';
    source_line(out, sources_, width, at);
    file = at.file;
  }
  for (const ExpansionStep& step : d.chain) {
    out << step.what << " at " << format_loc(sources_, step.loc) << '\n';
    source_line(out, sources_, width, step.loc);
  }
  if (d.severity == Severity::error) out << '\n';
}

void Diagnostics::flush(std::ostream& out) {
  // Rendered into one buffer and written at once: std::cerr is unbuffered,
  // and a write per fragment made a long report cost seconds of syscalls.
  std::ostringstream text;
  for (; flushed_ < list_.size(); ++flushed_) render(list_[flushed_], text);
  out << text.str();
  out.flush();
}

}  // namespace stap
