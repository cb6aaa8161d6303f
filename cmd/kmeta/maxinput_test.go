package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/ulikunitz/xz"
)

// TestMaxInputCompressed: --max-input bounds a compressed file as stored
// as well as what it inflates to, as its help says (redteam9 finding 8:
// 113 bytes of BTF as 124-128 bytes of .xz were refused at 113, where the
// help said "decompressed" only).
func TestMaxInputCompressed(t *testing.T) {
	raw, err := hostile.Build(hostile.NestedRecords, 1)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w, err := xz.NewWriter(&z)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if z.Len() <= len(raw) {
		t.Fatalf("%d bytes of BTF took %d as .xz: want a file larger than its data", len(raw), z.Len())
	}
	path := writeFile(t, t.TempDir(), "small.btf.xz", z.Bytes())
	_, err = kmeta(t, nil, "btf", "layout", "--max-input", strconv.Itoa(len(raw)), path)
	if err == nil || !strings.Contains(err.Error(), path+" is "+strconv.Itoa(z.Len())+" bytes, more than the limit") || !strings.Contains(err.Error(), "--max-input") {
		t.Errorf("--max-input %d on %d bytes of .xz: %v, want the file's size refused", len(raw), z.Len(), err)
	}
	if _, err := kmeta(t, nil, "btf", "layout", "--max-input", strconv.Itoa(z.Len()), path); err != nil {
		t.Errorf("--max-input %d on %d bytes of .xz: %v", z.Len(), z.Len(), err)
	}
	help, err := kmeta(t, nil, "btf", "layout", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(help, "each file as stored, and what compressed data inflates to") {
		t.Errorf("--max-input's help does not say it bounds the file as stored: %s", help)
	}
}
