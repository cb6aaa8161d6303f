package cdump_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestIDsEdges: void as a root prints nothing between the header and the
// footer (bpftool's "btf dump map" of a global data map, whose key is
// void and whose value is a DATASEC, prints exactly that), and an id past
// the last type fails before anything is written.
func TestIDsEdges(t *testing.T) {
	s := testfixtures.HostSpec(t)
	var out bytes.Buffer
	// bpftool 7.1 prints 12 lines; 7.5 adds its 8 lines of macros.
	for _, tc := range []struct {
		opts  cdump.Options
		lines int
	}{{cdump.Options{Compat: cdump.CompatBpftool71}, 12}, {cdump.Options{}, 20}} {
		out.Reset()
		tc.opts.IDs = []btf.TypeID{0, 0}
		if err := cdump.Write(&out, s, tc.opts); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); strings.Count(got, "\n") != tc.lines || !strings.HasSuffix(got, "#endif /* __VMLINUX_H__ */\n") {
			t.Errorf("%v: void roots print:\n%s", tc.opts.Compat, got)
		}
	}
	out.Reset()
	err := cdump.Write(&out, s, cdump.Options{IDs: []btf.TypeID{1, s.LastID() + 1}})
	if !errors.Is(err, btf.ErrNotFound) || out.Len() != 0 {
		t.Errorf("id past the end: %v, %d bytes written", err, out.Len())
	}
}
