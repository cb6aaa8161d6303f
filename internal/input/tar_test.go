package input_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestUntar: the one regular file of an archive is returned in place,
// directories passed over; anything else is a clear error.
func TestUntar(t *testing.T) {
	btf := []byte{0x9f, 0xeb, 1, 0, 24, 0, 0, 0}
	long := strings.Repeat("d", 150) + "/6.1.0-47-cloud-amd64.btf" // a PAX path
	type E = testfixtures.TarEntry
	good := map[string][]byte{
		"one file":  testfixtures.Tar(t, E{Name: "5.4.0.btf", Data: btf}),
		"dir first": testfixtures.Tar(t, E{Name: "./", Dir: true}, E{Name: "./5.4.0.btf", Data: btf}),
		"long name": testfixtures.Tar(t, E{Name: long, Data: btf}),
	}
	for name, tarball := range good {
		if !input.IsTar(tarball[:input.TarHeadLen]) {
			t.Fatalf("%s: IsTar false", name)
		}
		d := input.Copy(tarball)
		f, _, err := input.Untar(d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(f.Bytes(), btf) {
			t.Errorf("%s: got %x", name, f.Bytes())
		}
		f.Release()
	}
	one := testfixtures.Tar(t, E{Name: "a.btf", Data: btf})
	two := testfixtures.Tar(t, E{Name: "a.btf", Data: btf}, E{Name: "b.btf", Data: btf})
	bad := map[string]struct {
		data []byte
		want string
	}{
		"two files": {two, "more than one file: a.btf and b.btf"},
		"no file":   {testfixtures.Tar(t, E{Name: "d/", Dir: true}), "holds no file"},
		"truncated": {one[:512+4], "past the end of the archive"},
		"bad sum":   {append([]byte{'x'}, one[1:]...), "tar archive at byte"},
	}
	for name, c := range bad {
		d := input.Copy(c.data)
		if _, _, err := input.Untar(d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
		if len(d.Bytes()) != len(c.data) {
			t.Errorf("%s: the data was taken over on an error", name)
		}
	}
	if input.IsTar(btf) || input.IsTar(make([]byte, input.TarHeadLen)) {
		t.Error("IsTar true for what is no tar archive")
	}
}

// FuzzUntar: any input gives an error or a slice of itself, never a panic.
func FuzzUntar(f *testing.F) {
	f.Add(testfixtures.Tar(f, testfixtures.TarEntry{Name: "5.4.0.btf", Data: []byte{0x9f, 0xeb, 1, 0}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := input.Borrow(data)
		out, _, err := input.Untar(d)
		if err != nil {
			return
		}
		if b := out.Bytes(); len(b) > 0 && !bytes.Contains(data, b) {
			t.Fatal("the file is not a part of the archive")
		}
	})
}
