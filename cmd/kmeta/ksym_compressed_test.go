package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// ksym reads a saved kallsyms compressed with gzip or zstd, as a file and
// on standard input, as it reads the text; --max-input holds what it
// inflates to as it holds the text (kallsyms' own tests cover xz).
func TestKsymCompressed(t *testing.T) {
	t.Parallel()
	flags := ksymFiles(t)
	path, sysfs := flags[1], flags[2:]
	text := ksymKallsyms + strings.Repeat("ffffffff81000300 T pad_________________________________________\n", 200)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(text))
	w.Close()
	zw, _ := zstd.NewWriter(nil)
	packed := map[string][]byte{"gz": gz.Bytes(), "zst": zw.EncodeAll([]byte(text), nil)}
	for _, cmd := range [][]string{{"stats"}, {"modules", "--json"}, {"name", "foo"}, {"addr", "0xffffffff81000115"}} {
		want, err := runKsym(t, append(cmd, flags...)...)
		want = noLoadTime(want)
		if err != nil {
			t.Fatalf("%v on the text: %v", cmd, err)
		}
		for ext, data := range packed {
			file := path + "." + ext
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(append(append([]string{"ksym"}, cmd...), "--kallsyms", file), sysfs...)
			got, err := kmeta(t, nil, args...)
			got = noLoadTime(got)
			if err != nil || got != want {
				t.Errorf("%v on %s: %v\n%s\nwant\n%s", cmd, ext, err, got, want)
			}
			args = append(append(append([]string{"ksym"}, cmd...), "--kallsyms", "-"), sysfs...)
			got, err = kmeta(t, data, args...)
			got = noLoadTime(got)
			if err != nil || got != want {
				t.Errorf("%v on %s from stdin: %v\n%s\nwant\n%s", cmd, ext, err, got, want)
			}
		}
	}
	// A limit above the compressed data and below its text.
	for ext, data := range packed {
		limit := strconv.Itoa(len(data) + 10)
		for _, in := range []string{path + "." + ext, "-"} {
			args := append([]string{"ksym", "stats", "--kallsyms", in, "--max-input", limit}, sysfs...)
			_, err := kmeta(t, data, args...)
			if err == nil || !strings.Contains(err.Error(), "larger than") && !strings.Contains(err.Error(), "more than") {
				t.Errorf("%s (%s) under --max-input %s: %v, want a size error", ext, in, limit, err)
			}
			if code := exitStatus(context.Background(), err); code != 2 {
				t.Errorf("%s (%s) under --max-input %s: status %d, want 2", ext, in, limit, code)
			}
		}
	}
}

// noLoadTime drops stats' load time, which no two runs share.
func noLoadTime(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, "load_seconds") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
