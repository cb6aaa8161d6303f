// libbpfcopy: the peer of "kmeta btf copy" for issue 37's memory rule:
// libbpf reads BTF (btf__parse, or btf__parse_split on -B BASE) and writes
// it back (btf__raw_data), as a process. pahole cannot: it loads BTF with
// -F btf but encodes BTF only from DWARF.
//
//   libbpfcopy [-B BASE] IN OUT
//
// Build (libbpf 1.8 as in bench/dedup.sh's header, or the system's):
//   cc -O2 -I $T/inst/usr/include -o libbpfcopy bench/testdata/libbpfcopy.c $T/inst/usr/lib64/libbpf.a -lelf -lz
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct btf *b, *base = NULL;
	const void *raw;
	__u32 size;
	FILE *f;
	int i = 1;

	if (argc == 5 && !strcmp(argv[1], "-B")) {
		if (!(base = btf__parse(argv[2], NULL)))
			return fprintf(stderr, "%s: %s\n", argv[2], strerror(errno)), 1;
		i = 3;
	} else if (argc != 3) {
		return fprintf(stderr, "usage: libbpfcopy [-B BASE] IN OUT\n"), 2;
	}
	b = base ? btf__parse_split(argv[i], base) : btf__parse(argv[i], NULL);
	if (!b)
		return fprintf(stderr, "%s: %s\n", argv[i], strerror(errno)), 1;
	raw = btf__raw_data(b, &size);
	f = fopen(argv[i + 1], "w");
	if (!raw || !f || fwrite(raw, 1, size, f) != size || fclose(f))
		return perror(argv[i + 1]), 1;
	return 0;
}
