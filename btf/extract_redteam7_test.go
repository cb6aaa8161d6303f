package btf_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzExtract (issue 37, redteam7c) feeds arbitrary bytes to Extract,
// which had no fuzz target of its own: no panic, nothing over the input
// limit, and, where it finds BTF, the raw BTF is what Read opens from
// the same bytes (Read fails on it only where Parse does too). Seeds: a
// BPF object, a module with a distilled base, raw BTF, a compressed
// module.
func FuzzExtract(f *testing.F) {
	f.Add(testfixtures.Read(f, "elf/prog.bpf.o.gz"))
	f.Add(testfixtures.Read(f, "elf/distilled/debian-6.12-af_key.ko.gz"))
	f.Add(testfixtures.Modules(f)["af_key"])
	f.Add(testfixtures.Read(f, "elf/vsock_loopback.ko.gz"))
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		raw, base, err := btf.Extract(ctx, data, btf.Options{MaxSize: limit})
		if err != nil {
			return
		}
		if len(raw) > limit || len(base) > limit {
			t.Fatalf("%d and %d bytes out of %d, limit %d", len(raw), len(base), len(data), limit)
		}
		s, readErr := btf.Read(ctx, bytes.NewReader(data), btf.Options{MaxSize: limit, Lazy: true})
		_, parseErr := btf.Parse(raw, btf.Options{Lazy: true})
		if (readErr == nil) != (parseErr == nil) && base == nil {
			t.Fatalf("Read: %v; Parse of what Extract found: %v", readErr, parseErr)
		}
		if readErr == nil && base == nil && !bytes.Equal(s.TypeSection(), typeSection(t, raw)) {
			t.Fatal("Read and Extract found different type sections")
		}
	})
}

// typeSection returns the type section of raw BTF.
func typeSection(t *testing.T, raw []byte) []byte {
	t.Helper()
	s, err := btf.Parse(raw, btf.Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	return s.TypeSection()
}
