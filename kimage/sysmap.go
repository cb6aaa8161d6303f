package kimage

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"strconv"
)

// sysMap is what a kernel's System.map tells about its BTF: the addresses
// of __start_BTF and __stop_BTF, which bound the .BTF section
// (include/asm-generic/vmlinux.lds.h), and of the kernel image's first
// byte, the lowest text symbol (_text on x86, arm64, s390 and arm; _start
// on riscv64, whose _text follows the head).
type sysMap struct {
	base, start, stop uint64
}

// parseSysMap reads a System.map ("ADDRESS TYPE NAME" lines, nm's format).
// It returns nil if the map has no __start_BTF, as Debian's image packages'
// placeholder has not (their real System.map is in the -dbg package): a
// line of other than three fields, as the placeholder's, is skipped.
func parseSysMap(data []byte) (*sysMap, error) {
	var sm sysMap
	var haveStart, haveStop, haveBase bool
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 4096)
	for line := 1; sc.Scan(); line++ {
		f := bytes.Fields(sc.Bytes())
		if len(f) != 3 || len(f[1]) != 1 {
			continue
		}
		addr, err := strconv.ParseUint(string(f[0]), 16, 64)
		if err != nil {
			return nil, pkgerr.Errorf("kimage: System.map line %d: address: %w", line, err)
		}
		switch name := string(f[2]); {
		case name == "__start_BTF":
			sm.start, haveStart = addr, true
		case name == "__stop_BTF":
			sm.stop, haveStop = addr, true
		case f[1][0] == 'T' || f[1][0] == 't':
			if !haveBase || addr < sm.base {
				sm.base, haveBase = addr, true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, pkgerr.Errorf("kimage: System.map: %w", err)
	}
	switch {
	case !haveStart && !haveStop:
		return nil, nil
	case !haveStart || !haveStop || sm.stop < sm.start:
		return nil, fmt.Errorf("kimage: System.map: __start_BTF %#x and __stop_BTF %#x do not bound a section", sm.start, sm.stop)
	case !haveBase || sm.base > sm.start:
		return nil, fmt.Errorf("kimage: System.map: no text symbol below __start_BTF %#x", sm.start)
	}
	return &sm, nil
}
