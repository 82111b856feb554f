// The IR as text: one line per node, "op:type operands", kids indented
// two spaces below.  Globals and functions are named, formats and error
// locations shown where used, so a dump reads without the tables.
#include "ir/print.h"

#include <sstream>

namespace stap::ir {

const char* op_name(Op op) {
  switch (op) {
    case Op::num: return "num";
    case Op::str: return "str";
    case Op::local: return "local";
    case Op::set_local: return "set_local";
    case Op::global: return "global";
    case Op::set_global: return "set_global";
    case Op::add_global: return "add_global";
    case Op::elem: return "elem";
    case Op::set_elem: return "set_elem";
    case Op::add_elem: return "add_elem";
    case Op::in_elem: return "in_elem";
    case Op::delete_elem: return "delete_elem";
    case Op::clear_global: return "clear_global";
    case Op::stat_add: return "stat_add";
    case Op::stat_get: return "stat_get";
    case Op::hist_bucket: return "hist_bucket";
    case Op::print_hist: return "print_hist";
    case Op::any: return "any";
    case Op::neg: return "neg";
    case Op::bit_not: return "bit_not";
    case Op::log_not: return "log_not";
    case Op::add: return "add";
    case Op::sub: return "sub";
    case Op::mul: return "mul";
    case Op::div: return "div";
    case Op::mod: return "mod";
    case Op::shl: return "shl";
    case Op::shr: return "shr";
    case Op::bit_and: return "bit_and";
    case Op::bit_or: return "bit_or";
    case Op::bit_xor: return "bit_xor";
    case Op::lt: return "lt";
    case Op::le: return "le";
    case Op::gt: return "gt";
    case Op::ge: return "ge";
    case Op::eq: return "eq";
    case Op::ne: return "ne";
    case Op::str_lt: return "str_lt";
    case Op::str_le: return "str_le";
    case Op::str_gt: return "str_gt";
    case Op::str_ge: return "str_ge";
    case Op::str_eq: return "str_eq";
    case Op::str_ne: return "str_ne";
    case Op::log_and: return "log_and";
    case Op::log_or: return "log_or";
    case Op::concat: return "concat";
    case Op::regex_match: return "regex_match";
    case Op::cond: return "cond";
    case Op::call: return "call";
    case Op::builtin: return "builtin";
    case Op::printf: return "printf";
    case Op::sprintf: return "sprintf";
    case Op::error: return "error";
    case Op::exit: return "exit";
    case Op::tp_field: return "tp_field";
    case Op::tp_chars: return "tp_chars";
    case Op::tp_dataloc: return "tp_dataloc";
    case Op::block: return "block";
    case Op::expr: return "expr";
    case Op::nop: return "nop";
    case Op::if_: return "if";
    case Op::loop: return "loop";
    case Op::foreach: return "foreach";
    case Op::ret: return "ret";
    case Op::brk: return "break";
    case Op::cont: return "continue";
    case Op::next: return "next";
    case Op::try_: return "try";
    case Op::sys_arg: return "sys_arg";
    case Op::sys_nr: return "sys_nr";
    case Op::sys_ret: return "sys_ret";
    case Op::fn_arg: return "fn_arg";
    case Op::fn_ret: return "fn_ret";
    case Op::fn_name: return "fn_name";
    case Op::kread: return "kread";
    case Op::reg: return "reg";
    case Op::uread: return "uread";
    case Op::set_verdict: return "set_verdict";
    case Op::procfs_value: return "procfs_value";
    case Op::set_procfs_value: return "set_procfs_value";
    case Op::verdict: return "verdict";
    case Op::ctx_address: return "ctx_address";
  }
  return "?";
}

namespace {

const char* stat_name(int64_t op) {
  static const char* const names[] = {"count", "sum", "min", "max", "avg", "variance"};
  return op >= 0 && op < 6 ? names[op] : "?";
}

// C-like quoting so that control characters stay on one line.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          static const char hex[] = "0123456789abcdef";
          out += "\\x";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string global_name(const Module& m, int64_t g) {
  if (g >= 0 && static_cast<size_t>(g) < m.globals.size()) return m.globals[g].name;
  return "global#" + std::to_string(g);
}

std::string slot_name(int64_t s) { return s < 0 ? "-" : "$" + std::to_string(s); }

std::string format_text(const Module& m, int64_t f) {
  if (f >= 0 && static_cast<size_t>(f) < m.formats.size()) return quoted(m.formats[f]);
  return "format#" + std::to_string(f);
}

// What follows the op name for each opcode.
std::string operands(const Module& m, const Node& n) {
  std::ostringstream o;
  switch (n.op) {
    case Op::num: o << ' ' << n.a; break;
    case Op::str: o << ' ' << quoted(n.s); break;
    case Op::local: case Op::set_local: o << ' ' << slot_name(n.a); break;
    case Op::global: case Op::set_global: case Op::elem: case Op::set_elem:
    case Op::in_elem: case Op::delete_elem: case Op::clear_global: case Op::stat_add:
    case Op::hist_bucket: case Op::print_hist:
      o << ' ' << global_name(m, n.a);
      break;
    case Op::add_global: case Op::add_elem:
      o << ' ' << global_name(m, n.a) << (n.b ? " old" : " new");
      break;
    case Op::stat_get:
      o << ' ' << global_name(m, n.a) << " @" << stat_name(n.b);
      if (n.c) o << " shift=" << n.c;
      break;
    case Op::regex_match: o << (n.b ? " !~ " : " =~ ") << quoted(n.s); break;
    case Op::call:
      if (n.a >= 0 && static_cast<size_t>(n.a) < m.functions.size())
        o << ' ' << m.functions[n.a].name;
      else
        o << " function#" << n.a;
      break;
    case Op::builtin: o << ' ' << n.s; break;
    case Op::printf: case Op::sprintf: o << ' ' << format_text(m, n.a); break;
    case Op::tp_field:
      o << " offset=" << n.a << " size=" << n.b << (n.c ? " signed" : " unsigned");
      break;
    case Op::tp_chars: o << " offset=" << n.a << " length=" << n.b; break;
    case Op::tp_dataloc: o << " offset=" << n.a; break;
    case Op::reg: o << " offset=" << n.a; break;
    case Op::fn_name: if (n.b) o << " point"; break;
    case Op::fn_arg: case Op::fn_ret: case Op::kread: case Op::uread:
      if (n.op == Op::fn_arg) o << " arg=" << n.a;
      o << " size=" << n.b << (n.c ? " signed" : "");
      break;
    case Op::sys_arg:
      o << " arg=" << n.a << " size=" << n.b << (n.c ? " signed" : "");
      break;
    case Op::foreach: {
      o << ' ' << global_name(m, n.a);
      const std::vector<int64_t>& v = n.ints;
      if (v.size() >= 5) {
        o << " value=" << slot_name(v[0]) << " keys=";
        for (size_t i = 5; i < v.size(); ++i) o << (i > 5 ? "," : "") << slot_name(v[i]);
        if (v.size() == 5) o << '-';
        if (v[2] != 0)
          o << " sort=" << (v[1] == 0 ? std::string("value") : "key" + std::to_string(v[1]))
            << (v[2] > 0 ? '+' : '-');
        o << " aggregate=@" << stat_name(v[3]);
        if (v[4]) o << " hist=" << (v[4] == 1 ? "log" : "linear");
      }
      break;
    }
    case Op::try_: o << " catch=" << slot_name(n.a); break;
    default: break;
  }
  if (n.loc != 0 && n.loc < m.locations.size()) o << "  @ " << m.locations[n.loc].text;
  return o.str();
}

std::string types_text(const std::vector<Type>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) out += (i ? "," : "") + std::string(type_name(types[i]));
  return out;
}

void print_global(std::ostringstream& o, const Global& g, size_t i) {
  o << "global " << i << ' ' << g.name;
  if (g.is_array()) o << '[' << types_text(g.keys) << ']';
  o << ':' << type_name(g.type);
  if (g.max_entries) o << " max_entries=" << g.max_entries;
  if (g.wrap) o << " wrap";
  if (!g.is_array() && g.type == Type::long_ && g.init_num) o << " init=" << g.init_num;
  if (!g.is_array() && g.type == Type::string && !g.init_str.empty())
    o << " init=" << quoted(g.init_str);
  if (g.hist.kind == HistShape::Kind::log) o << " hist=log";
  if (g.hist.kind == HistShape::Kind::linear)
    o << " hist=linear(" << g.hist.low << ',' << g.hist.high << ',' << g.hist.step << ')';
  if (g.in_globals_map()) o << " [offset " << g.offset << ']';
  else o << " [map " << g.map_name << " key " << g.key_size << " value " << g.value_size << ']';
  o << '\n';
}

void print_probe(std::ostringstream& o, const Module& m, const Probe& p, size_t i) {
  o << "probe " << i << ' ' << p.kind_name() << ' '
    << (p.context == Context::kernel ? "kernel" : "user") << ' ' << p.pp;
  std::visit([&o](const auto& s) { s.print(o); }, p.spec);
  o << " slots=[" << types_text(p.slots) << "]\n";
  if (p.body) o << print_node(m, *p.body, 1);
}

}  // namespace

