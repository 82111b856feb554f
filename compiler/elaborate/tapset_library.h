// The tapset library: .stp and .stpm files under the default tapset
// directory and every -I DIR.
//
// All library files are parsed up front (macro files first, so their
// @define macros are visible to every later file), but a file joins the
// program only when the script needs a name it defines: a function, a
// global, or a probe alias.  Pulling a file in can make it need others;
// the resolver asks again for each name that is still unresolved.
//
// The syscall aliases (syscall.NAME, nd_syscall.NAME and their .return)
// are not files: they are generated from tracefs (elaborate/
// syscall_tapset.h) the first time a probe point names them, and only
// for the calls the point can match, so scripts without syscall probes
// never pay for reading ~360 format files.  A call name matching none
// (syscall.nope) generates them all, for the mismatch's "similar:" names.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "elaborate/program.h"
#include "elaborate/syscall_tapset.h"
#include "parse/preprocessor.h"

namespace stap {

class TapsetLibrary {
 public:
  // Parses every *.stpm then *.stp file under dirs (recursively, sorted by
  // path; later dirs win nothing: all are searched).  A tapset file that
  // does not parse is reported and skipped (its names stay unknown); its
  // errors do not fail the run.  A macro file's errors do, as in stap.
  void load(const std::vector<std::string>& dirs, const PreprocessorEnv& env,
            MacroTable& macros, SourceManager& sources, ast::Arena& arena,
            Diagnostics& diags);

  // Each returns the declarations found (empty/null when none) and moves
  // the defining file into `program` (files, globals, functions) the first
  // time one of its names is needed.
  // `at` is where the program needs the name: errors inside the file then
  // show it (SourceManager::needed_at).
  std::vector<ast::FunctionDecl*> need_function(const std::string& name, Program& program,
                                                SourceLoc at = {});
  ast::VarDecl* need_global(const std::string& name, Program& program, SourceLoc at = {});
  // Aliases whose name matches the probe point (wildcards in `point`
  // match alias names component by component, as stap does).
  std::vector<ast::AliasDecl*> need_aliases(const ast::ProbePoint& point, Program& program);

  // Every alias of the library loaded or generated so far (the syscall
  // aliases a point has not asked for are not among them).
  std::vector<ast::AliasDecl*> all_aliases() const;
  size_t file_count() const { return files_.size(); }
  // Where the syscall aliases are generated from: tracefs's mount point
  // unless set (tests give a directory with events/syscalls/*/format).
  void set_tracefs_root(std::string root) { tracefs_root_ = std::move(root); }
  // Why no syscall alias could be generated for `point` ("" when that is
  // not the reason it matched none): the kernel's syscall events are closed.
  std::string why_no_syscall_aliases(const ast::ProbePoint& point) const;
  size_t files_used() const;

 private:
  struct LibraryFile {
    std::unique_ptr<ast::File> file;
    bool used = false;
    ast::File* tree = nullptr;  // stays valid once `file` moved into a Program
  };
  // A declaration of the library and the index of its file in files_.
  template <typename T>
  struct Entry {
    size_t file;
    T* decl;
  };
  void use(LibraryFile& f, Program& program, SourceLoc at);
  void index(size_t file_index);
  // Adds one parsed file to the library; false when it had errors.
  bool add_file(FileId id, const std::string& path);
  // Generates the syscall aliases `point` can match that are not there yet.
  void generate_syscalls(const ast::ProbePoint& point);
  bool load_syscall_table();

  // What load() was given, kept for files added later (the syscall aliases).
  PreprocessorEnv env_;
  MacroTable* macros_ = nullptr;
  ast::Arena* arena_ = nullptr;
  Diagnostics* diags_ = nullptr;
  std::vector<std::string> dirs_;
  // Syscall generation: tracefs root ("" until looked up, "-" when none),
  // the decoding table, and the calls whose aliases exist.
  std::string tracefs_root_;
  std::string tracefs_error_;  // why tracefs_root_ is "-"
  std::unique_ptr<SyscallTable> syscall_table_;
  std::set<std::string> syscalls_generated_;
  std::vector<LibraryFile> files_;
  SourceManager* sources_ = nullptr;
  std::multimap<std::string, Entry<ast::FunctionDecl>> functions_;
  std::multimap<std::string, Entry<ast::VarDecl>> globals_;
  std::vector<Entry<ast::AliasDecl>> aliases_;
};

}  // namespace stap
