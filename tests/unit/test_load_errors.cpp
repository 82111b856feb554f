// What a failed load says, from libbpf's log as libbpf 1.1 writes it (the
// live cases verifier_refusal, map_memory, map_too_large and, in the
// guest, lockdown_confidentiality get these logs from real kernels).
#include <catch2/catch.hpp>

#include <cerrno>

#include "loader/session/load_errors.h"

using namespace stap;

namespace {

ir::Module one_global() {
  ir::Module m;
  m.globals.resize(1);
  m.globals[0].name = "counts";
  m.globals[0].map_name = "stap_g0";
  return m;
}

const char* kVerifierLog =
    "libbpf: prog 'syscall_enter': BPF program load failed: Permission denied\n"
    "libbpf: prog 'syscall_enter': -- BEGIN PROG LOAD LOG --\n"
    "0: R1=ctx() R10=fp0\n"
    ";  @ t.stp:7\n"
    "0: (79) r0 = *(u64 *)(r10 +8)\n"
    "invalid read from stack R10 off=8 size=8\n"
    "processed 1 insns (limit 1000000) max_states_per_insn 0 total_states 0\n"
    "-- END PROG LOAD LOG --\n"
    "libbpf: prog 'syscall_enter': failed to load: -13\n";

}  // namespace

TEST_CASE("load errors: the verifier's reason and the script line", "[load_errors]") {
  std::string m = explain_load_failure(kVerifierLog, -EACCES, nullptr, {}, "begin", 0);
  CHECK(m == "ERROR: the kernel's verifier refused probe begin at t.stp:7: invalid read from "
             "stack R10 off=8 size=8 (Permission denied); -vvv shows its whole log");
  // At -vvv the log is on stderr already.
  CHECK(explain_load_failure(kVerifierLog, -EACCES, nullptr, {}, "begin", 3).ends_with(
      "(Permission denied)"));
}

TEST_CASE("load errors: a map the kernel could not create names its global", "[load_errors]") {
  std::string log = "libbpf: map 'stap_g0': failed to create: Cannot allocate memory(-12)\n";
  std::string m = explain_load_failure(log, -ENOMEM, nullptr, one_global(), "", 0);
  CHECK(m.starts_with("ERROR: the kernel could not create the map of global 'counts': "
                      "Cannot allocate memory: the kernel charges BPF maps to the memory cgroup"));
  CHECK(m.ends_with("give 'counts' fewer entries (global counts[N], or -D MAXMAPENTRIES=N for "
                    "every array)"));
  log = "libbpf: map 'stap_g0': failed to create: Argument list too long(-7)\n";
  CHECK(explain_load_failure(log, -E2BIG, nullptr, one_global(), "", 0).find(
            "the kernel takes no map that large") != std::string::npos);
}

TEST_CASE("load errors: a helper the kernel does not offer", "[load_errors]") {
  std::string log = "-- BEGIN PROG LOAD LOG --\nunknown func bpf_get_func_ip#173\n"
                    "processed 9 insns\n-- END PROG LOAD LOG --\n";
  CHECK(explain_load_failure(log, -EINVAL, nullptr, {}, "timer.s(1)", 0) ==
        "ERROR: the kernel refused to load probe timer.s(1): the kernel offers no BPF helper "
        "bpf_get_func_ip to this probe's program type (a newer kernel may)");
}

TEST_CASE("load errors: no log says nothing more than the errno", "[load_errors]") {
  CHECK(explain_load_failure("", -EINVAL, nullptr, {}, "", 0) ==
        "ERROR: the kernel refused to load the compiled object: Invalid argument (run with -vvv "
        "for the verifier's log)");
}
