package btf_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
)

// TestErrorPrefix: the errors of the entry points on bad files and
// streams, and of failed lookups, start with "btf: " once, also where
// they wrap a sentinel of the package.
func TestErrorPrefix(t *testing.T) {
	ctx := context.Background()
	fuzztest.CheckFiles(t, "btf", func(path string) error {
		_, err := btf.Open(ctx, path, btf.Options{})
		return err
	})
	for _, data := range [][]byte{nil, []byte("text\n"), bytes.Repeat([]byte{0x9f, 0xeb, 1, 0}, 64)} {
		_, err := btf.Read(ctx, bytes.NewReader(data), btf.Options{MaxSize: 100})
		fuzztest.CheckError(t, "btf", err)
		_, err = btf.Parse(data, btf.Options{})
		fuzztest.CheckError(t, "btf", err)
	}
	spec := debianSpec(t)
	_, err := spec.TypeByID(1 << 30)
	fuzztest.CheckError(t, "btf", err)
	_, err = spec.FindOne("list_head", btf.FindOptions{Kind: btf.KindUnion})
	fuzztest.CheckError(t, "btf", err)
	_, err = spec.Find("no_such_type", btf.FindOptions{Kind: btf.KindStruct})
	fuzztest.CheckError(t, "btf", err)
	_, err = spec.SizeOf(1 << 30)
	fuzztest.CheckError(t, "btf", err)
}
