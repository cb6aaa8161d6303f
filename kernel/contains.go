package kernel

import (
	"bytes"
	"strings"
)

// byteRarity orders the bytes of type names from the rarest to the most
// common in BTF string sections, as counted over the 5.2 MB of strings of
// Debian 6.1's vmlinux and 1,121 modules; bytes not listed are rarer still.
const byteRarity = "79JZ8j01Q36Wz5K2Y4XHVGqBUFwLyMDxkPOCNhvISARgbTEufmldponciasrte_"

// rank returns how common c is in BTF strings: 0 for the rarest.
func rank(c byte) int {
	return strings.IndexByte(byteRarity, c) + 1
}

// containsName reports whether needle, a name and its NUL, occurs in strs.
// It looks for the name's rarest byte with bytes.IndexByte and checks the
// needle around each occurrence: a name starting with a common letter
// ("nf_conntrack_zzz") is ruled out much faster than with bytes.Contains,
// which starts from the first byte (BENCH.md).
func containsName(strs, needle []byte) bool {
	if len(needle) < 2 {
		return bytes.Contains(strs, needle)
	}
	k := 0
	for i := 1; i < len(needle)-1; i++ {
		if rank(needle[i]) < rank(needle[k]) {
			k = i
		}
	}
	c, tail := needle[k], len(needle)-k
	for i := k; i <= len(strs)-tail; {
		j := bytes.IndexByte(strs[i:len(strs)-tail+1], c)
		if j < 0 {
			return false
		}
		i += j
		if bytes.Equal(strs[i-k:i+tail], needle) {
			return true
		}
		i++
	}
	return false
}
