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
	"github.com/kmeta-dev/kmeta/btf/dedup"
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
		baseSpec, baseErr = btf.Parse(testfixtures.Read(tb, testfixtures.DebianVmlinux))
		if baseErr == nil {
			baseDD, baseErr = dedup.NewBase(baseSpec)
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

// golden returns the raw dump of the libbpf golden testdata/NAME.dedup.btf.gz
// (split on base if base is not nil).
func golden(tb testing.TB, name string, base *btf.Spec) []byte {
	tb.Helper()
	return dumpOwn(tb, parse(tb, testfixtures.ReadPath(tb, "testdata/"+name+".dedup.btf.gz"), base))
}

func heavy(tb testing.TB) {
	tb.Helper()
	if os.Getenv("KMETA_HEAVY") != "1" {
		tb.Skip("heavy check: set KMETA_HEAVY=1")
	}
}

func equalDumps(tb testing.TB, got, want []byte) {
	tb.Helper()
	if !bytes.Equal(got, want) {
		testfixtures.CompareLines(tb, got, want)
	}
}

func bigEndianOrder() binary.ByteOrder { return binary.BigEndian }
