package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestTruthfulRefusals: refusals say what is wrong with the input, and
// give no hint that cannot help (redteam13): a cut kernel payload is
// truncated, not over the input limit whatever its last four bytes
// claim, and not "bad magic :" of nothing; a -B base that is itself split
// BTF is said to be one, not answered with "name its base with -B".
func TestTruthfulRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	baseRaw, err := hostile.BuildVariant(hostile.UnionNest, 3)
	if err != nil {
		t.Fatal(err)
	}
	mid, err := hostile.SplitOn(baseRaw, 3)
	if err != nil {
		t.Fatal(err)
	}
	top, err := hostile.BuildVariant13OnSplit(baseRaw, mid, hostile.MovedMembers, 10)
	if err != nil {
		t.Fatal(err)
	}
	midPath, topPath := writeFile(t, dir, "mid.btf", mid), writeFile(t, dir, "top.btf", top)
	splitBase := "base: btf: " + midPath + ": string section offset 0: not NUL: complete BTF's strings start with the empty string: " +
		"this looks like split BTF (a module's): -B takes complete BTF (a vmlinux's, such as /sys/kernel/btf/vmlinux), not BTF split on another"
	for _, args := range [][]string{
		{"btf", "dump", topPath, "-B", midPath},
		{"btf", "find", "s0", topPath, "-B", midPath},
		{"btf", "layout", "s0", topPath, "-B", midPath},
		{"btf", "dedup", topPath, "-B", midPath, "-o", writeFile(t, dir, "out", nil)},
		{"btf", "copy", topPath, "-B", midPath, "-o", writeFile(t, dir, "out", nil)},
	} {
		_, err := kmeta(t, nil, args...)
		if want := "kmeta: " + args[0] + " " + args[1] + ": " + splitBase; errorLine(ctx, err) != want || exitStatus(ctx, err) != exitFailure {
			t.Errorf("%v: status %d, %q\nwant %q", args, exitStatus(ctx, err), errorLine(ctx, err), want)
		}
	}

	// Each name once: a missing --types name, a header section error
	// whose cause names the section.
	basePath := writeFile(t, dir, "base.btf", baseRaw)
	_, err = kmeta(t, nil, "btf", "dump", basePath, "--format", "c", "--types", "no_such")
	if want := `kmeta: btf dump: cdump: btf: type "no_such": not found`; errorLine(ctx, err) != want {
		t.Errorf("--types no_such: %q\nwant %q", errorLine(ctx, err), want)
	}
	long := bytes.Clone(baseRaw)
	binary.LittleEndian.PutUint32(long[12:], 1<<20) // type_len
	// Plain BTF is not said to be a kernel image ("kimage: btf: ...").
	longPath := writeFile(t, dir, "long.btf", long)
	for _, cmd := range []string{"dump", "copy", "dedup"} {
		args := []string{"btf", cmd, longPath}
		if cmd != "dump" {
			args = append(args, "-o", writeFile(t, dir, "out", nil))
		}
		_, err = kmeta(t, nil, args...)
		if want := "kmeta: btf " + cmd + ": btf: " + longPath + ": header section: type section [0, +1048576) beyond the "; !strings.HasPrefix(errorLine(ctx, err), want) {
			t.Errorf("btf %s, a type section past the end: %q\nwant %q...", cmd, errorLine(ctx, err), want)
		}
	}

	// An empty file is empty, not "bad magic :" or "starts with ,".
	empty := writeFile(t, dir, "empty", nil)
	for _, tc := range [][2]string{
		{"btf dump", "kmeta: btf dump: btf: " + empty + ": the input is empty"},
		{"btf encode", "kmeta: btf encode: " + empty + ": not a vmlinux or module: it is empty"},
		{"btf core", "kmeta: btf core: " + empty + ": not a BPF object: it is empty"},
	} {
		args := append(strings.Fields(tc[0]), empty)
		if tc[0] == "btf encode" {
			args = append(args, "-o", writeFile(t, dir, "out", nil))
		}
		if _, err := kmeta(t, nil, args...); errorLine(ctx, err) != tc[1] {
			t.Errorf("%s of an empty file: %q\nwant %q", tc[0], errorLine(ctx, err), tc[1])
		}
	}

	elf := testfixtures.Read(t, "elf/prog.bpf.o.gz")
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(elf)
	w.Close()
	lz := make([]byte, lz4.CompressBlockBound(len(elf)))
	n, err := lz4.CompressBlock(elf, lz, nil)
	if err != nil || n == 0 {
		t.Fatalf("lz4: %d, %v", n, err)
	}
	// lz4 -l: the magic, then chunks, each its le32 size and its block.
	lz4Legacy := binary.LittleEndian.AppendUint32([]byte{0x02, 0x21, 0x4c, 0x18}, uint32(n))
	lz4Legacy = append(lz4Legacy, lz[:n]...)
	// An arm64 Image.gz, cut: said once which payload (it was "gzip
	// payload: the gzip payload is ...").
	var image bytes.Buffer
	w = gzip.NewWriter(&image)
	w.Write(testfixtures.Arm64Image(testfixtures.KernelBody(baseRaw)))
	w.Close()
	path := writeFile(t, dir, "Image.gz.cut", image.Bytes()[:image.Len()/2])
	_, err = kmeta(t, nil, "btf", "dump", path)
	if want := "kmeta: btf dump: kimage: " + path + ": the gzip payload is truncated or corrupt: unexpected EOF"; errorLine(ctx, err) != want {
		t.Errorf("Image.gz cut: %q\nwant %q", errorLine(ctx, err), want)
	}
	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
	}{
		// gzip's last four bytes (its ISIZE) made 4 GiB.
		{"gzip", append(bytes.Clone(gz.Bytes()[:gz.Len()/2]), 0xff, 0xff, 0xff, 0xff), "the gzip payload is truncated or corrupt: unexpected EOF"},
		// lz4's chunk runs past the cut; the size after it is small.
		{"lz4", binary.LittleEndian.AppendUint32(bytes.Clone(lz4Legacy[:len(lz4Legacy)/2]), 1000), "the lz4 payload is truncated or corrupt: lz4: a chunk of "},
	} {
		path := writeFile(t, dir, tc.name+"-cut", testfixtures.BzImage(tc.payload))
		_, err := kmeta(t, nil, "btf", "dump", path)
		line := errorLine(ctx, err)
		if want := "kmeta: btf dump: kimage: " + path + ": " + tc.want; !strings.HasPrefix(line, want) || exitStatus(ctx, err) != exitFailure {
			t.Errorf("%s cut: status %d, %q\nwant %q...", tc.name, exitStatus(ctx, err), line, want)
		}
	}
}
