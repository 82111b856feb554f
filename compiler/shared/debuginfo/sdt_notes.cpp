#include "debuginfo/sdt_notes.h"

#include <gelf.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace stap::debuginfo {

namespace {

constexpr uint32_t kStapSdtNoteType = 3;

struct RegisterName {
  const char* q;  // 64-bit
  const char* d;  // 32-bit
  const char* w;  // 16-bit
  const char* b;  // low byte
};

// Indexed by DWARF register number (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi,
// 5 rdi, 6 rbp, 7 rsp, 8..15 r8..r15).
const RegisterName kRegisters[] = {
    {"rax", "eax", "ax", "al"},     {"rdx", "edx", "dx", "dl"},     {"rcx", "ecx", "cx", "cl"},
    {"rbx", "ebx", "bx", "bl"},     {"rsi", "esi", "si", "sil"},    {"rdi", "edi", "di", "dil"},
    {"rbp", "ebp", "bp", "bpl"},    {"rsp", "esp", "sp", "spl"},    {"r8", "r8d", "r8w", "r8b"},
    {"r9", "r9d", "r9w", "r9b"},    {"r10", "r10d", "r10w", "r10b"}, {"r11", "r11d", "r11w", "r11b"},
    {"r12", "r12d", "r12w", "r12b"}, {"r13", "r13d", "r13w", "r13b"}, {"r14", "r14d", "r14w", "r14b"},
    {"r15", "r15d", "r15w", "r15b"},
};

// Parses an integer at `s` (decimal, 0x hex, optional sign); advances.
bool parse_number(const std::string& s, size_t& at, int64_t& value) {
  size_t start = at;
  bool negative = false;
  if (at < s.size() && (s[at] == '-' || s[at] == '+')) negative = s[at++] == '-';
  int base = 10;
  if (s.compare(at, 2, "0x") == 0 || s.compare(at, 2, "0X") == 0) {
    base = 16;
    at += 2;
  }
  size_t digits = at;
  uint64_t v = 0;
  while (at < s.size() && isxdigit(static_cast<unsigned char>(s[at])) &&
         (base == 16 || isdigit(static_cast<unsigned char>(s[at])))) {
    v = v * base + static_cast<uint64_t>(isdigit(static_cast<unsigned char>(s[at]))
                                             ? s[at] - '0'
                                             : tolower(s[at]) - 'a' + 10);
    ++at;
  }
  if (at == digits) {
    at = start;
    return false;
  }
  value = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

bool parse_register(const std::string& s, size_t& at, int& reg, uint8_t& width, uint8_t& shift) {
  if (at >= s.size() || s[at] != '%') return false;
  size_t end = at + 1;
  while (end < s.size() && isalnum(static_cast<unsigned char>(s[end]))) ++end;
  if (!x86_register(s.substr(at + 1, end - at - 1), reg, width, shift)) return false;
  at = end;
  return true;
}

// "disp(%base,%index,scale)" or "sym+off(%rip)" or "sym" after the '@'.
bool parse_memory(const std::string& s, SdtOperand& op, std::string& why) {
  size_t at = 0;
  op.kind = SdtOperand::in_mem;
  if (at < s.size() && (isalpha(static_cast<unsigned char>(s[at])) || s[at] == '_' || s[at] == '.')) {
    size_t end = at;
    while (end < s.size() && s[end] != '+' && s[end] != '-' && s[end] != '(') ++end;
    op.symbol = s.substr(at, end - at);
    at = end;
  }
  if (at < s.size() && s[at] != '(' && !parse_number(s, at, op.value)) {
    why = "bad displacement";
    return false;
  }
  if (at == s.size()) {
    if (op.symbol.empty()) why = "no address";
    return !op.symbol.empty();
  }
  if (s[at++] != '(') {
    why = "expected '('";
    return false;
  }
  uint8_t width = 0, shift = 0;
  if (at < s.size() && s[at] == '%') {
    if (s.compare(at, 4, "%rip") == 0) {
      op.reg = 16;
      at += 4;
    } else if (!parse_register(s, at, op.reg, width, shift) || width != 8) {
      why = "bad base register";
      return false;
    }
  }
  if (at < s.size() && s[at] == ',') {
    ++at;
    if (!parse_register(s, at, op.index_reg, width, shift) || width != 8) {
      why = "bad index register";
      return false;
    }
    int64_t scale = 1;
    if (at < s.size() && s[at] == ',' && (++at, !parse_number(s, at, scale))) {
      why = "bad scale";
      return false;
    }
    op.scale = static_cast<uint8_t>(scale);
  }
  if (at + 1 != s.size() || s[at] != ')') {
    why = "expected ')' at the end";
    return false;
  }
  return true;
}

bool parse_operand(const std::string& arg, SdtOperand& op, std::string& why) {
  op.text = arg;
  std::string body = arg;
  if (auto at = arg.find('@'); at != std::string::npos) {
    std::string size = arg.substr(0, at);
    size_t pos = 0;
    int64_t n = 0;
    if (!parse_number(size, pos, n) || pos != size.size() ||
        (std::abs(n) != 1 && std::abs(n) != 2 && std::abs(n) != 4 && std::abs(n) != 8)) {
      why = "bad size '" + size + "'";
      return false;
    }
    op.size = static_cast<uint8_t>(std::abs(n));
    op.is_signed = n < 0;
    body = arg.substr(at + 1);
  }
  if (body.empty()) {
    why = "empty operand";
    return false;
  }
  if (body[0] == '$') {
    size_t pos = 1;
    op.kind = SdtOperand::immediate;
    if (parse_number(body, pos, op.value) && pos == body.size()) return true;
    op.symbol = body.substr(1);
    op.value = 0;
    return true;
  }
  if (body[0] == '%') {
    size_t pos = 0;
    uint8_t width = 0;
    op.kind = SdtOperand::in_reg;
    if (parse_register(body, pos, op.reg, width, op.reg_shift) && pos == body.size()) return true;
    why = "unknown register '" + body + "'";
    return false;
  }
  return parse_memory(body, op, why);
}

}  // namespace

bool x86_register(const std::string& name, int& dwarf_reg, uint8_t& width, uint8_t& shift) {
  shift = 0;
  for (int i = 0; i < 16; ++i) {
    const RegisterName& r = kRegisters[i];
    const char* forms[] = {r.q, r.d, r.w, r.b};
    const uint8_t widths[] = {8, 4, 2, 1};
    for (int f = 0; f < 4; ++f)
      if (name == forms[f]) {
        dwarf_reg = i;
        width = widths[f];
        return true;
      }
  }
  // r8l..r15l (an older spelling of r8b), and the legacy high bytes.
  if (name.size() >= 3 && name[0] == 'r' && name.back() == 'l')
    return x86_register(name.substr(0, name.size() - 1) + "b", dwarf_reg, width, shift);
  static const char* const high[] = {"ah", "dh", "ch", "bh"};
  for (int i = 0; i < 4; ++i)
    if (name == high[i]) {
      dwarf_reg = i;
      width = 1;
      shift = 8;
      return true;
    }
  return false;
}

bool parse_sdt_args(const std::string& text, std::vector<SdtOperand>& out, std::string& why) {
  std::istringstream words(text);
  std::string arg;
  for (int n = 1; words >> arg; ++n) {
    SdtOperand op;
    std::string what;
    if (!parse_operand(arg, op, what)) {
      why = "argument " + std::to_string(n) + " '" + arg + "': " + what;
      return false;
    }
    out.push_back(std::move(op));
  }
  return true;
}

// The address of section `name`, or 0.
static uint64_t section_address(Elf* elf, const char* name) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    const char* n = gelf_getshdr(scn, &shdr) ? elf_strptr(elf, shstrndx, shdr.sh_name) : nullptr;
    if (n && strcmp(n, name) == 0) return shdr.sh_addr;
  }
  return 0;
}

