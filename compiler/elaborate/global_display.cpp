#include "elaborate/global_display.h"

#include <functional>
#include <unordered_set>

#include "elaborate/providers/provider.h"

namespace stap {

using namespace ast;

namespace {

// Builds nodes located at the global's declaration, so anything said about
// them points somewhere sensible.
class Builder {
 public:
  Builder(Arena& arena, SourceLoc loc) : arena_(arena), loc_(loc) {}

  template <typename T>
  T* make() {
    T* n = arena_.make<T>();
    n->loc = loc_;
    return n;
  }
  Symbol* sym(VarDecl* d) {
    auto* s = make<Symbol>();
    s->name = d->name;
    s->decl = d;
    s->type = d->type;
    return s;
  }
  StringLit* str(std::string value) {
    auto* s = make<StringLit>();
    s->value = std::move(value);
    s->type = Type::string;
    return s;
  }
  NumberLit* num(int64_t v) {
    auto* n = make<NumberLit>();
    n->value = v;
    n->text = std::to_string(v);
    n->type = Type::long_;
    return n;
  }
  CallExpr* printf_call(std::string format, std::vector<Expr*> args) {
    auto* c = make<CallExpr>();
    c->name = "printf";
    c->args.push_back(str(std::move(format)));
    c->args.insert(c->args.end(), args.begin(), args.end());
    c->type = Type::long_;
    return c;
  }
  ExprStmt* stmt(Expr* e) {
    auto* s = make<ExprStmt>();
    s->expr = e;
    return s;
  }
  StatExpr* stat(StatOp op, Expr* operand) {
    auto* s = make<StatExpr>();
    s->op = op;
    s->operand = operand;
    s->type = Type::long_;
    return s;
  }
  VarDecl* local(std::vector<VarDecl*>& locals, std::string name, Type t) {
    auto* v = arena_.make<VarDecl>();
    v->loc = loc_;
    v->scope = VarDecl::Scope::local;
    v->name = std::move(name);
    v->type = t;
    v->synthetic = true;
    v->written = v->read = true;
    locals.push_back(v);
    return v;
  }

 private:
  Arena& arena_;
  SourceLoc loc_;
};

constexpr StatOp kStatOps[] = {StatOp::count, StatOp::min, StatOp::max, StatOp::sum, StatOp::avg};
const char* const kStatsFormat = " @count=%#d @min=%#d @max=%#d @sum=%#d @avg=%#d\n";

// "%#d" for a long key, "\"%#s\"" for a string one.
std::string key_conversion(Type t) { return t == Type::string ? "\"%#s\"" : "%#d"; }

// The five aggregates of a statistic (or statistic array element).
std::vector<Expr*> stats_args(Builder& b, const std::function<Expr*()>& operand) {
  std::vector<Expr*> args;
  for (StatOp op : kStatOps) args.push_back(b.stat(op, operand()));
  return args;
}

Stmt* scalar_display(Builder& b, VarDecl* g) {
  if (g->type == Type::string)
    return b.stmt(b.printf_call(g->name + "=\"%#s\"\n", {b.sym(g)}));
  if (g->type == Type::long_) return b.stmt(b.printf_call(g->name + "=%d\n", {b.sym(g)}));
  // An empty statistic has no @min: print its count alone.
  auto* cond = b.make<BinaryExpr>();
  cond->op = "==";
  cond->left = b.stat(StatOp::count, b.sym(g));
  cond->right = b.num(0);
  cond->type = Type::long_;
  auto* ifs = b.make<IfStmt>();
  ifs->cond = cond;
  ifs->then_stmt = b.stmt(b.printf_call(g->name + " @count=0x0\n", {}));
  ifs->else_stmt = b.stmt(b.printf_call(g->name + kStatsFormat, stats_args(b, [&] { return b.sym(g); })));
  return ifs;
}

Stmt* array_display(Builder& b, VarDecl* g, std::vector<VarDecl*>& locals) {
  auto* loop = b.make<ForeachStmt>();
  loop->keys_bracketed = true;
  loop->base = b.sym(g);
  loop->sort_column = 0;  // by value (a statistic's @count), largest first
  loop->sort_direction = -1;
  std::string format = g->name + "[";
  std::vector<Expr*> args;
  for (size_t i = 0; i < g->index_types.size(); ++i) {
    VarDecl* k = b.local(locals, "__idx" + std::to_string(i), g->index_types[i]);
    loop->keys.push_back(b.sym(k));
    args.push_back(b.sym(k));
    format += (i ? "," : "") + key_conversion(g->index_types[i]);
  }
  format += "]";
  if (g->type == Type::stats) {
    auto element = [&] {
      auto* idx = b.make<ArrayIndex>();
      idx->base = b.sym(g);
      for (Symbol* k : loop->keys) idx->indexes.push_back(b.sym(k->decl));
      idx->type = Type::stats;
      return idx;
    };
    std::vector<Expr*> stats = stats_args(b, element);
    args.insert(args.end(), stats.begin(), stats.end());
    loop->body = b.stmt(b.printf_call(format + kStatsFormat, args));
    return loop;
  }
  VarDecl* v = b.local(locals, "__val", g->type);
  loop->value = b.sym(v);
  args.push_back(b.sym(v));
  format += g->type == Type::string ? "=\"%#s\"\n" : "=%d\n";
  loop->body = b.stmt(b.printf_call(format, args));
  return loop;
}

bool typed(const VarDecl& g) {
  if (g.type == Type::unknown) return false;
  for (Type t : g.index_types)
    if (t == Type::unknown) return false;
  return true;
}

}  // namespace

size_t add_global_display(Program& program, Arena& arena) {
  std::unordered_set<const VarDecl*> user_globals;
  for (const auto& f : program.files)
    if (!f->is_tapset) user_globals.insert(f->globals.begin(), f->globals.end());
  size_t added = 0;
  for (VarDecl* g : program.globals) {
    if (!user_globals.contains(g) || !g->written || g->read || !typed(*g)) continue;
    Builder b(arena, g->loc);
    auto* probe = b.make<ProbeDecl>();
    auto* point = b.make<ProbePoint>();
    point->components.push_back({"end", nullptr, g->loc});
    probe->points.push_back(point);
    probe->derived_from.push_back(point);
    probe->displays = g;
    Stmt* display = g->is_array ? array_display(b, g, probe->locals) : scalar_display(b, g);
    // These probes come after stap's optimiser: their body stays a block
    // around the statement, "{ {\ndisplay;\n} }" in -p2 -v either way.
    probe->body = b.make<Block>();
    probe->body->statements.push_back(display);
    if (program.optimized) {
      auto* outer = b.make<Block>();
      outer->statements.push_back(probe->body);
      probe->body = outer;
    }
    program.probes.push_back({probe, point, find_provider(*point)});
    ++added;
  }
  return added;
}

}  // namespace stap
