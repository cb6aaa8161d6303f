package dedup_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

var (
	baseOnce sync.Once
	baseSpec *btf.Spec
	baseDD   *dedup.Base
	baseErr  error
)

// debian returns the Debian 6.1 vmlinux Spec and its Base, made once.
func debian(tb testing.TB) (*btf.Spec, *dedup.Base) {
	tb.Helper()
	baseOnce.Do(func() {
		baseSpec, baseErr = btf.Parse(testfixtures.Read(tb, testfixtures.DebianVmlinux), btf.Options{})
		if baseErr == nil {
			baseDD, baseErr = dedup.NewBase(baseSpec, dedup.Options{})
		}
	})
	if baseErr != nil {
		tb.Fatal(baseErr)
	}
	return baseSpec, baseDD
}

// module parses the Debian module NAME on the Debian vmlinux.
func module(tb testing.TB, name string) *btf.Spec {
	tb.Helper()
	s, _ := debian(tb)
	b, ok := testfixtures.Modules(tb)[name]
	if !ok {
		tb.Fatalf("no module %s", name)
	}
	return testfixtures.Spec(tb, b, s)
}

// mergedOrder lists the module names in the order of
// testdata/modules-merged.order.gz (the golden's input order).
func mergedOrder(tb testing.TB) []string {
	tb.Helper()
	var names []string
	for _, p := range strings.Fields(string(testfixtures.ReadPath(tb, "testdata/modules-merged.order.gz"))) {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".btf"))
	}
	return names
}

// parse parses raw BTF on base (nil: standalone).
func parse(tb testing.TB, raw []byte, base *btf.Spec) *btf.Spec {
	tb.Helper()
	return testfixtures.Spec(tb, raw, base)
}

// dumpOwn is bpftool's raw dump of s's own types (bpftool -B for split).
func dumpOwn(tb testing.TB, s *btf.Spec) []byte {
	tb.Helper()
	return testfixtures.RawDump(tb, s, btf.ScopeOwn)
}

// golden returns the libbpf golden testdata/NAME.dedup.btf.gz, raw BTF.
func golden(tb testing.TB, name string) []byte {
	tb.Helper()
	return testfixtures.ReadPath(tb, "testdata/"+name+".dedup.btf.gz")
}

func heavy(tb testing.TB) {
	tb.Helper()
	if os.Getenv("KMETA_HEAVY") != "1" {
		tb.Skip("heavy check: set KMETA_HEAVY=1")
	}
}

// equalBTF checks that got and want, raw BTF split on base (nil:
// standalone), hold the same type section and the same string section,
// byte for byte: the whole files but for the header, whose length differs
// from libbpf 1.8's (32 bytes, with an empty layout section). Where the
// types differ, the raw dumps are compared line by line to show which.
func equalBTF(tb testing.TB, got, want []byte, base *btf.Spec) {
	tb.Helper()
	g, w := parse(tb, got, base), parse(tb, want, base)
	gs, _ := g.StringSection()
	ws, _ := w.StringSection()
	if bytes.Equal(g.TypeSection(), w.TypeSection()) && bytes.Equal(gs, ws) {
		return
	}
	if gd, wd := dumpOwn(tb, g), dumpOwn(tb, w); !bytes.Equal(gd, wd) {
		testfixtures.CompareLines(tb, gd, wd)
		return
	}
	tb.Errorf("same types, but the string sections differ: %d bytes against %d, first difference at byte %d", len(gs), len(ws), firstDiff(gs, ws))
}

// firstDiff returns the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func bigEndianOrder() binary.ByteOrder { return binary.BigEndian }

// equalDumps compares two raw dumps line by line, for BTF whose bytes
// differ by design (another byte order).
func equalDumps(tb testing.TB, got, want []byte) {
	tb.Helper()
	if !bytes.Equal(got, want) {
		testfixtures.CompareLines(tb, got, want)
	}
}
