// An LLVM module being built for the BPF target: maps and globals with the
// debug info libbpf and the kernel need (BTF comes only from debug info),
// programs with their subprograms, helper calls, and the steps after
// building: linking the bpf_runtime bitcode, optimising, emitting ELF.
//
// Facts this relies on (see bpf_runtime/README.md and loader/README.md):
// maps are `.maps` globals whose debug type is an anonymous struct of
// pointer members (libbpf's __uint/__type); every DISubprogram parameter
// has a name; functions linked from bitcode that stay out of line must be
// local in their debug info; maps are never internalised.
#pragma once

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <map>
#include <string>
#include <vector>

namespace stap::codegen {

// BPF helper ids (include/uapi/linux/bpf.h).
enum Helper : int {
  kMapLookupElem = 1,
  kMapUpdateElem = 2,
  kMapDeleteElem = 3,
  kKtimeGetNs = 5,
  kTracePrintk = 6,
  kGetPrandomU32 = 7,
  kGetSmpProcessorId = 8,
  kGetCurrentPidTgid = 14,
  kGetCurrentUidGid = 15,
  kGetCurrentComm = 16,
  kGetCurrentTask = 35,
  kGetStack = 67,
  kProbeReadUser = 112,
  kJiffies64 = 118,
  kProbeReadKernel = 113,
  kProbeReadUserStr = 114,
  kProbeReadKernelStr = 115,
  kRingbufReserve = 131,
  kRingbufSubmit = 132,
  kRingbufQuery = 134,
  kTaskStorageGet = 156,
  kGetCurrentTaskBtf = 158,
  kLoop = 181,
  kForEachMapElem = 164,
  kSnprintf = 165,
};

// bpf_get_stack() flag for the user stack.
inline constexpr int64_t kUserStackFlag = 1 << 8;  // BPF_F_USER_STACK

// bpf_ringbuf_submit() flags and bpf_ringbuf_query() selectors.
inline constexpr int64_t kRingbufNoWakeup = 1, kRingbufForceWakeup = 2;
inline constexpr int64_t kRingbufAvailData = 0;
// Unread bytes past which a record wakes the runtime (the ring buffer is
// at least 1 MiB: -s takes whole MiB).
inline constexpr int64_t kRingbufWakeupBatch = 128 * 1024;
// Longest a printf record waits for a wake-up after a quiet spell.
inline constexpr int64_t kRingbufWakeupIntervalNs = 5 * 1000 * 1000;

// enum bpf_map_type values used.
enum MapType : unsigned {
  kMapHash = 1,
  kMapArray = 2,
  kMapPercpuHash = 5,
  kMapPercpuArray = 6,
  kMapLruHash = 9,
  kMapRingbuf = 27,
  kMapTaskStorage = 29,
};
inline constexpr unsigned kMapFlagMmapable = 1u << 10;  // BPF_F_MMAPABLE
inline constexpr unsigned kMapFlagNoPrealloc = 1u;      // BPF_F_NO_PREALLOC
inline constexpr int64_t kStorageCreate = 1;  // BPF_LOCAL_STORAGE_GET_F_CREATE

struct MapSpec {
  std::string name;
  unsigned type = 0;
  unsigned max_entries = 0;
  unsigned flags = 0;
  unsigned key_size = 0;    // 0: no key member (ring buffer)
  unsigned value_size = 0;  // 0: no value member
};

// The BPF target machine (CPU v3), created once per process.
llvm::TargetMachine& bpf_target_machine();

class BpfModule {
 public:
  BpfModule(llvm::LLVMContext& ctx, const std::string& name);

  llvm::Module& module() { return *mod_; }
  llvm::IRBuilder<>& b() { return b_; }

  llvm::GlobalVariable* add_map(const MapSpec& spec);
  // A read-only byte table in .rodata (string literals and formats).
  llvm::GlobalVariable* add_rodata(const std::string& name, const std::string& bytes);
  // A `const volatile __u32` in .rodata: a load-time constant the loader
  // may change (read it with a volatile load so LLVM does not fold it).
  llvm::GlobalVariable* add_rodata_u32(const std::string& name, uint32_t value);
  void add_license(const char* license);
  // A non-BPF section the runtime reads (the serialised module).
  void add_blob_section(const std::string& section, const std::string& bytes);

  // Starts `int name(void *ctx)` in `section`; the builder is placed in
  // its entry block.
  llvm::Function* begin_program(const std::string& name, const std::string& section);
  // Starts a static `int name(void *ctx)` that programs call (a probe body
  // a dispatching program runs); not inlined, so each body keeps its own
  // 512-byte stack frame however many one program dispatches to.
  // With `with_data`: `int name(void *ctx, void *data)`, a second pointer
  // the caller passes (a deferred run's kept arguments).
  llvm::Function* begin_subprogram(const std::string& name, bool with_data = false);
  void set_line(unsigned line);
  // A static `long name(void *map, void *key, void *value, void *ctx)`, the
  // callback shape of bpf_for_each_map_elem (or, given other parameter
  // names, one 64-bit parameter each: bpf_loop's `long (u64 index, void
  // *ctx)`); `loc` gets a debug location inside it for the builder that
  // fills it.
  llvm::Function* add_callback(const std::string& name, llvm::DILocation*& loc,
                               const std::vector<const char*>& params = {"map", "key", "value",
                                                                         "ctx"});

  llvm::Value* call_helper(int id, llvm::Type* ret, llvm::ArrayRef<llvm::Value*> args);
  llvm::AllocaInst* entry_alloca(llvm::Type* ty, const llvm::Twine& name);
  // One entry alloca per function and name, for buffers whose value is
  // loaded right after it is written (a kernel read's 8 bytes): a body with
  // many reads then takes 8 bytes of the 512-byte stack, not 8 per read.
  llvm::AllocaInst* shared_alloca(llvm::Type* ty, const std::string& name);

  // Links the embedded bpf_runtime bitcode (only what is used), makes the
  // linked functions local, finalises debug info and verifies.
  bool finish(std::string& error);
  // O2 with the BPF target's IR passes, then the ELF bytes.
  void optimize();
  bool emit_object(std::string& out, std::string& error);

  llvm::Type *i8, *i32, *i64, *ptr;

  // The bpf_runtime function of that name, from a copy of the runtime's
  // bitcode parsed on first use (it is linked only at finish), or null: for
  // estimates of what a call costs (verifier_weight).
  llvm::Function* runtime_function(llvm::StringRef name);

 private:
  void start_function(llvm::Function* fn, llvm::DISubprogram::DISPFlags extra);
  llvm::DIType* di_byte_array(uint64_t n);
  llvm::DIType* int_ptr_to_array(uint64_t n);

  llvm::LLVMContext& ctx_;
  std::unique_ptr<llvm::Module> mod_;
  std::unique_ptr<llvm::Module> runtime_copy_;
  llvm::DIBuilder dib_;
  llvm::DIFile* file_;
  llvm::DICompileUnit* cu_;
  llvm::IRBuilder<> b_;
  llvm::Function* cur_fn_ = nullptr;
  std::map<std::pair<llvm::Function*, std::string>, llvm::AllocaInst*> shared_allocas_;
  llvm::DISubprogram* cur_sp_ = nullptr;
  llvm::DISubroutineType* prog_type_;
  llvm::DISubroutineType* data_prog_type_;  // int (void *ctx, void *data)
  llvm::DIBasicType *di_int_, *di_char_;
  llvm::DIType* di_voidptr_;
  std::vector<llvm::GlobalValue*> used_;
};

}  // namespace stap::codegen
