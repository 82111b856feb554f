// Runs user-context probes (begin, end, error, interval timers) and the
// functions they call, over the GlobalStore, with the same semantics the
// generated BPF code has: one model of every operator and conversion (see
// compiler/ir/ir.h), long arithmetic wrapping as in C, strings cut at
// MAXSTRINGLEN only where stap cuts them (sprintf, string globals).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "global_store.h"
#include "ir/ir.h"

namespace stap {

// What the interpreter needs from the session around it.
struct InterpreterHost {
  std::FILE* out = stdout;                    // printf output
  int64_t target_pid = 0;                     // target()
  std::function<void()> request_exit;         // exit()
};

struct ProbeOutcome {
  bool error = false;     // an uncaught runtime error
  std::string message;    // "division by zero near operator '/' at <input>:1:30"
};

class Interpreter {
 public:
  Interpreter(const ir::Module& module, GlobalStore& store, InterpreterHost host);
  // Runs probe `index` of the module (a user-context probe).
  ProbeOutcome run_probe(size_t index);

 private:
  struct Impl;
  const ir::Module& module_;
  GlobalStore& store_;
  InterpreterHost host_;
};

}  // namespace stap
