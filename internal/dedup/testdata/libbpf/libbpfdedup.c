// libbpfdedup: reference BTF deduplication with the system's libbpf, for
// the tests of btf/dedup (they build it when a C compiler and libbpf-dev
// are present, and skip otherwise).
//
//   libbpfdedup [-B BASE] -o OUT INPUT...
//       append every INPUT (split on BASE with -B) with btf__add_btf into
//       one new BTF, btf__dedup it once and write the raw result to OUT
//   libbpfdedup -B BASE -d OUTDIR INPUT...
//       btf__dedup each INPUT on its own (split on BASE) and write it to
//       OUTDIR/<INPUT's file name>
//   -t prints the seconds spent in btf__dedup alone (dedup_seconds), and
//      with -o those spent appending with btf__add_btf (add_seconds).
//   libbpfdedup -V prints the version of libbpf, "MAJOR.MINOR".
//
// Build: cc -O2 -o libbpfdedup libbpfdedup.c -lbpf
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_raw(const struct btf *b, const char *path)
{
	__u32 size;
	const void *raw = btf__raw_data(b, &size);
	FILE *f = fopen(path, "w");

	if (!f || fwrite(raw, 1, size, f) != size || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static int dedup(struct btf *b, double *spent)
{
	double t0 = seconds();
	int err = btf__dedup(b, NULL);

	*spent += seconds() - t0;
	return err;
}

int main(int argc, char **argv)
{
	const char *base_path = NULL, *out = NULL, *dir = NULL;
	struct btf *base = NULL, *dst;
	double spent = 0, added = 0;
	int c, timing = 0;

	while ((c = getopt(argc, argv, "B:o:d:tV")) != -1) {
		switch (c) {
		case 'V':
			printf("%u.%u\n", libbpf_major_version(), libbpf_minor_version());
			return 0;
		case 'B': base_path = optarg; break;
		case 'o': out = optarg; break;
		case 'd': dir = optarg; break;
		case 't': timing = 1; break;
		default: return 2;
		}
	}
	if (!out == !dir)
		return fprintf(stderr, "want one of -o OUT and -d OUTDIR\n"), 2;
	if (base_path && !(base = btf__parse(base_path, NULL)))
		return fprintf(stderr, "%s: %s\n", base_path, strerror(errno)), 1;
	for (int i = optind; dir && i < argc; i++) {
		char path[4096];
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		struct btf *m = btf__parse_split(argv[i], base);

		if (!m)
			return fprintf(stderr, "%s: %s\n", argv[i], strerror(errno)), 1;
		if (dedup(m, &spent))
			return fprintf(stderr, "%s: dedup failed\n", argv[i]), 1;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (write_raw(m, path))
			return 1;
		btf__free(m);
	}
	if (out) {
		dst = base ? btf__new_empty_split(base) : btf__new_empty();
		for (int i = optind; i < argc; i++) {
			struct btf *m = btf__parse_split(argv[i], base);
			double t0 = seconds();

			if (!m || btf__add_btf(dst, m) < 0)
				return fprintf(stderr, "%s: cannot read or append\n", argv[i]), 1;
			added += seconds() - t0;
			btf__free(m);
		}
		if (dedup(dst, &spent))
			return fprintf(stderr, "dedup failed\n"), 1;
		if (write_raw(dst, out))
			return 1;
	}
	if (timing && out)
		printf("add_seconds %.6f\n", added);
	if (timing)
		printf("dedup_seconds %.6f\n", spent);
	return 0;
}
