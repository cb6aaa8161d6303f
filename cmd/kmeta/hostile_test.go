package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestInputLimit: every input path stops at one limit, which --max-input
// and KMETA_MAX_INPUT set, and the error says how to raise it.
func TestInputLimit(t *testing.T) {
	bomb := testfixtures.ZstdZeros(-1, testfixtures.BTFMagic, 8<<20)
	claim := testfixtures.ZstdZeros(2<<30, testfixtures.BTFMagic, 4)
	dir := t.TempDir()
	file := writeFile(t, dir, "bomb.zst", bomb)
	for _, tc := range []struct {
		name  string
		stdin []byte
		env   string
		args  []string
	}{
		{"stdin, flag", bomb, "", []string{"btf", "dump", "--max-input", "1M", "-"}},
		{"file, flag", nil, "", []string{"btf", "dump", "--max-input=2M", file}},
		{"file, env", nil, "4M", []string{"btf", "dump", file}},
		{"base, env", nil, "1M", []string{"btf", "dump", "-B", file, file}},
		{"claims 2 GiB", claim, "", []string{"btf", "find", "x", "-"}},
		{"raw stdin", append(testfixtures.BTFMagic, make([]byte, 3<<20)...), "1M", []string{"btf", "dump", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envMaxInput, tc.env)
			_, err := kmeta(t, tc.stdin, tc.args...)
			if err == nil || !strings.Contains(err.Error(), "limit of") ||
				!strings.Contains(err.Error(), "--max-input") || !strings.Contains(err.Error(), envMaxInput) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	t.Setenv(envMaxInput, "lots")
	if _, err := kmeta(t, nil, "btf", "dump", file); err == nil || !strings.Contains(err.Error(), envMaxInput) {
		t.Fatalf("bad %s: %v", envMaxInput, err)
	}
}

func writeFile(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}
