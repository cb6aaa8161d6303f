/*
 * libbpfdistill: libbpf's btf__distill_base as a process, the peer of
 * `kmeta btf distill MODULE -B BASE -o OUT --base-out BASEOUT` in
 * bench/distill.sh. Written for kmeta's benchmarks.
 *
 *   libbpfdistill BASE MODULE OUT BASEOUT
 *
 * parses BASE (raw BTF or ELF) and MODULE (raw split BTF on BASE or an ELF
 * .ko) with btf__parse / btf__parse_split, distills it with
 * btf__distill_base and writes btf__raw_data of the new split BTF to OUT
 * and of the distilled base to BASEOUT (libbpf 1.8 writes a 32-byte header
 * with an empty layout section, 1.5 to 1.7 and kmeta the 24-byte one).
 *
 *   libbpfdistill -d OUTDIR BASE MODULE...
 *
 * does the same for each MODULE in one process, writing OUTDIR/NAME.btf
 * and OUTDIR/NAME.base (NAME: MODULE's file name up to its first dot).
 *
 * Build (static; libbpf 1.5 or later, e.g. 1.8 from github.com/libbpf/libbpf:
 *   make -C libbpf/src BUILD_STATIC_ONLY=y OBJDIR=$T/obj DESTDIR=$T/inst install):
 *   cc -O2 -static -I $T/inst/usr/include -o libbpfdistill libbpfdistill.c \
 *      $T/inst/usr/lib64/libbpf.a -lelf -lz
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static int write_raw(const struct btf *b, const char *path)
{
	__u32 sz;
	const void *d = btf__raw_data(b, &sz);
	FILE *f = fopen(path, "wb");

	if (!d || !f || fwrite(d, 1, sz, f) != sz || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static int distill_to(struct btf *base, const char *mod, const char *out, const char *baseout)
{
	struct btf *split, *nb = NULL, *ns = NULL;
	int err;

	split = btf__parse_split(mod, base);
	if (!split) {
		fprintf(stderr, "%s: %s\n", mod, strerror(errno));
		return 2;
	}
	err = btf__distill_base(split, &nb, &ns);
	if (err) {
		fprintf(stderr, "%s: btf__distill_base: %s\n", mod, strerror(-err));
		return 2;
	}
	if (write_raw(ns, out) || write_raw(nb, baseout))
		return 2;
	btf__free(ns);
	btf__free(nb);
	btf__free(split);
	return 0;
}

static int batch(int argc, char **argv)
{
	struct btf *base = btf__parse(argv[3], NULL);
	char out[4096], baseout[4096], name[1024];
	int i, err = 0;

	if (!base) {
		fprintf(stderr, "%s: %s\n", argv[3], strerror(errno));
		return 2;
	}
	for (i = 4; i < argc; i++) {
		const char *n = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];

		snprintf(name, sizeof(name), "%s", n);
		if (strchr(name, '.'))
			*strchr(name, '.') = 0;
		snprintf(out, sizeof(out), "%s/%s.btf", argv[2], name);
		snprintf(baseout, sizeof(baseout), "%s/%s.base", argv[2], name);
		if (distill_to(base, argv[i], out, baseout))
			err = 2;
	}
	return err;
}

int main(int argc, char **argv)
{
	struct btf *base;

	if (argc >= 4 && !strcmp(argv[1], "-d"))
		return batch(argc, argv);
	if (argc != 5) {
		fprintf(stderr, "usage: libbpfdistill BASE MODULE OUT BASEOUT | -d OUTDIR BASE MODULE...\n");
		return 2;
	}
	base = btf__parse(argv[1], NULL);
	if (!base) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	return distill_to(base, argv[2], argv[3], argv[4]);
}
