// selftest_bpf_attach OBJ PROG: loads one program of OBJ with libbpf,
// attaches it, opens a file and checks the program ran (hits > 0).
// Exit 0 if it did; 2 load failed, 3 attach failed, 4 no hit.
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link;
	struct bpf_map *bss;
	int key = 0, hits = 0, err;

	if (argc != 3) {
		fprintf(stderr, "usage: %s OBJ PROG\n", argv[0]);
		return 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, false);
	prog = bpf_object__find_program_by_name(obj, argv[2]);
	if (!prog) {
		fprintf(stderr, "no program %s\n", argv[2]);
		return 1;
	}
	bpf_program__set_autoload(prog, true);
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "%s: load failed: %d\n", argv[2], err);
		return 2;
	}
	link = bpf_program__attach(prog);
	if (!link) {
		fprintf(stderr, "%s: attach failed\n", argv[2]);
		return 3;
	}
	close(open("/etc/hostname", O_RDONLY));
	bss = bpf_object__find_map_by_name(obj, ".bss");
	if (!bss || bpf_map__lookup_elem(bss, &key, sizeof key, &hits, sizeof hits, 0)) {
		fprintf(stderr, "%s: cannot read the hit count\n", argv[2]);
		return 4;
	}
	printf("%s: attached, %d hit(s)\n", argv[2], hits);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return hits > 0 ? 0 : 4;
}
