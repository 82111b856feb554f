// The running kernel's DWARF, for what BTF cannot say: source files and
// lines (kernel.function("*@fs/*.c"), .statement("f@file.c:N")), locals
// ($$locals) and their locations.  BTF-only probes never open it.
//
// vmlinux: /usr/lib/debug/boot/vmlinux-R, /usr/lib/debug/lib/modules/R/
// vmlinux, /lib/modules/R/build/vmlinux, /usr/lib/debug/.build-id/xx/yy.debug
// (the running kernel's build id, read from /sys/kernel/notes, must match).
// A module: the .ko file itself when it carries .debug_info (an
// out-of-tree module named by path: module("/path/to/m.ko")), else
// /usr/lib/debug/lib/modules/R/<its path under /lib/modules/R>, else by
// the loaded module's build id (/sys/module/M/notes).
//
// A module's .ko is relocatable (ET_REL): its DWARF refers to its sections
// through relocations.  open_kernel_binary applies them in a private copy
// (an anonymous memfd), the sections laid out one after another, so the
// shared DwarfFile reads it as any linked binary; addresses in it are only
// compared with each other (a site is its function symbol + an offset).
#pragma once

#include <string>

#include "debuginfo/process_points.h"

namespace stap::debuginfo {

// uname -r, and the running kernel's build id (lowercase hex, "" when
// /sys/kernel/notes has none).
std::string running_kernel_release();
std::string running_kernel_build_id(const std::string& notes = "/sys/kernel/notes");

// The first GNU build-id note in a buffer of ELF notes ("" if none).
std::string build_id_from_notes(const std::string& notes);

// Where to look; `root` prefixes every path (tests).
struct KernelDebugPlaces {
  std::string root;
  std::string release;
  std::string build_id;  // vmlinux's; "" skips the check and the .build-id path
};

// The vmlinux carrying DWARF for the kernel, or "" with `looked` listing
// the places tried.
std::string find_vmlinux_dwarf(const KernelDebugPlaces& at, std::string& looked);

// The file carrying DWARF for module `module` (a name, or the path of a
// .ko), or "" with `looked` set.
std::string find_module_dwarf(const KernelDebugPlaces& at, const std::string& module,
                              std::string& looked);

// The message when `what` ("a source-file pattern (...)") needs DWARF and
// there is none: what is missing and the Debian package to install (for a
// module also where it was looked for).
std::string no_kernel_dwarf_message(const std::string& what, const std::string& module,
                                    const std::string& looked);

// "stapkdw" for "/x/stapkdw.ko" or "stap-kdw.ko" (the kernel's spelling:
// '-' and ',' as '_'); a name is returned the same way.
std::string module_name_of(const std::string& module);

// The cached Binary of the running kernel (module "") or a module (its
// name or .ko path), relocated; nullptr with `why` naming what to install.
Binary* open_kernel_binary(const std::string& module, std::string& why,
                           const std::string& what = "this probe point");

// Resolves a kernel.function / module().function / .statement pattern
// (p.process unused) over the kernel's DWARF (an address is vmlinux's
// link-time address, or a module's as nm shows its .text in the .ko): each site's `symbol` is the
// ELF function symbol holding it and `offset` its distance from it, to be
// found in kallsyms by the caller.  False with `why` when there is no
// DWARF (the message names the package); true with no sites when nothing
// matches.
bool resolve_kernel_point(const ProcessPattern& p, const std::string& module,
                          ResolvedPoint& out, std::string& why,
                          const std::string& what = "this probe point");

}  // namespace stap::debuginfo
