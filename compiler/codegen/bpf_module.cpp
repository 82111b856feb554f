// BpfModule: the LLVM plumbing shared by every program of a script.
#include "codegen/bpf_module.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/Internalize.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <mutex>
#include <stdexcept>

extern "C" {
void LLVMInitializeBPFTargetInfo();
void LLVMInitializeBPFTarget();
void LLVMInitializeBPFTargetMC();
void LLVMInitializeBPFAsmPrinter();
// bpf_runtime/CMakeLists.txt: the linked bitcode of bpf_runtime/*.c.
extern const char bpf_runtime_bc[];
extern const char bpf_runtime_bc_end[];
}

using namespace llvm;

namespace stap::codegen {

TargetMachine& bpf_target_machine() {
  static std::unique_ptr<TargetMachine> tm;
  static std::once_flag once;
  std::call_once(once, [] {
    // Only the BPF target: InitializeAllTargets() would cost start-up time.
    LLVMInitializeBPFTargetInfo();
    LLVMInitializeBPFTarget();
    LLVMInitializeBPFTargetMC();
    LLVMInitializeBPFAsmPrinter();
    std::string err;
    // "bpf" is host-endian BPF, the triple clang -target bpf writes too.
    const Target* t = TargetRegistry::lookupTarget("bpf", err);
    if (!t) throw std::runtime_error("LLVM has no BPF target: " + err);
    // v3: 32-bit jumps and ALU; no v4 (signed division, sign-extending
    // loads), which the 6.1 kernels this must run on lack.
    tm.reset(t->createTargetMachine("bpf", "v3", "", TargetOptions(), Reloc::PIC_,
                                    std::nullopt, CodeGenOptLevel::Aggressive));
  });
  return *tm;
}

BpfModule::BpfModule(LLVMContext& ctx, const std::string& name)
    : ctx_(ctx), mod_(std::make_unique<Module>(name, ctx)), dib_(*mod_), b_(ctx) {
  mod_->setTargetTriple("bpf");
  mod_->setDataLayout(bpf_target_machine().createDataLayout());
  mod_->addModuleFlag(Module::Warning, "Debug Info Version", DEBUG_METADATA_VERSION);
  mod_->addModuleFlag(Module::Max, "Dwarf Version", 5);
  file_ = dib_.createFile(name, "/");
  cu_ = dib_.createCompileUnit(dwarf::DW_LANG_C11, file_, "stap-bpf", true, "", 0);
  i8 = Type::getInt8Ty(ctx);
  i32 = Type::getInt32Ty(ctx);
  i64 = Type::getInt64Ty(ctx);
  ptr = PointerType::get(ctx, 0);
  di_int_ = dib_.createBasicType("int", 32, dwarf::DW_ATE_signed);
  di_char_ = dib_.createBasicType("char", 8, dwarf::DW_ATE_signed_char);
  di_voidptr_ = dib_.createPointerType(nullptr, 64);
  prog_type_ = dib_.createSubroutineType(dib_.getOrCreateTypeArray({di_int_, di_voidptr_}));
  data_prog_type_ =
      dib_.createSubroutineType(dib_.getOrCreateTypeArray({di_int_, di_voidptr_, di_voidptr_}));
}

DIType* BpfModule::di_byte_array(uint64_t n) {
  return dib_.createArrayType(8 * n, 8, di_char_,
                              dib_.getOrCreateArray({dib_.getOrCreateSubrange(0, int64_t(n))}));
}

// __uint(name, n) is `int (*name)[n]`.
DIType* BpfModule::int_ptr_to_array(uint64_t n) {
  auto* arr = dib_.createArrayType(32 * n, 32, di_int_,
                                   dib_.getOrCreateArray({dib_.getOrCreateSubrange(0, int64_t(n))}));
  return dib_.createPointerType(arr, 64);
}

GlobalVariable* BpfModule::add_map(const MapSpec& spec) {
  std::vector<std::pair<const char*, DIType*>> fields = {
      {"type", int_ptr_to_array(spec.type)}, {"max_entries", int_ptr_to_array(spec.max_entries)}};
  if (spec.flags) fields.push_back({"map_flags", int_ptr_to_array(spec.flags)});
  // Keys and values as byte arrays: the kernel only checks their sizes.
  // Array and task-storage maps are the exception: the kernel wants a
  // 4-byte int key (of a task storage map: the task's pidfd).
  bool array = spec.type == kMapArray || spec.type == kMapPercpuArray ||
               spec.type == kMapTaskStorage;
  if (spec.key_size)
    fields.push_back({"key", dib_.createPointerType(array ? di_int_ : di_byte_array(spec.key_size), 64)});
  if (spec.value_size)
    fields.push_back({"value", dib_.createPointerType(di_byte_array(spec.value_size), 64)});

  auto* sty = StructType::get(ctx_, std::vector<Type*>(fields.size(), ptr));
  auto* gv = new GlobalVariable(*mod_, sty, false, GlobalValue::ExternalLinkage,
                                Constant::getNullValue(sty), spec.name);
  gv->setSection(".maps");
  gv->setAlignment(Align(8));
  gv->setDSOLocal(true);

  auto* st = dib_.createStructType(file_, "", file_, 1, 64 * fields.size(), 64, DINode::FlagZero,
                                   nullptr, DINodeArray());
  std::vector<Metadata*> members;
  uint64_t off = 0;
  for (auto& [fname, fty] : fields) {
    members.push_back(dib_.createMemberType(st, fname, file_, 1, 64, 0, off, DINode::FlagZero, fty));
    off += 64;
  }
  dib_.replaceArrays(st, dib_.getOrCreateArray(members));
  gv->addDebugInfo(dib_.createGlobalVariableExpression(cu_, spec.name, "", file_, 1, st, false, true));
  used_.push_back(gv);
  return gv;
}

GlobalVariable* BpfModule::add_rodata(const std::string& name, const std::string& bytes) {
  auto* init = ConstantDataArray::getString(ctx_, bytes, false);
  auto* gv = new GlobalVariable(*mod_, init->getType(), true, GlobalValue::ExternalLinkage, init, name);
  gv->setSection(".rodata");
  gv->setAlignment(Align(8));
  gv->setDSOLocal(true);
  DIType* ty = dib_.createQualifiedType(dwarf::DW_TAG_const_type, di_byte_array(bytes.size()));
  gv->addDebugInfo(dib_.createGlobalVariableExpression(cu_, name, "", file_, 1, ty, false, true));
  used_.push_back(gv);
  return gv;
}

GlobalVariable* BpfModule::add_rodata_u32(const std::string& name, uint32_t value) {
  auto* gv = new GlobalVariable(*mod_, i32, true, GlobalValue::ExternalLinkage,
                                ConstantInt::get(i32, value), name);
  gv->setSection(".rodata");
  gv->setAlignment(Align(4));
  gv->setDSOLocal(true);
  DIType* u32 = dib_.createBasicType("unsigned int", 32, dwarf::DW_ATE_unsigned);
  DIType* ty = dib_.createQualifiedType(dwarf::DW_TAG_const_type,
                                        dib_.createQualifiedType(dwarf::DW_TAG_volatile_type, u32));
  gv->addDebugInfo(dib_.createGlobalVariableExpression(cu_, name, "", file_, 1, ty, false, true));
  used_.push_back(gv);
  return gv;
}

void BpfModule::add_license(const char* license) {
  auto* init = ConstantDataArray::getString(ctx_, license, true);
  auto* gv = new GlobalVariable(*mod_, init->getType(), true, GlobalValue::ExternalLinkage, init,
                                "LICENSE");
  gv->setSection("license");
  gv->setAlignment(Align(1));
  used_.push_back(gv);
}

void BpfModule::add_blob_section(const std::string& section, const std::string& bytes) {
  auto* init = ConstantDataArray::getString(ctx_, bytes, false);
  auto* gv = new GlobalVariable(*mod_, init->getType(), true, GlobalValue::ExternalLinkage, init,
                                "stap_meta");
  gv->setSection(section);
  gv->setAlignment(Align(1));
  used_.push_back(gv);
}

Function* BpfModule::begin_program(const std::string& name, const std::string& section) {
  auto* fn = Function::Create(FunctionType::get(i32, {ptr}, false), GlobalValue::ExternalLinkage,
                              name, *mod_);
  fn->setSection(section);
  fn->setDSOLocal(true);
  start_function(fn, DISubprogram::SPFlagZero);
  used_.push_back(fn);
  return fn;
}

Function* BpfModule::begin_subprogram(const std::string& name, bool with_data) {
  std::vector<Type*> params = {ptr};
  if (with_data) params.push_back(ptr);
  auto* fn = Function::Create(FunctionType::get(i32, params, false), GlobalValue::InternalLinkage,
                              name, *mod_);
  fn->addFnAttr(Attribute::NoInline);
  // Local in debug info too, or the verifier checks it as a global function.
  start_function(fn, DISubprogram::SPFlagLocalToUnit);
  if (with_data) {
    fn->getArg(1)->setName("data");
    dib_.createParameterVariable(cur_sp_, "data", 2, file_, 1, di_voidptr_, true);
  }
  return fn;
}

// The debug info and entry block an `int f(void *ctx)` needs; the builder
// is left in the entry block.
void BpfModule::start_function(Function* fn, DISubprogram::DISPFlags extra) {
  fn->addFnAttr(Attribute::NoUnwind);
  fn->getArg(0)->setName("ctx");
  auto* sp = dib_.createFunction(file_, fn->getName(), "", file_, 1,
                                 fn->arg_size() > 1 ? data_prog_type_ : prog_type_, 1,
                                 DINode::FlagPrototyped,
                                 DISubprogram::SPFlagDefinition | DISubprogram::SPFlagOptimized |
                                     extra);
  fn->setSubprogram(sp);
  // BTF FUNC_PROTO parameter names come from the argument variables.
  dib_.createParameterVariable(sp, "ctx", 1, file_, 1, di_voidptr_, true);
  cur_fn_ = fn;
  cur_sp_ = sp;
  b_.SetInsertPoint(BasicBlock::Create(ctx_, "entry", fn));
  set_line(1);
}

Function* BpfModule::add_callback(const std::string& name, DILocation*& loc,
                                  const std::vector<const char*>& params) {
  auto* fn = Function::Create(FunctionType::get(i64, std::vector<Type*>(params.size(), ptr), false),
                              GlobalValue::InternalLinkage, name, *mod_);
  fn->addFnAttr(Attribute::NoUnwind);
  fn->addFnAttr(Attribute::NoInline);  // the helper takes its address
  DIType* di_long = dib_.createBasicType("long", 64, dwarf::DW_ATE_signed);
  std::vector<Metadata*> types = {di_long};
  types.insert(types.end(), params.size(), di_voidptr_);
  auto* type = dib_.createSubroutineType(dib_.getOrCreateTypeArray(types));
  // Local in debug info too: BTF linkage comes from there (see below).
  auto* sp = dib_.createFunction(file_, name, "", file_, 1, type, 1, DINode::FlagPrototyped,
                                 DISubprogram::SPFlagDefinition | DISubprogram::SPFlagOptimized |
                                     DISubprogram::SPFlagLocalToUnit);
  fn->setSubprogram(sp);
  for (unsigned i = 0; i < params.size(); ++i) {
    fn->getArg(i)->setName(params[i]);
    dib_.createParameterVariable(sp, params[i], i + 1, file_, 1, di_voidptr_, true);
  }
  loc = DILocation::get(ctx_, 1, 1, sp);
  return fn;
}

void BpfModule::set_line(unsigned line) {
  b_.SetCurrentDebugLocation(DILocation::get(ctx_, line, 1, cur_sp_));
}

AllocaInst* BpfModule::entry_alloca(Type* ty, const Twine& name) {
  IRBuilder<> tmp(&cur_fn_->getEntryBlock(), cur_fn_->getEntryBlock().begin());
  return tmp.CreateAlloca(ty, nullptr, name);
}

AllocaInst* BpfModule::shared_alloca(Type* ty, const std::string& name) {
  AllocaInst*& slot = shared_allocas_[{cur_fn_, name}];
  if (!slot) slot = entry_alloca(ty, name);
  return slot;
}

// As clang emits them: a call through inttoptr(helper id).
Value* BpfModule::call_helper(int id, Type* ret, ArrayRef<Value*> args) {
  std::vector<Type*> params;
  for (auto* a : args) params.push_back(a->getType());
  auto* callee = ConstantExpr::getIntToPtr(b_.getInt64(id), ptr);
  return b_.CreateCall(FunctionType::get(ret, params, false), callee, args);
}

// The BPF backend writes BTF FUNC linkage from DISubprogram::isLocalToUnit(),
// not from IR linkage: a linked-in C function left out of line but "global"
// in BTF would be verified in isolation by the kernel.  DISubprogram has no
// flag setter, so build a local copy and remap the function onto it.
static void make_subprogram_local(Function& f) {
  DISubprogram* sp = f.getSubprogram();
  if (!sp || sp->isLocalToUnit()) return;
  auto* nsp = DISubprogram::getDistinct(
      f.getContext(), sp->getScope(), sp->getName(), sp->getLinkageName(), sp->getFile(),
      sp->getLine(), sp->getType(), sp->getScopeLine(), sp->getContainingType(),
      sp->getVirtualIndex(), sp->getThisAdjustment(), sp->getFlags(),
      sp->getSPFlags() | DISubprogram::SPFlagLocalToUnit, sp->getUnit(), sp->getTemplateParams(),
      sp->getDeclaration(), nullptr, sp->getThrownTypes(), sp->getAnnotations(),
      sp->getTargetFuncName());
  ValueToValueMapTy vm;
  // Identity-map all metadata not local to this function.
  DebugInfoFinder dif;
  dif.processModule(*f.getParent());
  for (auto* n : dif.compile_units()) vm.MD()[n].reset(n);
  for (auto* n : dif.types()) vm.MD()[n].reset(n);
  for (auto* n : dif.global_variables()) vm.MD()[n].reset(n);
  for (auto* n : dif.subprograms())
    if (n != sp) vm.MD()[n].reset(n);
  for (auto* n : dif.scopes())
    if (auto* ls = dyn_cast<DILocalScope>(n); !ls || ls->getSubprogram() != sp) vm.MD()[n].reset(n);
  vm.MD()[sp].reset(nsp);
  for (auto& bb : f)
    for (auto& i : bb) {
      RemapInstruction(&i, vm, RF_IgnoreMissingLocals);
      RemapDbgRecordRange(f.getParent(), i.getDbgRecordRange(), vm, RF_IgnoreMissingLocals);
    }
  SmallVector<Metadata*> retained;
  for (auto* n : sp->getRetainedNodes()) retained.push_back(MapMetadata(n, vm, RF_IgnoreMissingLocals));
  nsp->replaceRetainedNodes(MDTuple::get(f.getContext(), retained));
  f.setSubprogram(nsp);
}

static bool link_runtime(Module& dst, std::string& error) {
  StringRef bytes(bpf_runtime_bc, size_t(bpf_runtime_bc_end - bpf_runtime_bc));
  auto buf = MemoryBuffer::getMemBuffer(bytes, "bpf_runtime.bc", false);
  auto src = parseBitcodeFile(buf->getMemBufferRef(), dst.getContext());
  if (!src) {
    error = "bpf_runtime bitcode: " + toString(src.takeError());
    return false;
  }
  if ((*src)->getTargetTriple() != dst.getTargetTriple() ||
      (*src)->getDataLayoutStr() != dst.getDataLayoutStr()) {
    error = "bpf_runtime bitcode: target " + (*src)->getTargetTriple() + " / " +
            (*src)->getDataLayoutStr() + " differs from " + dst.getDataLayoutStr();
    return false;
  }
  bool failed = Linker::linkModules(
      dst, std::move(*src), Linker::Flags::LinkOnlyNeeded, [](Module& m, const StringSet<>& linked) {
        internalizeModule(m, [&](const GlobalValue& gv) {
          // true = stays external: everything not linked, and variables
          // (libbpf refuses static maps).
          return !gv.hasName() || !linked.count(gv.getName()) || isa<GlobalVariable>(gv);
        });
      });
  if (failed) {
    error = "linking the bpf_runtime bitcode failed";
    return false;
  }
  for (auto& f : dst)
    if (!f.isDeclaration() && f.hasLocalLinkage()) make_subprogram_local(f);
  return true;
}

Function* BpfModule::runtime_function(StringRef name) {
  if (!runtime_copy_) {
    StringRef bytes(bpf_runtime_bc, size_t(bpf_runtime_bc_end - bpf_runtime_bc));
    auto buf = MemoryBuffer::getMemBuffer(bytes, "bpf_runtime.bc", false);
    auto src = parseBitcodeFile(buf->getMemBufferRef(), mod_->getContext());
    if (!src) {
      consumeError(src.takeError());
      return nullptr;
    }
    runtime_copy_ = std::move(*src);
  }
  Function* f = runtime_copy_->getFunction(name);
  return f && !f->isDeclaration() ? f : nullptr;
}

bool BpfModule::finish(std::string& error) {
  appendToCompilerUsed(*mod_, used_);
  dib_.finalize();
  if (!link_runtime(*mod_, error)) return false;
  std::string s;
  raw_string_ostream os(s);
  if (verifyModule(*mod_, &os)) {
    error = "generated LLVM IR is invalid: " + os.str();
    return false;
  }
  return true;
}

void BpfModule::optimize() {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  // The target machine registers the BPF IR passes (CO-RE, peepholes).
  PassBuilder pb(&bpf_target_machine());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(OptimizationLevel::O2);
  mpm.run(*mod_, mam);
}

bool BpfModule::emit_object(std::string& out, std::string& error) {
  SmallVector<char, 0> buf;
  raw_svector_ostream os(buf);
  legacy::PassManager pm;
  if (bpf_target_machine().addPassesToEmitFile(pm, os, nullptr, CodeGenFileType::ObjectFile)) {
    error = "the BPF target cannot emit an object file";
    return false;
  }
  pm.run(*mod_);
  out.assign(buf.begin(), buf.end());
  return true;
}

}  // namespace stap::codegen
