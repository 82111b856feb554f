// The addresses of the kernel code between a traced event and our BPF
// programs, for kernel-context stack text (bpf_runtime/ksym_text.c skips
// the leading frames found in STAP_STACK_GLUE_MAP, stap_layout.h).
//
// A stack captured in our program starts in the program, its trampoline
// and the kernel functions that call it (bpf_trace_run<N>,
// __bpf_trace_<event>, perf_trace_<event>, kprobe dispatchers...); the
// runtime drops such frames by name when it prints a stack code
// (StackSymbols::drop_bpf_frames).  The kernel has no names at hand, so it
// gets the same rule as address ranges taken from /proc/kallsyms: every
// [bpf] symbol and every function StackSymbols::bpf_dispatch_frame names,
// adjacent ones merged.  On this machine's 6.18 kernel that is about 5000
// ranges (the per-event functions are spread through the kernel).
#pragma once

#include <string>
#include <vector>

#include "bpf_runtime/stap_layout.h"

struct bpf_object;

namespace stap {

// The glue ranges of the running kernel, sorted and merged; empty when
// kallsyms cannot be read (the text then keeps every frame).
std::vector<stap_glue_range> read_stack_glue();

// Before load: sizes the object's STAP_STACK_GLUE_MAP, if it has one, for
// the kernel's ranges and room for programs loaded later.
void size_stack_glue(bpf_object* obj);

// After attach, before the probes run (a program's symbol appears at
// load, a trampoline's at attach): writes the current ranges.  False
// with `error` when the map cannot be written.
bool fill_stack_glue(bpf_object* obj, std::string& error);

}  // namespace stap
