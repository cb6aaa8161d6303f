package cdump_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/cdump"
)

// TestChunkedSort checks that the merge of sorted chunks, which the sort
// uses for inputs with more types than one window holds, prints the same
// header as the sort of every key at once: on the host's vmlinux and the
// crafted cases, with chunks of 2^4 to 2^16 ids (one chunk for the
// cases), also leaving out the first type as bpftool does; with
// KMETA_HEAVY=1 also on a module and its base.
func TestChunkedSort(t *testing.T) {
	for name, s := range sortSpecs(t) {
		want := dumpC(t, s, cdump.Options{})
		var skipped bytes.Buffer
		if err := cdump.WriteSkipFirst(&skipped, s, cdump.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, bits := range []int{4, 9, 16} {
			t.Run(fmt.Sprintf("%s/%d", name, bits), func(t *testing.T) {
				var got bytes.Buffer
				if err := cdump.WriteChunked(&got, s, cdump.Options{}, bits, false); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("chunks of 2^%d ids change the header: %s", bits, firstDiff(got.Bytes(), want))
				}
				got.Reset()
				if err := cdump.WriteChunked(&got, s, cdump.Options{}, bits, true); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), skipped.Bytes()) {
					t.Errorf("chunks of 2^%d ids, first left out: %s", bits, firstDiff(got.Bytes(), skipped.Bytes()))
				}
			})
		}
	}
}
