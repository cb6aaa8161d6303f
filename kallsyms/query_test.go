package kallsyms

import (
	"fmt"
	"strings"
	"testing"
)

// TestLookupNameSeqAllocs checks that LookupNameSeq holds no match: the
// allocations of a scan do not grow with the number of symbols that share
// the name (LookupName's one slice of them is what made ksym name's peak
// grow past its bound with 200,000 such symbols).
func TestLookupNameSeqAllocs(t *testing.T) {
	allocs := func(n int) float64 {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%016x t dup_name\n", 0xffffffff81000000+16*uint64(i))
			if i%2 == 1 {
				fmt.Fprintf(&b, "%016x t dup_name\t[mod%d]\n", 0xffffffffc0000000+16*uint64(i), i%4)
			}
		}
		s, err := Parse(strings.NewReader(b.String()), Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := n + n/2
		return testing.AllocsPerRun(5, func() {
			got := 0
			for range s.LookupNameSeq("dup_name", "") {
				got++
			}
			if got != want {
				t.Fatalf("%d symbols of %d yielded", got, want)
			}
		})
	}
	small, large := allocs(100), allocs(10000)
	t.Logf("allocations of a scan: %v for 150 matches, %v for 15,000", small, large)
	if large > small {
		t.Errorf("a scan of 15,000 matches allocates %v times, one of 150 %v: it holds matches", large, small)
	}
}
