package kernel

import (
	"bytes"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func TestContainsName(t *testing.T) {
	strs := []byte("\x00xfs_mount\x00nf_conntrack_tuple\x00a\x00")
	for _, tt := range []struct {
		needle string
		want   bool
	}{
		{"xfs_mount\x00", true},
		{"mount\x00", true}, // a suffix
		{"nf_conntrack_tuple\x00", true},
		{"nf_conntrack\x00", false},
		{"a\x00", true},
		{"\x00", true},
		{"b\x00", false},
		{"\x00xfs_mount\x00nf_conntrack_tuple\x00a\x00\x00", false}, // longer than strs
		{"tuple\x00a\x00", true},
	} {
		if got := containsName(strs, []byte(tt.needle)); got != tt.want {
			t.Errorf("containsName(%q) = %v, want %v", tt.needle, got, tt.want)
		}
	}
	// Against bytes.Contains on every suffix-ish needle of real strings.
	spec := testfixtures.DebianSpec(t)
	real, _ := spec.StringSection()
	real = real[:min(len(real), 200_000)]
	for i := 1; i+1 < len(real); i += 997 {
		end := i + bytes.IndexByte(real[i:], 0) + 1
		for _, needle := range [][]byte{real[i:end], append(bytes.Clone(real[i:end-1]), 'Q', 0)} {
			if got, want := containsName(real, needle), bytes.Contains(real, needle); got != want {
				t.Fatalf("containsName(%q) = %v, want %v", needle, got, want)
			}
		}
	}
}

func BenchmarkContainsName(b *testing.B) {
	spec := testfixtures.DebianSpec(b)
	strs, _ := spec.StringSection()
	for _, name := range []string{"xfs_mount", "nf_conntrack_zzz", "btrfs_fs_info"} {
		needle := []byte(name + "\x00")
		b.Run(name+"/rare", func(b *testing.B) {
			for b.Loop() {
				containsName(strs, needle)
			}
		})
		b.Run(name+"/bytes.Contains", func(b *testing.B) {
			for b.Loop() {
				bytes.Contains(strs, needle)
			}
		})
	}
}
