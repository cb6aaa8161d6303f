/*
 * distillref: libbpf's btf__distill_base, the reference for btf/distill's
 * TestLibbpf. Written for kmeta's tests.
 *
 *   distillref LIBBPF BASE OUTDIR SPLIT...
 *
 * loads LIBBPF (a libbpf.so of version 1.5 or later) with dlopen, parses
 * BASE (raw BTF), then each SPLIT (raw split BTF on BASE), distills it and
 * writes OUTDIR/NAME.base and OUTDIR/NAME.split (btf__raw_data of the
 * distilled base and of the new split BTF), NAME being SPLIT's file name
 * without its directory. It needs only libc's headers:
 *
 *   cc -O2 -o distillref distillref.c -ldl
 *
 * A libbpf built for a newer C library than the host's runs under its own
 * loader: KMETA_DISTILLREF="/ROOT/lib64/ld-linux-x86-64.so.2 --library-path
 * /ROOT/usr/lib/x86_64-linux-gnu:/ROOT/lib/x86_64-linux-gnu ./distillref
 * /ROOT/usr/lib/x86_64-linux-gnu/libbpf.so.1" (Debian 13's libbpf1 in a
 * trixie root).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

struct btf;

static int write_raw(const void *(*raw)(const struct btf *, unsigned *), const struct btf *b,
		     const char *dir, const char *name, const char *ext)
{
	char path[4096];
	unsigned sz;
	const void *d = raw(b, &sz);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	f = fopen(path, "wb");
	if (!f || fwrite(d, 1, sz, f) != sz || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	void *h;
	struct btf *(*parse)(const char *, void *);
	struct btf *(*parse_split)(const char *, struct btf *);
	int (*distill)(const struct btf *, struct btf **, struct btf **);
	const void *(*raw)(const struct btf *, unsigned *);
	struct btf *base;
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: distillref LIBBPF BASE OUTDIR SPLIT...\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	parse = (struct btf *(*)(const char *, void *))dlsym(h, "btf__parse");
	parse_split = (struct btf *(*)(const char *, struct btf *))dlsym(h, "btf__parse_split");
	distill = (int (*)(const struct btf *, struct btf **, struct btf **))dlsym(h, "btf__distill_base");
	raw = (const void *(*)(const struct btf *, unsigned *))dlsym(h, "btf__raw_data");
	if (!parse || !parse_split || !distill || !raw) {
		fprintf(stderr, "%s: no btf__distill_base (libbpf 1.5 or later is needed)\n", argv[1]);
		return 2;
	}
	base = parse(argv[2], NULL);
	if (!base) {
		fprintf(stderr, "%s: cannot parse\n", argv[2]);
		return 1;
	}
	for (i = 4; i < argc; i++) {
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		char stem[1024];
		struct btf *split = parse_split(argv[i], base), *nb, *ns;

		snprintf(stem, sizeof(stem), "%s", name);
		if (strrchr(stem, '.'))
			*strrchr(stem, '.') = 0;
		if (!split || distill(split, &nb, &ns)) {
			fprintf(stderr, "%s: cannot distill\n", argv[i]);
			return 1;
		}
		if (write_raw(raw, nb, argv[3], stem, "base") || write_raw(raw, ns, argv[3], stem, "split"))
			return 1;
	}
	return 0;
}
