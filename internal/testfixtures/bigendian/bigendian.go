// Package bigendian rewrites test BTF in big-endian byte order, as an
// s390x kernel's. It is apart from testfixtures because it goes through
// btf/builder, whose own tests import testfixtures.
//
// It is a test helper: only _test.go files (and other test helpers)
// import it, as docs/layers.md says and internal/apidoc's TestLayers
// checks.
package bigendian

import (
	"encoding/binary"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// BTF is the standalone BTF raw rewritten in big-endian byte order.
func BTF(tb testing.TB, raw []byte) []byte {
	tb.Helper()
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	b := builder.New()
	if err := b.CopyAll(s); err != nil {
		tb.Fatal(err)
	}
	out, err := b.Marshal(builder.Options{ByteOrder: binary.BigEndian})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