std::string print_node(const Module& m, const Node& n, int indent) {
  std::ostringstream o;
  o << std::string(static_cast<size_t>(indent) * 2, ' ') << op_name(n.op);
  if (n.type != Type::none) o << ':' << type_name(n.type);
  o << operands(m, n) << '\n';
  for (const Node* k : n.kids)
    if (k) o << print_node(m, *k, indent + 1);
  return o.str();
}

std::string print_module(const Module& m) {
  std::ostringstream o;
  o << "module " << m.script_name << " maxstringlen=" << m.limits.maxstringlen
    << " maxmapentries=" << m.limits.maxmapentries << " maxerrors=" << m.limits.maxerrors
    << " maxaction=" << m.limits.maxaction << '\n';
  for (size_t i = 0; i < m.globals.size(); ++i) print_global(o, m.globals[i], i);
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const Function& f = m.functions[i];
    o << "function " << i << ' ' << f.name << ':' << type_name(f.ret) << " params="
      << f.param_count << " slots=[" << types_text(f.slots) << ']'
      << (f.recursive ? " recursive" : "") << '\n';
    if (f.body) o << print_node(m, *f.body, 1);
  }
  for (size_t i = 0; i < m.probes.size(); ++i) print_probe(o, m, m.probes[i], i);
  for (size_t i = 0; i < m.formats.size(); ++i)
    o << "format " << i << ' ' << quoted(m.formats[i]) << '\n';
  return o.str();
}

}  // namespace stap::ir
