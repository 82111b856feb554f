// Runs user-context probes (begin, end, error, interval timers) and the
// functions they call, over the GlobalStore, with the same semantics the
// generated BPF code has: one model of every operator and conversion (see
// compiler/ir/ir.h), long arithmetic wrapping as in C, strings cut at
// MAXSTRINGLEN only where stap cuts them (sprintf, string globals).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "loader/interp/global_store.h"
#include "loader/output/output_sink.h"
#include "ir/ir.h"

namespace stap {

// What the interpreter needs from the session around it.
struct InterpreterHost {
  std::FILE* out = stdout;                    // printf output, as text
  OutputSink* sink = nullptr;                 // or through this (output_sink.h)
  int64_t target_pid = 0;                     // target()
  std::function<void()> request_exit;         // exit()
  // abort(): end the session without running end probes; when unset,
  // request_exit is called instead.
  std::function<void()> request_abort;
  // warn(msg); when unset, "WARNING: msg" goes to stderr.
  std::function<void(const std::string&)> warn;
  // system(cmd): starts the command in the background.
  std::function<void(const std::string&)> system;
  std::string module_name = "stap";           // module_name(): -m NAME or the default
};

struct ProbeOutcome {
  bool error = false;     // an uncaught runtime error
  std::string message;    // "division by 0 near operator '/' at <input>:1:30" (stap's words)
};

class Interpreter {
 public:
  Interpreter(const ir::Module& module, GlobalStore& store, InterpreterHost host);
  // Runs probe `index` of the module (a user-context probe); with
  // `subject`, its context functions answer for that thread (a
  // running-tasks probe: process.begin of a process already running).
  ProbeOutcome run_probe(size_t index, int subject = 0);
  // A procfs probe's $value: set before a write probe runs (the text
  // written), read after a read probe ran (the text to serve).
  std::string& procfs_text();
  ~Interpreter();

  struct Impl;  // loader/interpreter_impl.h

 private:
  const ir::Module& module_;
  GlobalStore& store_;
  InterpreterHost host_;
  // Parsed formats, compiled regexes and builtin state (tokenize, the last
  // match) kept across probe runs.
  std::unique_ptr<Impl> impl_;
};

}  // namespace stap