static bool read_mark(const char* desc, size_t size, uint64_t base_section, SdtMark& mark) {
  if (size < 24) return false;
  uint64_t pc, base, semaphore;
  memcpy(&pc, desc, 8);
  memcpy(&base, desc + 8, 8);
  memcpy(&semaphore, desc + 16, 8);
  const char* strings = desc + 24;
  const char* end = desc + size;
  const char* provider = strings;
  const char* name = provider + strnlen(provider, end - provider) + 1;
  if (name >= end) return false;
  const char* args = name + strnlen(name, end - name) + 1;
  mark.provider = provider;
  mark.name.assign(name, strnlen(name, end - name));
  if (args < end) mark.arg_text.assign(args, strnlen(args, end - args));
  // Prelink moves .stapsdt.base without rewriting the notes.
  int64_t adjust = base_section && base ? static_cast<int64_t>(base_section - base) : 0;
  mark.pc = pc + adjust;
  mark.semaphore = semaphore ? semaphore + adjust : 0;
  if (!parse_sdt_args(mark.arg_text, mark.args, mark.arg_error)) mark.args.clear();
  return true;
}

std::vector<SdtMark> read_sdt_marks(const ElfFile& binary) {
  std::vector<SdtMark> marks;
  Elf* elf = binary.elf();
  uint64_t base_section = section_address(elf, ".stapsdt.base");
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    GElf_Nhdr nhdr;
    size_t offset = 0, name_at = 0, desc_at = 0;
    const char* bytes = static_cast<const char*>(data->d_buf);
    while ((offset = gelf_getnote(data, offset, &nhdr, &name_at, &desc_at)) > 0) {
      if (nhdr.n_type != kStapSdtNoteType || nhdr.n_namesz != 8 ||
          memcmp(bytes + name_at, "stapsdt", 8) != 0)
        continue;
      SdtMark mark;
      if (read_mark(bytes + desc_at, nhdr.n_descsz, base_section, mark))
        marks.push_back(std::move(mark));
    }
  }
  return marks;
}

}  // namespace stap::debuginfo
