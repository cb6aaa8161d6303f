package btf_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestOpenReleasesWalkedPages: Open of a mapped file with options from
// btfmem.EvictWhileOpening checks its records without keeping them
// resident: the walk (split in two or not) releases the pages behind it,
// so that only a few of them remain after Open, and the records read the
// same afterwards.
func TestOpenReleasesWalkedPages(t *testing.T) {
	data := testfixtures.Read(t, testfixtures.DebianVmlinux)
	want := mustParse(t, data, nil)
	path := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		s, err := btf.Open(context.Background(), path, btfmem.EvictWhileOpening(btf.Options{Workers: workers}))
		if err != nil {
			t.Fatal(err)
		}
		types := s.TypeSection()
		rss, err := mappingRss(uintptr(unsafe.Pointer(unsafe.SliceData(types))))
		if err != nil {
			s.Close()
			t.Skipf("no /proc/self/smaps: %v", err)
		}
		// Each walk keeps at most its step (256 KB) and a fault's
		// window behind it; the header and strings' ends are touched
		// too. Without the release the whole section (2.6 MB) stays.
		if limit := 1 << 20; rss > limit || len(types) < 2*limit {
			t.Errorf("workers %d: %d of the type section's %d bytes resident after Open, want at most %d", workers, rss, len(types), limit)
		}
		sameRecords(t, fmt.Sprintf("workers %d", workers), want, s)
		s.Close()
	}
}

// mappingRss returns the resident bytes of the mapping that holds addr,
// from /proc/self/smaps.
func mappingRss(addr uintptr) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = lo <= addr && addr < hi
			continue
		}
		var kb int
		if n, _ := fmt.Sscanf(line, "Rss: %d kB", &kb); n == 1 && in {
			return kb << 10, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no mapping holds %#x", addr)
}
