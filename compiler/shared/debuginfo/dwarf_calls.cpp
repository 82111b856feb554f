// The calls a function makes, as its DWARF records them: what .callee and
// .callees probes are placed from (process_points.cpp).  A call site
// names the called function (DW_AT_call_origin, or DW_AT_abstract_origin
// in GCC's pre-DWARF-5 DW_TAG_GNU_call_site) and where the call returns
// (DW_AT_call_return_pc, or the GNU site's DW_AT_low_pc), which is the
// return address the callee finds on its stack.
#include <dwarf.h>

#include "debuginfo/dwarf_file.h"

namespace stap::debuginfo {

namespace {

bool ref_attr(Dwarf_Die* die, int name, Dwarf_Die& out) {
  Dwarf_Attribute attr;
  return dwarf_attr(die, name, &attr) && dwarf_formref_die(&attr, &out);
}

bool addr_attr(Dwarf_Die* die, int name, uint64_t& out) {
  Dwarf_Attribute attr;
  Dwarf_Addr a = 0;
  if (!dwarf_attr(die, name, &attr) || dwarf_formaddr(&attr, &a) != 0) return false;
  out = a;
  return true;
}

bool flag_attr(Dwarf_Die* die, int name) {
  Dwarf_Attribute attr;
  bool v = false;
  return dwarf_attr(die, name, &attr) && dwarf_formflag(&attr, &v) == 0 && v;
}

// The DIE a definition or copy stands for, its declaration's last link.
Dwarf_Off origin_offset(Dwarf_Die die) {
  for (int i = 0; i < 8; ++i) {
    Dwarf_Die next;
    if (!ref_attr(&die, DW_AT_abstract_origin, next) && !ref_attr(&die, DW_AT_specification, next))
      break;
    die = next;
  }
  return dwarf_dieoffset(&die);
}

}  // namespace

void DwarfFile::index_calls() const {
  if (calls_indexed_) return;
  calls_indexed_ = true;
  for (const DwarfFunction& fn : functions_) {
    by_origin_.emplace(origin_offset(fn.die), &fn);
    if (fn.external) external_by_name_.emplace(fn.name, &fn);
  }
  for (const DwarfFunction& copy : inlined_)
    inlined_by_die_.emplace(dwarf_dieoffset(const_cast<Dwarf_Die*>(&copy.die)), &copy);
}

std::vector<DwarfCall> DwarfFile::calls(const DwarfFunction& fn) const {
  index_calls();
  std::vector<DwarfCall> out;
  // Depth-first over the body: lexical blocks and inlined copies hold
  // calls too (an inlined copy's own calls are the copy's, not fn's).
  std::vector<Dwarf_Die> pending{fn.die};
  for (size_t guard = 0; !pending.empty() && guard < 100000; ++guard) {
    Dwarf_Die parent = pending.back();
    pending.pop_back();
    Dwarf_Die child;
    if (dwarf_child(&parent, &child) != 0) continue;
    std::vector<Dwarf_Die> blocks;
    do {
      int tag = dwarf_tag(&child);
      if (tag == DW_TAG_lexical_block) blocks.push_back(child);
      if (tag == DW_TAG_inlined_subroutine) {
        DwarfCall call;
        auto copy = inlined_by_die_.find(dwarf_dieoffset(&child));
        if (copy != inlined_by_die_.end()) call.inlined = copy->second;
        if (!call.inlined || !ref_attr(&child, DW_AT_abstract_origin, call.origin)) continue;
        call.callee = call.inlined->name;
        out.push_back(call);
        continue;
      }
      if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site) continue;
      DwarfCall call;
      if (!ref_attr(&child, DW_AT_call_origin, call.origin) &&
          !ref_attr(&child, DW_AT_abstract_origin, call.origin))
        continue;  // an indirect call: no callee to name
      const char* name = dwarf_diename(&call.origin);
      if (!name) continue;
      call.callee = name;
      if (!addr_attr(&child, DW_AT_call_return_pc, call.return_pc) &&
          !addr_attr(&child, DW_AT_low_pc, call.return_pc))
        continue;
      call.tail = flag_attr(&child, DW_AT_call_tail_call) || flag_attr(&child, DW_AT_GNU_tail_call);
      out.push_back(call);
    } while (dwarf_siblingof(&child, &child) == 0);
    // Keep DWARF order: the first block is explored first.
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) pending.push_back(*it);
  }
  return out;
}

const DwarfFunction* DwarfFile::called(const DwarfCall& call) const {
  if (call.inlined) return call.inlined;
  index_calls();
  auto fn = by_origin_.find(origin_offset(call.origin));
  if (fn != by_origin_.end()) return fn->second;
  // A declaration in the caller's unit of a function another unit
  // defines: the external definition of that name.
  auto named = external_by_name_.find(call.callee);
  return named != external_by_name_.end() ? named->second : nullptr;
}

}  // namespace stap::debuginfo
