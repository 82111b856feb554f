#include "loader/interp/kernel_memory.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

namespace stap {

namespace {

std::mutex reader_lock;  // one request at a time: the program has one result slot

bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst & 0xf;
  i.src_reg = src & 0xf;
  i.off = off;
  i.imm = imm;
  return i;
}

// The program, over its context (three u64s: op, address, size) and a
// one-slot array whose value is the result word and kChunk bytes:
//   slot = lookup(map, 0); if (!slot) return 0;
//   if (op == current task) slot->word = bpf_get_current_task();
//   else if (size <= kChunk)
//     slot->word = (op == read string ? bpf_probe_read_kernel_str
//                                      : bpf_probe_read_kernel)(slot->bytes, size, address);
//   return 0;
std::vector<bpf_insn> program(int map_fd, uint64_t current_task_op, uint64_t string_op) {
  constexpr uint8_t r0 = 0, r1 = 1, r2 = 2, r3 = 3, r6 = 6, r7 = 7, r8 = 8, r10 = 10;
  const uint8_t mov = BPF_ALU64 | BPF_MOV | BPF_X, ldx = BPF_LDX | BPF_MEM | BPF_DW;
  const uint8_t call = BPF_JMP | BPF_CALL, stx = BPF_STX | BPF_MEM | BPF_DW;
  return {
      /* 0 */ insn(mov, r6, r1, 0, 0),
      /* 1 */ insn(BPF_ST | BPF_MEM | BPF_W, r10, 0, -4, 0),
      /* 2 */ insn(mov, r2, r10, 0, 0),
      /* 3 */ insn(BPF_ALU64 | BPF_ADD | BPF_K, r2, 0, 0, -4),
      /* 4 */ insn(BPF_LD | BPF_DW | BPF_IMM, r1, BPF_PSEUDO_MAP_FD, 0, map_fd),
      /* 5 */ insn(0, 0, 0, 0, 0),
      /* 6 */ insn(call, 0, 0, 0, BPF_FUNC_map_lookup_elem),
      /* 7 */ insn(BPF_JMP | BPF_JEQ | BPF_K, r0, 0, 16, 0),  // -> 24
      /* 8 */ insn(mov, r7, r0, 0, 0),
      /* 9 */ insn(ldx, r8, r6, 0, 0),
      /* 10 */ insn(BPF_JMP | BPF_JNE | BPF_K, r8, 0, 3, int32_t(current_task_op)),  // -> 14
      /* 11 */ insn(call, 0, 0, 0, BPF_FUNC_get_current_task),
      /* 12 */ insn(stx, r7, r0, 0, 0),
      /* 13 */ insn(BPF_JMP | BPF_JA, 0, 0, 10, 0),  // -> 24
      /* 14 */ insn(mov, r1, r7, 0, 0),
      /* 15 */ insn(BPF_ALU64 | BPF_ADD | BPF_K, r1, 0, 0, 8),
      /* 16 */ insn(ldx, r2, r6, 16, 0),
      /* 17 */ insn(BPF_JMP | BPF_JGT | BPF_K, r2, 0, 6, int32_t(KernelMemory::kChunk)),  // -> 24
      /* 18 */ insn(ldx, r3, r6, 8, 0),
      /* 19 */ insn(BPF_JMP | BPF_JEQ | BPF_K, r8, 0, 2, int32_t(string_op)),  // -> 22
      /* 20 */ insn(call, 0, 0, 0, BPF_FUNC_probe_read_kernel),
      /* 21 */ insn(BPF_JMP | BPF_JA, 0, 0, 1, 0),  // -> 23
      /* 22 */ insn(call, 0, 0, 0, BPF_FUNC_probe_read_kernel_str),
      /* 23 */ insn(stx, r7, r0, 0, 0),
      /* 24 */ insn(BPF_ALU64 | BPF_MOV | BPF_K, r0, 0, 0, 0),
      /* 25 */ insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
  };
}

}  // namespace

