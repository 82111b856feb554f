#include "elaborate/tapset_library.h"

#include <algorithm>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <set>
#include <sstream>

#include "elaborate/alias_expansion.h"
#include "elaborate/providers/provider.h"
#include "base/tracefs.h"
#include "parse/parser.h"

namespace stap {

namespace {

namespace fs = std::filesystem;

bool has_extension(const fs::path& p, const char* ext) { return p.extension() == ext; }

// Every *.stpm and *.stp file under the directories, each list sorted by
// path; a file reached twice (a directory given twice) is read once.
void collect(const std::vector<std::string>& dirs, std::vector<std::string>& macro_files,
             std::vector<std::string>& script_files) {
  std::set<std::string> seen;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    std::vector<std::string> stpm, stp;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      std::string canonical = fs::weakly_canonical(it->path(), ec).string();
      if (!seen.insert(canonical).second) continue;
      if (has_extension(it->path(), ".stpm")) stpm.push_back(it->path().string());
      else if (has_extension(it->path(), ".stp")) stp.push_back(it->path().string());
    }
    std::sort(stpm.begin(), stpm.end());
    std::sort(stp.begin(), stp.end());
    macro_files.insert(macro_files.end(), stpm.begin(), stpm.end());
    script_files.insert(script_files.end(), stp.begin(), stp.end());
  }
}

bool read_text(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

// Moves what parsing one tapset file reported into `diags`.  A file with
// errors is skipped rather than failing every script, as stap does: its
// errors are shown but not counted, then its own count line and a warning
// that it is skipped.  Returns false for such a file.
bool pass_on(const Diagnostics& own, const std::string& path, Diagnostics& diags) {
  bool failed = own.error_count() > 0;
  for (Diagnostic d : own.all()) {
    if (d.severity == Severity::error) d.counted = false;
    diags.report(std::move(d));
  }
  if (!failed) return true;
  size_t n = own.count_of("parse error");
  Diagnostic count;
  count.message = std::to_string(n) + (n == 1 ? " parse error." : " parse errors.");
  count.counted = false;
  diags.report(std::move(count));
  diags.warning(SourceLoc{}, "tapset \"" + path + "\" has errors, and will be skipped");
  return false;
}

}  // namespace

void TapsetLibrary::load(const std::vector<std::string>& dirs, const PreprocessorEnv& env,
                         MacroTable& macros, SourceManager& sources, ast::Arena& arena,
                         Diagnostics& diags) {
  sources_ = &sources;
  std::vector<std::string> macro_files, script_files;
  collect(dirs, macro_files, script_files);
  // Macro files first: their @define macros are library macros, visible in
  // every tapset and in the user's script.  They declare nothing else.
  for (const std::string& path : macro_files) {
    std::string text;
    if (!read_text(path, text)) continue;
    FileId id = sources.add(path, std::move(text), FileOrigin::macro_library);
    macros.begin_file();
    size_t errors = diags.error_count();
    parse_file(sources, id, env, macros, arena, diags);
    // Its macros are dropped (preprocessor.h); unlike a tapset's, its
    // errors still fail the run, as in stap.
    if (diags.error_count() != errors)
      diags.warning(SourceLoc{}, "macro tapset \"" + path + "\" has errors, and will be skipped.");
  }
  env_ = env;
  macros_ = &macros;
  arena_ = &arena;
  diags_ = &diags;
  dirs_ = dirs;
  for (const std::string& path : script_files) {
    std::string text;
    if (!read_text(path, text)) continue;
    add_file(sources.add(path, std::move(text), FileOrigin::tapset), path);
  }
  macros.begin_file();
}

bool TapsetLibrary::add_file(FileId id, const std::string& path) {
  macros_->begin_file();
  Diagnostics own(*sources_);
  std::unique_ptr<ast::File> file = parse_file(*sources_, id, env_, *macros_, *arena_, own);
  if (!pass_on(own, path, *diags_) || !file) return false;
  file->is_tapset = true;
  LibraryFile lf;
  lf.tree = file.get();
  lf.file = std::move(file);
  files_.push_back(std::move(lf));
  index(files_.size() - 1);
  return true;
}

// syscalls/syscalls.table of the first tapset directory that has one.
// Only a library with the table generates syscall aliases: the table's
// directory also holds the decoders the generated code calls.  A table
// with a bad line is reported and every call gets its defaults.
bool TapsetLibrary::load_syscall_table() {
  for (const std::string& dir : dirs_) {
    std::string path = dir + "/syscalls/syscalls.table", text, error;
    if (!read_text(path, text)) continue;
    syscall_table_ = std::make_unique<SyscallTable>();
    if (syscall_table_->parse(text, error)) return true;
    diags_->warning(SourceLoc{}, "syscall table \"" + path + "\": " + error);
    syscall_table_ = std::make_unique<SyscallTable>();
    return true;
  }
  return false;
}

namespace {

// The glob of call names a point can match among the generated aliases
// ("syscall.open*" -> "open*"), or "" when its head names none of them.
std::string syscall_glob(const ast::ProbePoint& point) {
  if (point.components.empty()) return "";
  const std::string& head = point.components[0].functor;
  if (head == "**") return "*";
  bool named = fnmatch(head.c_str(), "syscall", 0) == 0 ||
               fnmatch(head.c_str(), "nd_syscall", 0) == 0;
  if (!named) return "";
  if (point.components.size() < 2) return "*";
  const std::string& call = point.components[1].functor;
  return call == "**" ? "*" : call;
}

}  // namespace

