package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// writeFile writes data to dir/name, making dir if it does not exist,
// and returns the path.
func writeFile(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// builtInputs are the hostile inputs that sharedInput built, each a file
// in one directory that TestMain removes: several tests use the same
// shapes, and the suite's -cpu values rerun the tests in one process.
var builtInputs struct {
	mu    sync.Mutex
	dir   string
	paths map[string]string
}

// sharedInput returns the path in dir of the input name that build makes,
// built once per test binary and hard-linked into dir (copied where it
// cannot be linked).
func sharedInput(tb testing.TB, dir, name string, build func() ([]byte, error)) string {
	tb.Helper()
	src, err := builtInput(name, build)
	if err != nil {
		tb.Fatal(err)
	}
	dst := filepath.Join(dir, name)
	if os.Link(src, dst) == nil {
		return dst
	}
	b, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	return writeFile(tb, dir, name, b)
}

// builtInput returns the path of the shared file name, built on first use.
func builtInput(name string, build func() ([]byte, error)) (string, error) {
	builtInputs.mu.Lock()
	defer builtInputs.mu.Unlock()
	if p, ok := builtInputs.paths[name]; ok {
		return p, nil
	}
	if builtInputs.dir == "" {
		dir, err := os.MkdirTemp("", "kmeta-test-inputs")
		if err != nil {
			return "", err
		}
		builtInputs.dir, builtInputs.paths = dir, map[string]string{}
	}
	b, err := build()
	if err != nil {
		return "", err
	}
	p := filepath.Join(builtInputs.dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return "", err
	}
	builtInputs.paths[name] = p
	return p, nil
}
