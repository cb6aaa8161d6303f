/* qsort-reverse.c: a qsort that reverses the array, then calls the C
 * library's qsort on it. Preloaded into bpftool 7.5 by
 * TestTiesOrderFree (ties_test.go), which builds it with
 *
 *   cc -O2 -shared -fPIC -o qsort-reverse.so qsort-reverse.c -ldl
 *
 * glibc's qsort is a stable merge sort: where the comparison says two
 * elements are equal, their order after the sort is their order before
 * it, which this reverses. bpftool's output is then unchanged only if its
 * comparison never says "equal", so that the sorted order does not depend
 * on the algorithm. Set QSORT_REVERSE=1 to reverse; each reversed call
 * prints a line on stderr, so that the test knows the shim ran. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*cmp_fn)(const void *, const void *);

void qsort(void *base, size_t n, size_t size, cmp_fn cmp)
{
	static void (*next)(void *, size_t, size_t, cmp_fn);
	char *b = base, tmp[256];

	if (!next)
		next = (void (*)(void *, size_t, size_t, cmp_fn))dlsym(RTLD_NEXT, "qsort");
	if (getenv("QSORT_REVERSE") && size <= sizeof(tmp) && n > 1) {
		for (size_t i = 0, j = n - 1; i < j; i++, j--) {
			memcpy(tmp, b + i * size, size);
			memcpy(b + i * size, b + j * size, size);
			memcpy(b + j * size, tmp, size);
		}
		fprintf(stderr, "qsort-reverse: %zu elements of %zu bytes\n", n, size);
	}
	next(base, n, size, cmp);
}
