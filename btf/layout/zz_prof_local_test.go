package layout_test

import (
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/layout"
)

func TestProfLocal(t *testing.T) {
	f := os.Getenv("PROF_IN")
	if f == "" {
		t.Skip()
	}
	s, err := btf.Open(t.Context(), f, btf.Options{MaxSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	err = layout.Write(t.Context(), io.Discard, s, layout.Options{})
	runtime.ReadMemStats(&m1)
	t.Logf("err %v alloc %d MB, %d objs, types %d", err, (m1.TotalAlloc-m0.TotalAlloc)>>20, m1.Mallocs-m0.Mallocs, s.NumTypes())
}