KernelMemory& kernel_memory() {
  static KernelMemory reader;
  return reader;
}

KernelMemory::~KernelMemory() {
  if (prog_fd_ >= 0) close(prog_fd_);
  if (map_fd_ >= 0) close(map_fd_);
}

bool KernelMemory::load() {
  if (tried_) return prog_fd_ >= 0;
  tried_ = true;
  map_fd_ = bpf_map_create(BPF_MAP_TYPE_ARRAY, "stap_kmem", 4, 8 + kChunk, 1, nullptr);
  if (map_fd_ < 0) {
    why_not_ = std::string("its map cannot be made: ") + std::strerror(errno);
    return false;
  }
  std::vector<bpf_insn> code = program(map_fd_, kCurrentTask, kReadString);
  std::vector<char> log(16384);
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 1, .log_size = uint32_t(log.size()),
              .log_buf = log.data());
  prog_fd_ = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "stap_kmem", "GPL", code.data(),
                           code.size(), &opts);
  if (prog_fd_ < 0) {
    why_not_ = std::string("its BPF program does not load: ") + std::strerror(errno);
    // The verifier's last line says why.
    std::string text(log.data());
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (size_t nl = text.rfind('\n'); !text.empty())
      why_not_ += " (" + text.substr(nl == std::string::npos ? 0 : nl + 1) + ")";
    return false;
  }
  return true;
}

bool KernelMemory::run(Op op, uint64_t address, uint64_t size, int64_t& result, void* out) {
  if (!load()) return false;
  uint64_t args[3] = {op, address, size};
  LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof args);
  if (bpf_prog_test_run_opts(prog_fd_, &opts) != 0) {
    why_not_ = std::string("the kernel does not run its BPF program: ") + std::strerror(errno);
    return false;
  }
  std::vector<uint8_t> slot(8 + kChunk);
  uint32_t key = 0;
  if (bpf_map_lookup_elem(map_fd_, &key, slot.data()) != 0) {
    why_not_ = std::string("its result cannot be read: ") + std::strerror(errno);
    return false;
  }
  std::memcpy(&result, slot.data(), 8);
  if (out) std::memcpy(out, slot.data() + 8, size);
  return true;
}

int KernelMemory::read(uint64_t address, void* out, size_t size) {
  std::lock_guard<std::mutex> hold(reader_lock);
  auto* bytes = static_cast<uint8_t*>(out);
  std::memset(out, 0, size);
  for (size_t done = 0; done < size;) {
    size_t n = std::min(kChunk, size - done);
    int64_t r = 0;
    if (!run(kRead, address + done, n, r, bytes + done)) return -ENOSYS;
    if (r < 0) {
      std::memset(out, 0, size);
      return int(r);
    }
    done += n;
  }
  return 0;
}

int KernelMemory::read_string(uint64_t address, size_t max, std::string& out) {
  std::lock_guard<std::mutex> hold(reader_lock);
  out.clear();
  std::vector<char> chunk(kChunk);
  while (out.size() < max) {
    // bpf_probe_read_kernel_str's size counts the NUL it always writes.
    size_t n = std::min(kChunk, max - out.size() + 1);
    int64_t r = 0;
    if (!run(kReadString, address + out.size(), n, r, chunk.data())) return -ENOSYS;
    if (r < 0) return int(r);
    size_t got = r > 0 ? size_t(r) - 1 : 0;  // without the NUL
    out.append(chunk.data(), got);
    if (got + 1 < n) break;  // the string ended in this chunk
  }
  if (out.size() > max) out.resize(max);
  return 0;
}

uint64_t KernelMemory::current_task() {
  std::lock_guard<std::mutex> hold(reader_lock);
  int64_t task = 0;
  if (!run(kCurrentTask, 0, 0, task, nullptr)) return 0;
  return uint64_t(task);
}

}  // namespace stap
