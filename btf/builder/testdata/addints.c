// addints: N ints named by their index in 250 digits ("%0250d"), added
// with libbpf's btf__add_int to btf__new_empty, written by btf__raw_data:
// the golden of TestStringsPastKernel (btf/builder/strwide_test.go).
// Built against libbpf 1.8 and run on x86-64 (little-endian):
//
//   cc -O2 -I $LIBBPF/usr/include -o addints addints.c $LIBBPF/usr/lib64/libbpf.a -lelf -lz
//   ./addints 66844 ints.btf     # (2^24)/251 + 2 ints
//   tail -c +33 ints.btf | sha256sum   # after libbpf 1.8's 32-byte header
#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	int n = atoi(argv[1]);
	struct btf *b = btf__new_empty();
	char name[256];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%0250d", i);
		int id = btf__add_int(b, name, 4, 0);
		if (id < 0) { fprintf(stderr, "btf__add_int %d: %d\n", i, id); return 1; }
	}
	unsigned sz;
	const void *raw = btf__raw_data(b, &sz);
	FILE *f = fopen(argv[2], "wb");
	fwrite(raw, 1, sz, f);
	fclose(f);
	return 0;
}
