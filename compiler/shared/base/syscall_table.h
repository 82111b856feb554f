// System call numbers and names of the machine this engine was built for
// (x86_64), from the kernel ABI header <asm/unistd_64.h> at build time.
//
// Why a build-time table: the running kernel's syscall metadata in tracefs
// (events/syscalls/sys_enter_NAME/format) gives each call's name and
// arguments but not its number, and a probe on the raw sys_enter/sys_exit
// tracepoints (cheap to attach and detach, one program for any number of
// calls) has only the number to go by.  x86_64 numbers are ABI: a number
// is never reused, so the table is right for every later kernel; a call
// newer than the header comes from a short list of later calls kept here;
// one newer than both is unknown, and its probe falls back to the call's
// own tracepoint.
#pragma once

#include <cstdint>
#include <string_view>

namespace stap::syscalls {

// The number of the call named `name` ("openat" -> 257), or -1.  The
// kernel function's name a trace event carries is accepted too
// ("newfstat" -> 5, fstat's).
int64_t number(std::string_view name);

// The call a kernel function implements: "newfstat" -> "fstat"; any other
// name is returned as it is.
std::string_view call_name(std::string_view function);

// The name of call `nr` (257 -> "openat"), or "" for an unknown number.
std::string_view name(int64_t nr);

// One past the highest known number (the size of a number-indexed table).
int64_t table_size();

}  // namespace stap::syscalls
