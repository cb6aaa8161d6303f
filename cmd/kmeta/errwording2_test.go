package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestShortRefusals: refusals are one short line that names the culprit
// once (errwording2).
func TestShortRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()

	// An option kmeta pahole does not take is named; the ones it takes
	// are in --help, not in a line longer than a terminal's.
	file := writeFile(t, dir, "vmlinux", nil)
	_, err := kmeta(t, nil, "pahole", "-J", "--btf_encode_force", file)
	if want := `kmeta: pahole: --btf_encode_force: not a pahole option kmeta takes ("kmeta pahole --help" lists them)`; errorLine(ctx, err) != want || exitStatus(ctx, err) != exitFailure {
		t.Errorf("pahole --btf_encode_force: status %d, %q\nwant %q", exitStatus(ctx, err), errorLine(ctx, err), want)
	}

	// Compressed BTF is not a vmlinux, as plain BTF is not: its inflated
	// head is checked before the encoder reads it, in a file as on
	// standard input; and so is a cut or empty one's.
	raw, err := hostile.BuildVariant(hostile.UnionNest, 3)
	if err != nil {
		t.Fatal(err)
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	btfGz := gz(raw)
	for _, c := range []struct{ name, data, want string }{
		{"vmlinux.btf.gz", string(btfGz), "gzip: not a vmlinux or module: it inflates to data that starts with 9feb0100, not with ELF's magic"},
		{"empty.gz", string(gz(nil)), "gzip: not a vmlinux or module: it inflates to nothing"},
		{"cut.gz", string(btfGz[:12]), "gzip data is truncated or corrupt: unexpected EOF"},
	} {
		path := writeFile(t, dir, c.name, []byte(c.data))
		for _, cmd := range []struct {
			prefix string
			args   []string
		}{
			{"kmeta: btf encode: ", []string{"btf", "encode", path, "-o", writeFile(t, dir, "out", nil)}},
			{"kmeta: pahole: ", []string{"pahole", "-J", "--btf_encode_detached=" + writeFile(t, dir, "out", nil), path}},
		} {
			_, err := kmeta(t, nil, cmd.args...)
			if want := cmd.prefix + path + ": " + c.want; errorLine(ctx, err) != want {
				t.Errorf("%v: %q\nwant %q", cmd.args, errorLine(ctx, err), want)
			}
		}
		_, err := kmeta(t, []byte(c.data), "btf", "encode", "-", "-o", writeFile(t, dir, "out", nil))
		if want := "kmeta: btf encode: standard input: " + c.want; errorLine(ctx, err) != want {
			t.Errorf("btf encode - < %s: %q\nwant %q", c.name, errorLine(ctx, err), want)
		}
	}
}
