// A user-space binary's DWARF: its own .debug_info, or separate
// debuginfo found by build-id or .gnu_debuglink (debug_file.h).  Functions
// with code (name, C++ scope, declaration file:line, entry pc), their
// parameters and locals in scope at a pc with types and locations, the
// return type, and the line table (func@file.c:LINE -> addresses).
//
// Function specs follow stap's process("P").function("SPEC") syntax:
// "name", "glob*", "ns::C::name" (scopes matched against the enclosing
// namespaces and classes), "_Z..." (the linkage name), with "@file" (a
// glob matched against the declaration file or its tail) and ":LINE".
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "debuginfo/dwarf_location.h"
#include "debuginfo/dwarf_types.h"
#include "debuginfo/elf_file.h"

namespace stap::debuginfo {

// stap's --prologue-searching[=WHEN]: one setting for the whole run, as
// the binaries are opened once and shared (binary_cache).
enum class PrologueSearch { automatic, always, never };
void set_prologue_search(PrologueSearch mode);

struct DwarfFunction {
  std::string name;          // DW_AT_name: "f"
  std::string qualified;     // "ns::C::f" ("f" in C)
  std::string linkage_name;  // "_ZN2ns1C1fEi" ("" in C)
  std::string decl_file;     // as the DWARF spells it ("/tmp/t.c", "./malloc/malloc.c")
  int decl_line = 0;
  uint64_t entry_pc = 0;     // where a .function probe goes (link-time address)
  uint64_t low_pc = 0, high_pc = 0;  // the range holding entry_pc
  bool external = false;
  bool inlined = false;      // an inlined copy (DW_TAG_inlined_subroutine)
  Dwarf_Die die{};           // the concrete subprogram or inlined-copy DIE
  Dwarf_Die cu{};
};

// A call a function makes, from its DWARF (dwarf_calls.cpp): a call site
// (DW_TAG_call_site, or GCC's DW_TAG_GNU_call_site before DWARF 5; GCC
// emits them for optimized code only, -O1 and up), or a copy of another
// function inlined into it.
struct DwarfCall {
  std::string callee;      // the called function's name
  Dwarf_Die origin{};      // the called function's DIE (its declaration or abstract one)
  uint64_t return_pc = 0;  // a call site's: the address the call returns to
  const DwarfFunction* inlined = nullptr;  // an inlined copy: that copy
  bool tail = false;       // a tail call: the callee returns to the caller's caller
};

struct DwarfVariable {
  std::string name;
  Type type;
  bool is_parameter = false;
  Dwarf_Die die{};
};

struct SourceLine {
  std::string file;
  int line = 0;
};

class DwarfFile {
 public:
  // The DWARF of `binary` (which must outlive the result): its own, else
  // separate debuginfo.  nullptr with `why` saying why and what to
  // install (no_debuginfo_message) when there is none.
  static std::unique_ptr<DwarfFile> open(const ElfFile& binary, std::string& why,
                                         const std::string& debug_root = "/usr/lib/debug");
  ~DwarfFile();
  DwarfFile(const DwarfFile&) = delete;
  DwarfFile& operator=(const DwarfFile&) = delete;

  // The file the DWARF was read from (the binary or its .debug file).
  const std::string& debug_path() const { return debug_path_; }
  Dwarf* dwarf() const { return dwarf_; }
  // The separate debuginfo file's ELF (nullptr when the DWARF is the
  // binary's own): for ElfFile::add_debug_symbols.
  Elf* debug_elf() const { return debug_elf_; }

  // Every function with code, sorted by (qualified, entry_pc).
  const std::vector<DwarfFunction>& functions() const { return functions_; }
  // The functions matching a function spec ("name@file:LINE" as above;
  // the LINE part is ignored here: see line_addresses).
  std::vector<const DwarfFunction*> match_functions(const std::string& spec) const;
  // The inlined copies of functions matching a spec, each a DwarfFunction
  // whose entry_pc is where the copy starts (stap probes these too for
  // .function, not for .return).
  std::vector<const DwarfFunction*> match_inlined(const std::string& spec) const;
  // dwarf_calls.cpp: the calls fn makes, in DWARF order, inlined copies
  // included, not those of functions nested in it; and the out-of-line
  // function a call site calls (null when it has no code here: a library's).
  std::vector<DwarfCall> calls(const DwarfFunction& fn) const;
  const DwarfFunction* called(const DwarfCall& call) const;
  // The (out-of-line) function whose range holds `pc`.
  const DwarfFunction* function_at(uint64_t pc) const;

