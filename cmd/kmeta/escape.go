package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// escapeName makes a name from sysfs or kallsyms safe to print on a
// terminal: control characters (C0, DEL, C1), invalid UTF-8 and the
// backslash are written as \xNN, everything else as it is. JSON output
// needs no such care: encoding/json escapes them itself.
func escapeName(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '\\' || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r < 0x20 || r == 0x7f || r == '\\' || (r >= 0x80 && r < 0xa0) {
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
