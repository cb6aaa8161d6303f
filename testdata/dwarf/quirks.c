/* quirks.c: what pahole 1.24 encodes oddly, kept so that the encoder
 * keeps doing the same: _Atomic types (DW_TAG_atomic_type, which pahole
 * 1.24 does not handle: what refers to one refers to void, so a struct
 * member of _Atomic type has type 0, which the kernel refuses), a
 * variable-length array (its count is a reference, so 0 elements), and
 * _BitInt integers (sizes rounded up to a power of two bytes by clang).
 * pahole 1.24 refuses _Complex floats ("Complex, interval and imaginary
 * float types are not supported"), so they are left out. No headers.
 *
 * Objects (make.sh): clang 14 -g -O2 -c for x86_64 and aarch64. */

typedef _Atomic int aint;

struct at {
	_Atomic int a;
	aint b;
	_Atomic(struct at *) p;
};

int use_at(struct at *x)
{
	return x->a + x->b;
}

int vla(int n)
{
	int arr[n];

	arr[0] = n;
	return arr[n - 1] + sizeof(arr);
}

struct bi {
	_BitInt(37) x;
	unsigned _BitInt(128) y;
	_BitInt(7) z;
};

int use_bi(struct bi *b)
{
	return (int)b->x + (int)b->z;
}
