// A process("P") point resolved to the instructions its uprobes go on,
// read from the binary.  One resolution serves both `stap -l/-L`
// (process_listing.cpp) and the process provider of pass 2, so what is
// listed is what is probed.
//
//   .function("F")[.call|.return|.inline|.exported]  DWARF functions and
//        their inlined copies, else symbols; after the prologue when DWARF
//        says where it ends
//   .function(ADDR), .statement(ADDR)[.absolute]      that address
//   .statement("F@file.c:LINE")                       the line table
//   .plt, .plt("N")[.return]                          the PLT stubs
//   .mark("M"), .provider("P").mark("M")              USDT notes
//   under .library("L"): the same in a shared library of the program
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "debuginfo/dwarf_file.h"
#include "debuginfo/elf_file.h"
#include "debuginfo/sdt_notes.h"

namespace stap::debuginfo {

// A binary opened once for the compiler's run (open_binary caches it):
// its symbols, its DWARF when there is some, its USDT marks.
struct Binary {
  std::string path;                  // canonical
  std::unique_ptr<ElfFile> elf;
  std::unique_ptr<DwarfFile> dwarf;  // null: symbols only
  std::string no_dwarf;              // why dwarf is null (names what to install)
  std::vector<SdtMark> marks;
};

// The cached Binary of `path` (canonical); nullptr with `why` when it
// cannot be read as ELF.
Binary* open_binary(const std::string& path, std::string& why);

struct ProcessPattern {
  std::string process;             // as written: a path or a name in $PATH ("" with pid)
  int64_t pid = 0;                 // process(PID): its executable, that process only
  std::string library;             // "" when none
  std::string kind;                // "function", "statement", "mark" or "plt"
  std::string provider;            // marks: "" when none
  std::string spec;                // the function/statement/mark/plt argument
  bool has_address = false;        // .function(ADDR) / .statement(ADDR)
  uint64_t address = 0;
  std::string suffix;              // ".call", ".return", ".inline", ".exported",
                                   // ".absolute" or ""
  // .function("F").callee("G") (depth 1, callee "G") and .callees(N)
  // (callee "*"): the functions F calls, N calls deep.  0: no callee.
  std::string callee;
  int64_t callee_depth = 0;
};

struct ProbeSite {
  std::string point;        // as listed and as pp() says: process("/x").function("f@x.c:3")
  std::string function;     // probefunc(): "f" (a mark: its name)
  uint64_t pc = 0;          // link-time address of the probed instruction
  uint64_t offset = 0;      // its file offset: where the uprobe goes (kernel
                            // code: the offset from `symbol`, where the kprobe goes)
  std::string symbol;       // kernel code: the kallsyms function holding pc
  uint64_t semaphore = 0;   // a mark's semaphore, as a file offset (0: none)
  const DwarfFunction* fn = nullptr;  // its DWARF function (null: a symbol only)
  const SdtMark* mark = nullptr;      // marks
  // A .callee site: the return addresses (link-time) its callers' calls
  // leave, innermost first: the probe runs only when the stack holds
  // each at its level (the direct caller's at 1).  Empty elsewhere.
  std::vector<uint64_t> callers;
  // A .statement line: a probe here sees the variables of the innermost
  // lexical block holding pc; elsewhere (function entries), as in stap,
  // those of the function's own scope only.
  bool in_block = false;
};

struct ResolvedPoint {
  std::string process;      // the program's canonical path
  Binary* binary = nullptr; // the probed file (the library under .library)
  bool is_return = false;
  std::vector<ProbeSite> sites;
  std::vector<std::string> warnings;  // for pass 2 to print (a .callee's tail call)
};

// Resolves `p`.  False with `why` when the program or library cannot be
// found or read, or a site cannot be probed; true with no sites when
// nothing matches (`why` then may say why, e.g. no DWARF for .statement).
bool resolve_process_point(const ProcessPattern& p, ResolvedPoint& out, std::string& why);

// The function/statement part of `p` over out.binary, already opened (kernel
// code: kernel_dwarf.h), each site's point starting with `prefix`
// ("kernel", "module(\"ext4\")").  Sites get no file offset.
bool resolve_code_point(const ProcessPattern& p, const std::string& prefix, ResolvedPoint& out,
                        std::string& why);

}  // namespace stap::debuginfo
