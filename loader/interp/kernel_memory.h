// Kernel memory and the current task for user-context probes (begin, end,
// error and timer bodies run in this process, loader/interp/).  SystemTap
// runs its begin probes in the kernel, so tapset functions that read
// kernel structures (task_current(), kernel_long(), @cast(...)->field)
// work there; here a small BPF program does those reads on request: a raw
// tracepoint program, never attached, that BPF_PROG_TEST_RUN runs in the
// calling thread.  So task_current() is this thread's task, as stap's is
// its runtime's.  Loaded on the first request, shared by the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace stap {

class KernelMemory {
 public:
  // The largest read one run of the program does; longer ones loop.
  static constexpr size_t kChunk = 4096;

  // 0, or the helper's -errno (-EFAULT for an address that cannot be
  // read); `out` holds `size` bytes, zero where the read failed.
  int read(uint64_t address, void* out, size_t size);
  // The NUL-terminated string at `address`, at most `max` bytes of it:
  // 0 or -errno as read().
  int read_string(uint64_t address, size_t max, std::string& out);
  // The calling thread's task_struct address, 0 when unavailable.
  uint64_t current_task();
  // Why the program cannot run here ("" once it has loaded, or before
  // the first request).
  const std::string& unavailable() const { return why_not_; }

  ~KernelMemory();

 private:
  enum Op : uint64_t { kRead = 1, kReadString = 2, kCurrentTask = 3 };
  bool load();
  // Runs the program: the result word (the helper's return or the task),
  // and up to kChunk bytes copied into `out`.
  bool run(Op op, uint64_t address, uint64_t size, int64_t& result, void* out);

  int prog_fd_ = -1, map_fd_ = -1;
  bool tried_ = false;
  std::string why_not_;
};

// The process's one reader.
KernelMemory& kernel_memory();

}  // namespace stap
