// BPF programs for selftest.sh: an fentry and a kprobe on do_sys_openat2,
// each counting its hits. Built with clang -target bpf on the host.
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";
int hits;

SEC("fentry/do_sys_openat2")
int BPF_PROG(on_fentry)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

SEC("kprobe/do_sys_openat2")
int on_kprobe(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}