  std::vector<DwarfVariable> parameters(const DwarfFunction& fn) const;
  // Locals of fn's body and of its lexical blocks that contain `pc`
  // (every block's when pc is nullopt), outer blocks first.
  std::vector<DwarfVariable> locals(const DwarfFunction& fn, std::optional<uint64_t> pc) const;
  Type return_type(const DwarfFunction& fn) const;

  // The variables a probe at `pc` in fn sees, as stap lists them: the
  // scopes holding pc innermost first (lexical blocks, then the function),
  // each scope's parameters and variables in DWARF order, only those with
  // a type and a location (or constant value) at pc (with `located_only`
  // false, those without a location there too: stap's $$vars shows them
  // as "name=?").
  std::vector<DwarfVariable> variables_at(const DwarfFunction& fn, uint64_t pc,
                                          bool located_only = true) const;

  // dwarf_globals.cpp: variables and types outside functions.
  // A file-scope variable `name` of the compilation unit `cu`, or of any
  // unit whose name matches the glob `file` (file_matches; any unit when
  // empty and cu is null); its definition, not a declaration.
  std::optional<DwarfVariable> global_variable(const std::string& name, const Dwarf_Die* cu,
                                               const std::string& file = "") const;
  // The names of cu's file-scope variables (for suggestions).
  std::vector<std::string> global_names(const Dwarf_Die& cu) const;
  // A named type as @cast names it: "struct foo", "union u", "enum e",
  // "class C", or a bare name (struct, union, class, typedef, enum or
  // base type); the first complete definition in any unit.
  std::optional<Type> find_type(const std::string& name) const;
  // The location of a file-scope variable (a DW_OP_addr or a constant).
  std::optional<Location> global_location(const DwarfVariable& var, std::string& why) const;

  // Where a .function probe goes, as stap places it: after the prologue
  // (prologue_end) when fn's variables have no location lists (unoptimized
  // code stores its parameters in the prologue), else the entry pc; stap's
  // --prologue-searching=always|never (set_prologue_search) forces one.
  uint64_t function_probe_pc(const DwarfFunction& fn) const;

  // The location of `var` of `fn` at `pc` (variable_location with the
  // binary's CFI).
  std::optional<Location> location(const DwarfFunction& fn, const DwarfVariable& var, uint64_t pc,
                                   std::string& why) const;

  // The first address after fn's prologue: the second line-table row of
  // fn's entry (or one marked prologue_end), where -O0 code has stored
  // its parameters in their stack slots.  entry_pc when not found.
  uint64_t prologue_end(const DwarfFunction& fn) const;

  // The addresses where LINE of a file matching `file` (a glob, matched
  // against the whole name or its tail after a '/') begins within `fn`
  // (any function when fn is null): is_stmt rows whose line differs from
  // the previous row's, sorted.
  std::vector<uint64_t> line_addresses(const DwarfFunction* fn, const std::string& file,
                                       int line) const;
  std::optional<SourceLine> line_at(uint64_t pc) const;

 private:
  DwarfFile() = default;
  void read_functions();
  std::vector<const DwarfFunction*> match(const std::vector<DwarfFunction>& from,
                                          const std::string& spec) const;

  const ElfFile* binary_ = nullptr;
  std::string debug_path_;
  int fd_ = -1;
  Elf* debug_elf_ = nullptr;
  Dwarf* dwarf_ = nullptr;
  Dwarf_CFI* cfi_ = nullptr;  // the binary's .eh_frame (owned by libdw)
  std::vector<DwarfFunction> functions_;
  std::vector<DwarfFunction> inlined_;
  // dwarf_calls.cpp's indexes, built on first use: functions by the DIE
  // they stand for (declaration_of's end), inlined copies by their DIE,
  // external functions by name.
  void index_calls() const;
  mutable bool calls_indexed_ = false;
  mutable std::unordered_map<Dwarf_Off, const DwarfFunction*> by_origin_, inlined_by_die_;
  mutable std::unordered_map<std::string, const DwarfFunction*> external_by_name_;
};

// Splits a function spec into its parts: "ns::C::f@a.c:12" -> scopes
// {"ns","C"}, function "f", file "a.c", line "12" (line may be "*", "N-M"
// or "+N"; empty when absent).
struct FunctionSpec {
  std::vector<std::string> scopes;
  std::string function, file, line;
};
FunctionSpec parse_function_spec(const std::string& spec);

// Whether a DWARF file name matches a spec's "@file" glob: the whole
// name, or its tail after any '/' ("t.c" and "dir/t.c" match "/src/dir/t.c").
bool file_matches(const std::string& pattern, const std::string& file);

}  // namespace stap::debuginfo