void TapsetLibrary::generate_syscalls(const ast::ProbePoint& point) {
  std::string glob = syscall_glob(point);
  if (glob.empty() || tracefs_root_ == "-" || !sources_) return;
  if (!syscall_table_ && !load_syscall_table()) {
    tracefs_root_ = "-";
    return;
  }
  if (tracefs_root_.empty()) {
    tracefs_root_ = tracefs::find_root(tracefs_error_);
    if (tracefs_root_.empty()) {
      tracefs_root_ = "-";
      return;
    }
  }
  std::vector<std::string> matched = list_syscalls(tracefs_root_, glob);
  // stap's name of a call the kernel names otherwise (syscall.pread is
  // pread64), where the point names it exactly: a wildcard matches the
  // kernel's names only, so that it matches each call once.
  std::string stap_names;
  if (matched.empty() && !is_wildcard(glob)) {
    for (const std::string& kernel_name : syscall_table_->kernel_names(glob)) {
      if (list_syscalls(tracefs_root_, kernel_name).empty()) continue;
      matched.push_back(kernel_name);
      if (syscalls_generated_.insert("=" + glob).second)
        stap_names += generate_stap_name_aliases(glob, kernel_name);
      break;
    }
  }
  // A call name that matches none (syscall.nope) is reported with the
  // names nearest to it: every alias is generated for that hint.  An
  // optional point's miss is not reported, so it costs nothing.
  if (matched.empty() && !point.optional && !point.sufficient)
    matched = list_syscalls(tracefs_root_, glob = "*");
  std::vector<std::string> names;
  for (std::string& n : matched)
    if (syscalls_generated_.insert(n).second) names.push_back(std::move(n));
  if (names.empty() && stap_names.empty()) return;
  std::vector<SyscallFormat> calls = read_syscall_formats(tracefs_root_, names);
  std::string text = generate_syscall_aliases(calls, *syscall_table_) + stap_names;
  const std::string path = "<syscall tapset: " + glob + ">";
  add_file(sources_->add(path, std::move(text), FileOrigin::tapset), path);
}

std::string TapsetLibrary::why_no_syscall_aliases(const ast::ProbePoint& point) const {
  if (syscall_glob(point).empty() || tracefs_error_.empty()) return "";
  return "the syscall probes are made from the kernel's syscall trace events: " +
         tracefs_error_;
}

// Private functions and globals are visible only inside their own file,
// which is already in the program when its code refers to them, so they
// are not indexed for other files to find.
void TapsetLibrary::index(size_t file_index) {
  ast::File& f = *files_[file_index].tree;
  for (ast::FunctionDecl* fn : f.functions)
    if (!fn->is_private) functions_.emplace(fn->name, Entry<ast::FunctionDecl>{file_index, fn});
  for (ast::VarDecl* g : f.globals)
    if (!g->is_private) globals_.emplace(g->name, Entry<ast::VarDecl>{file_index, g});
  for (ast::AliasDecl* a : f.aliases)
    aliases_.push_back(Entry<ast::AliasDecl>{file_index, a});
}

void TapsetLibrary::use(LibraryFile& f, Program& program, SourceLoc at) {
  if (f.used) return;
  f.used = true;
  if (sources_ && at.valid()) sources_->set_needed_at(f.tree->id, at);
  for (ast::VarDecl* g : f.tree->globals) program.globals.push_back(g);
  for (ast::FunctionDecl* fn : f.tree->functions) program.functions.push_back(fn);
  program.files.push_back(std::move(f.file));
}

std::vector<ast::FunctionDecl*> TapsetLibrary::need_function(const std::string& name,
                                                             Program& program, SourceLoc at) {
  std::vector<ast::FunctionDecl*> found;
  auto [begin, end] = functions_.equal_range(name);
  for (auto it = begin; it != end; ++it) {
    use(files_[it->second.file], program, at);
    found.push_back(it->second.decl);
  }
  return found;
}

ast::VarDecl* TapsetLibrary::need_global(const std::string& name, Program& program,
                                         SourceLoc at) {
  auto it = globals_.find(name);
  if (it == globals_.end()) return nullptr;
  use(files_[it->second.file], program, at);
  return it->second.decl;
}

// Full matches win; without one, the aliases matching the longest prefix
// of the point take the rest as a suffix (see match_alias_name()), unless
// the point is a provider's as it stands.
std::vector<ast::AliasDecl*> TapsetLibrary::need_aliases(const ast::ProbePoint& point,
                                                         Program& program) {
  generate_syscalls(point);
  std::vector<const Entry<ast::AliasDecl>*> full, prefix;
  size_t longest = 0;
  for (const Entry<ast::AliasDecl>& e : aliases_) {
    for (const ast::ProbePoint* name : e.decl->names) {
      AliasMatch m = match_alias_name(point, *name);
      if (m.kind == AliasMatch::Kind::full) {
        full.push_back(&e);
        break;
      }
      if (m.kind == AliasMatch::Kind::prefix && m.length >= longest) {
        if (m.length > longest) prefix.clear();
        longest = m.length;
        prefix.push_back(&e);
        break;
      }
    }
  }
  if (full.empty() && builtin_shape_matches(point)) return {};
  std::vector<ast::AliasDecl*> found;
  for (const Entry<ast::AliasDecl>* e : full.empty() ? prefix : full) {
    use(files_[e->file], program, point.loc);
    found.push_back(e->decl);
  }
  return found;
}

std::vector<ast::AliasDecl*> TapsetLibrary::all_aliases() const {
  std::vector<ast::AliasDecl*> all;
  for (const Entry<ast::AliasDecl>& e : aliases_) all.push_back(e.decl);
  return all;
}

size_t TapsetLibrary::files_used() const {
  return static_cast<size_t>(
      std::count_if(files_.begin(), files_.end(), [](const LibraryFile& f) { return f.used; }));
}

}  // namespace stap
