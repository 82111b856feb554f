// Finding the binary a process("P") or .library("L") probe names, the way
// stap does: a name without '/' is searched in $PATH; the result is made
// absolute and canonical (symlinks resolved: "/bin/ls" is listed as
// "/usr/bin/ls", as stap lists it).  A library is a path, a soname
// ("libc.so.6"), or a name found among the DT_NEEDED entries of the
// process's binary and in the system library directories.
#pragma once

#include <string>
#include <vector>

namespace stap::debuginfo {

// The canonical path of the executable `name`; "" with `why` set when it
// is not found or not executable.  `path_env` stands for $PATH.
std::string find_executable(const std::string& name, std::string& why,
                            const char* path_env = nullptr);

// Whether a process("P") path is a glob ('*', '?' or '[').
bool is_program_glob(const std::string& path);
// The files a glob path names ("/lib*/libc.so.*"), as stap probes them:
// each regular file once by its canonical path (the /lib64 and /lib
// symlinks of one file are one program), sorted.
std::vector<std::string> glob_programs(const std::string& pattern);

// The directories searched for shared libraries, in order: those of
// /etc/ld.so.conf(.d) when readable, then the multiarch and plain
// defaults (/lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib, /usr/lib).
std::vector<std::string> library_dirs();

// The canonical path of library `name` for the program `exe` ("" for no
// program): a path is taken as is; otherwise `name` is matched exactly
// and then as a glob prefix ("libc" or "libc.so*" finds libc.so.6) against
// exe's DT_NEEDED entries, then looked up in exe's DT_RUNPATH and
// library_dirs().
std::string find_library(const std::string& name, const std::string& exe, std::string& why);

}  // namespace stap::debuginfo
