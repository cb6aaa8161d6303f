package layout_test

import (
	"context"
	"io"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzWrite prints the layout of mutated BTF, seeded with small real BTF:
// anything btf.Parse accepts must print without panicking.
func FuzzWrite(f *testing.F) {
	s := testfixtures.DebianSpec(f)
	for _, name := range []string{"list_head", "qspinlock", "file_system_type", "sk_buff"} {
		b, err := builder.Minimal(s, []builder.Want{{Name: name, Kind: btf.KindStruct}}, builder.MinimalOptions{})
		if err != nil {
			f.Fatal(err)
		}
		raw, err := b.Marshal(builder.Options{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := btf.Parse(data, btf.Options{})
		if err != nil {
			return
		}
		_ = layout.Write(context.Background(), io.Discard, s, layout.Options{})
		_, _ = layout.Layouts(context.Background(), s, layout.Options{})
	})
}
