package dwarf2btf_test

import (
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestErrorPrefix: the errors of the entry points on bad files and data
// start with "dwarf2btf: " once, also where they wrap internal/input's
// (a missing file, a directory) or name the file.
func TestErrorPrefix(t *testing.T) {
	ctx := context.Background()
	fuzztest.CheckFiles(t, "dwarf2btf", func(path string) error {
		_, err := dwarf2btf.EncodeFile(ctx, path, dwarf2btf.Options{}, builder.Options{})
		return err
	})
	for _, data := range [][]byte{nil, []byte("text\n"), testfixtures.Read(t, testfixtures.DebianVmlinux), testfixtures.Read(t, "elf/prog.bpf.o.gz")} {
		_, err := dwarf2btf.Encode(ctx, data, dwarf2btf.Options{}, builder.Options{})
		fuzztest.CheckError(t, "dwarf2btf", err)
		_, err = dwarf2btf.ByteOrder(data)
		fuzztest.CheckError(t, "dwarf2btf", err)
		_, err = dwarf2btf.KernelRelease(data)
		fuzztest.CheckError(t, "dwarf2btf", err)
	}
}
