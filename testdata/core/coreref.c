// Reference CO-RE relocation results from Debian's libbpf 1.1: opens OBJ
// with TARGET as the kernel BTF (btf_custom_path) and loads it; libbpf
// relocates every program before loading any, and its debug lines for each
// relocation ("relo #N: ...", "patched insn ...", "substituting insn ...")
// are printed. Loading may then fail (a kprobe without a kernel, a poisoned
// instruction): the relocation lines come first. Needs root.
//   gcc -O1 -o coreref coreref.c -lbpf
//   coreref TARGET OBJ
#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int print(enum libbpf_print_level level, const char *fmt, va_list ap) {
	char buf[4096];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (strstr(buf, "relo #") && !strstr(buf, "CO-RE relocating"))
		fputs(buf, stdout);
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 3) { fprintf(stderr, "usage: coreref TARGET OBJ\n"); return 2; }
	libbpf_set_print(print);
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = argv[1]);
	struct bpf_object *obj = bpf_object__open_file(argv[2], &opts);
	if (!obj) { fprintf(stderr, "open %s failed\n", argv[2]); return 1; }
	int err = bpf_object__load(obj);
	bpf_object__close(obj);
	if (err) fprintf(stderr, "load: %d\n", err);
	return 0;
}
