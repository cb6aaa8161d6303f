package main

import (
	"bytes"
	"debug/elf"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// releaseStartupPages gives back the resident pages of kmeta's own
// executable that are mapped read-only (its code, read-only data and the
// runtime's tables), with MADV_DONTNEED; they are read again from the
// page cache when next used. Starting a command touches far more of the
// binary than the command then runs: the runtime's and every package's
// initialisation, building the command tree and parsing flags, each
// fault mapping the 64 KB around it (Linux's fault-around, which
// MADV_RANDOM does not turn off). A writer whose peak is set against a C
// peer's (btf dedup, btf copy) calls it once its flags are parsed, so
// that its peak holds only the pages its work uses (cmd/kmeta/BENCH.md).
//
// Only an executable that the loader relocates nowhere is released: a
// statically linked one without a dynamic section. The read-only
// mappings of one with a dynamic section may hold pages the dynamic
// loader wrote before making them read-only (RELRO), which MADV_DONTNEED
// would turn back into the file's bytes.
func releaseStartupPages() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil || !unrelocated(exe) {
		return
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	for line := range bytes.Lines(maps) {
		lo, hi, ok := readOnlyMapping(line, exe)
		if ok {
			unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_DONTNEED)
		}
	}
}

// unrelocated reports whether the executable at path has no dynamic
// section and no interpreter: nothing writes its read-only segments.
func unrelocated(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_DYNAMIC || p.Type == elf.PT_INTERP || p.Type == elf.PT_GNU_RELRO {
			return false
		}
	}
	return true
}

// readOnlyMapping parses a line of /proc/self/maps ("lo-hi perms offset
// dev inode path") and returns its address range if it maps the file
// exe private and read-only ("r-xp" or "r--p").
func readOnlyMapping(line []byte, exe string) (lo, hi uintptr, ok bool) {
	f := bytes.Fields(line)
	if len(f) != 6 || string(f[5]) != exe || (string(f[1]) != "r-xp" && string(f[1]) != "r--p") {
		return 0, 0, false
	}
	a, z, found := bytes.Cut(f[0], []byte{'-'})
	if !found {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(string(a), 16, 64)
	h, err2 := strconv.ParseUint(string(z), 16, 64)
	if err1 != nil || err2 != nil || h <= l {
		return 0, 0, false
	}
	return uintptr(l), uintptr(h), true
}
