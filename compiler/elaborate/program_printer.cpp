// -p2 output: the elaborated program as stap prints it.
//
//   # globals
//   a:long [string, long]
//   # functions
//   f:long (a:long, b:string)
//   strlen:long (s:string)
//   # probes
//   begin /* <- begin */
//     # locals
//     y:long
//
// Sections without entries are left out.  Functions are sorted the way
// stap's function table is (by its internal "__global_NAME__overload_N"
// name); builtins that stap has as tapset functions are listed with them.
// With -v the bodies follow, as stap shows them.
#include <algorithm>
#include <ostream>
#include <unordered_map>

#include "elaborate/alias_expansion.h"
#include "elaborate/builtins.h"
#include "elaborate/elaborate.h"
#include "parse/printer.h"

namespace stap {

namespace {

std::string var_text(const ast::VarDecl& v) {
  std::string s = v.name;
  if (v.wrap) s += "%";
  if (v.max_entries > 0) s += "[" + std::to_string(v.max_entries) + "]";
  s += std::string(":") + ast::type_name(v.type);
  if (!v.index_types.empty()) {
    s += " [";
    for (size_t i = 0; i < v.index_types.size(); ++i)
      s += (i ? ", " : "") + std::string(ast::type_name(v.index_types[i]));
    s += "]";
  }
  return s;
}

std::string function_text(const ast::FunctionDecl& fn) {
  std::string s = fn.name + ":" + ast::type_name(fn.return_type) + " (";
  for (size_t i = 0; i < fn.params.size(); ++i) {
    ast::Type t = i < fn.param_decls.size() ? fn.param_decls[i]->type : fn.params[i].type;
    s += (i ? ", " : "") + fn.params[i].name + ":" + ast::type_name(t);
  }
  return s + ")";
}

// stap prints a body inside "{ }"; after its optimiser ran, a block of one
// statement shows as that statement.
void print_body(const ast::Block* body, bool optimized, std::ostream& out) {
  if (!body) return;
  out << "{ ";
  if (optimized && body->statements.size() == 1)
    print_stmt(*body->statements[0], out);
  else
    print_stmt(*body, out);
  out << " }\n";
}

void print_locals(const std::vector<ast::VarDecl*>& locals, std::ostream& out) {
  if (locals.empty()) return;
  out << "  # locals\n";
  for (const ast::VarDecl* l : locals) out << "  " << var_text(*l) << '\n';
}

struct FunctionEntry {
  std::string key;  // stap's internal name, which orders its table
  std::string text;
  const ast::FunctionDecl* decl = nullptr;
};

std::vector<FunctionEntry> function_entries(const Program& program) {
  std::vector<FunctionEntry> entries;
  std::unordered_map<std::string, int> overloads;
  for (const ast::FunctionDecl* fn : program.functions) {
    int n = overloads[fn->name]++;
    entries.push_back({"__global_" + fn->name + "__overload_" + std::to_string(n),
                       function_text(*fn), fn});
  }
  for (const Builtin* b : program.builtins) {
    if (!b->listed) continue;
    int n = overloads[b->name]++;
    entries.push_back({"__global_" + std::string(b->name) + "__overload_" + std::to_string(n),
                       b->signature(), nullptr});
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const FunctionEntry& a, const FunctionEntry& b) { return a.key < b.key; });
  return entries;
}

}  // namespace

void print_program(const Program& program, std::ostream& out, int verbose) {
  if (!program.globals.empty()) {
    out << "# globals\n";
    for (const ast::VarDecl* g : program.globals) out << var_text(*g) << '\n';
  }
  std::vector<FunctionEntry> functions = function_entries(program);
  if (!functions.empty()) {
    out << "# functions\n";
    for (const FunctionEntry& f : functions) {
      out << f.text << '\n';
      if (f.decl) print_locals(f.decl->locals, out);
      if (verbose > 0 && f.decl) print_body(f.decl->body, program.optimized, out);
    }
  }
  if (!program.probes.empty()) {
    out << "# probes\n";
    for (const DerivedProbe& dp : program.probes) {
      if (!dp.decl) continue;
      out << (dp.point ? point_text(*dp.point) : std::string()) << derivation_note(*dp.decl)
          << '\n';
      print_locals(dp.decl->locals, out);
      if (verbose > 0) print_body(dp.decl->body, program.optimized, out);
    }
  }
}

}  // namespace stap
