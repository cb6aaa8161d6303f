package mmap

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAppend checks that Append keeps the elements through every growth,
// from the heap into a region and within it, and that Free forgets the
// region.
func TestAppend(t *testing.T) {
	var r *Region
	var s []uint64
	for i := range 100_000 {
		s = Append(s, 1, &r)
		s = append(s, uint64(i))
	}
	if r == nil {
		t.Fatal("800 KB of elements not in a region")
	}
	for i, v := range s {
		if v != uint64(i) {
			t.Fatalf("s[%d] = %d after growing", i, v)
		}
	}
	Free(&r)
	if r != nil {
		t.Error("Free left the region")
	}
	Free(&r) // nothing to free
}

// TestMake checks that Make keeps small slices on the heap and gives
// large ones a zeroed region.
func TestMake(t *testing.T) {
	var r *Region
	if s := Make[uint32](10, &r); len(s) != 10 || r != nil {
		t.Errorf("Make of 10 elements: %d, region %v", len(s), r)
	}
	s := MakePopulated[uint32](MinSlice, &r)
	if len(s) != MinSlice || r == nil {
		t.Fatalf("Make of %d elements: %d, region %v", MinSlice, len(s), r)
	}
	for _, v := range s {
		if v != 0 {
			t.Fatal("Make's elements are not zero")
		}
	}
	s[len(s)-1] = 1
	Free(&r)
}

// TestFile checks that File maps a file's bytes, and that an empty file
// gives an empty region.
func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	want := bytes.Repeat([]byte("kmeta"), 3000)
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := File(f, int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Bytes(), want) {
		t.Error("File's bytes differ from the file")
	}
	Release(r.Bytes())
	if !bytes.Equal(r.Bytes(), want) {
		t.Error("the bytes differ after Release")
	}
	if _, err := r.Grow(2 * len(want)); err == nil {
		t.Error("Grow of a file's mapping succeeded")
	}
	if err := r.Free(); err != nil {
		t.Fatal(err)
	}
	e, err := File(f, 0)
	if err != nil || e.Len() != 0 {
		t.Fatalf("File of 0 bytes: %v, %v", e, err)
	}
	e.Free()
}

// TestUsedAfterFree checks that a Region's methods panic after Free, in
// every build, with a message that says so.
func TestUsedAfterFree(t *testing.T) {
	r, err := New(MinSlice)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Free(); err != nil {
		t.Fatal(err)
	}
	r.Free() // a second Free does nothing
	for name, use := range map[string]func(){
		"Bytes":    func() { r.Bytes() },
		"Len":      func() { r.Len() },
		"Grow":     func() { r.Grow(2 * MinSlice) },
		"Populate": func() { r.Populate(0, 1) },
		"Append":   func() { Append(make([]byte, 0), MinSlice, &r) },
		"Cover":    func() { Cover([]byte{}, r, MinPopulate) },
	} {
		func() {
			defer func() {
				if p := recover(); p != usedAfterFree {
					t.Errorf("%s after Free: panic %v, want %q", name, p, usedAfterFree)
				}
			}()
			use()
		}()
	}
}

// faultEnv names the use a child process of TestUseAfterFreeFaults makes.
const faultEnv = "KMETA_MMAP_FAULT"

// TestUseAfterFreeFaults checks, in a debug build (-tags kmetadebug, or
// -race), that a slice of a Region used after Free, or after a Grow that
// moved the region, makes the process die of a fault: a child process
// (this test binary again) makes each use.
func TestUseAfterFreeFaults(t *testing.T) {
	if use := os.Getenv(faultEnv); use != "" {
		useAfterFree(use)
		os.Exit(0) // not reached when the use faults
	}
	if !debug {
		t.Skip("Free unmaps: build with -tags kmetadebug or -race to make every use after Free fault")
	}
	for _, use := range []string{"free", "grow", "file"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUseAfterFreeFaults$")
		cmd.Env = append(os.Environ(), faultEnv+"="+use)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%s: the use after Free did not fault: %s", use, out)
			continue
		}
		if !strings.Contains(string(out), "unexpected fault address") {
			t.Errorf("%s: the child failed, but not of a fault: %v\n%s", use, err, out)
		}
	}
}

// useAfterFree makes, in a child process, the use of a freed slice that
// use names.
func useAfterFree(use string) {
	var r *Region
	var s []uint32
	switch use {
	case "free":
		s = Make[uint32](MinSlice, &r)
		s[0] = 1
		Free(&r)
	case "grow":
		s = Append(s, MinSlice, &r)[:1]
		r.Grow(64 * MinSlice) // a debug build always moves it
		defer Free(&r)
	case "file":
		f, err := os.Open(os.Args[0])
		if err != nil {
			panic(err)
		}
		r, err := File(f, 4096)
		if err != nil {
			panic(err)
		}
		b := r.Bytes()
		r.Free()
		println(b[100])
		return
	}
	s[0]++
	println(s[0])
}

// TestLive: Live counts the Regions New and File made until they are
// freed, once however often Free is called.
func TestLive(t *testing.T) {
	before := Live()
	r, err := New(3 * pageSize)
	if err != nil {
		t.Fatal(err)
	}
	var m *Region
	Make[uint64](MinSlice, &m)
	if got := Live(); got != before+2 {
		t.Errorf("Live after New and Make: %d, want %d", got, before+2)
	}
	r.Free()
	r.Free()
	Free(&m)
	if got := Live(); got != before {
		t.Errorf("Live after Free: %d, want %d", got, before)
	}
}
