package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/kmeta-dev/kmeta/kallsyms"
)

// The second hostile campaign of issue 37: inputs built the same ways as
// the first's, mixed (hostile.Mix), through the real binary.

// ksymPerModule is what ksym holds for each module beyond the reading
// commands' rule (README: "Memory: one rule per command"): the module's
// table, its builder while the text is read.
const ksymPerModule = 1229 // 1.2 KB

// ksymBound is the README's rule for ksym on n bytes of kallsyms text of
// modules modules, whose names are made of the kernel's words.
func ksymBound(n int64, modules int) int64 { return readBound(n) + ksymPerModule*int64(modules) }

// TestKsymModulesPeakRSS: a kallsyms of many modules, each of one symbol,
// stays within ksym's rule, and one of a million modules (63 MB of text,
// 2.6 GB on 4ffd8c1) is refused at the 65,537th, within the reading
// commands' rule.
func TestKsymModulesPeakRSS(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak RSS of ksym on a million modules: set KMETA_HEAVY=1")
	}
	timeBin := gnuTime(t)
	bin := buildRealKmeta(t)
	dir := t.TempDir()
	sysfs := t.TempDir()
	for _, tc := range []struct {
		modules int
		fails   string
	}{
		{30_000, ""},
		{1_000_000, fmt.Sprintf("more than %d modules", kallsyms.MaxModules)},
	} {
		text := hostile.Kallsyms(tc.modules, true, 1)
		path := writeFile(t, dir, fmt.Sprintf("kallsyms-%d", tc.modules), text)
		args := []string{"ksym", "stats", "--kallsyms", path, "--sysfs", sysfs, "--max-input", "64M"}
		peak, code, stderr := peakRSS(t, timeBin, bin, args...)
		bound := ksymBound(int64(len(text)), min(tc.modules, kallsyms.MaxModules))
		t.Logf("%d modules, %d MB: %d MB (bound %d MB), status %d %s", tc.modules, len(text)>>20, peak>>20, bound>>20, code, firstLine(stderr))
		if tc.fails == "" && code != 0 || tc.fails != "" && (code != 2 || !strings.Contains(stderr, tc.fails) || bytes.Count([]byte(stderr), []byte("\n")) != 1) {
			t.Errorf("%d modules: status %d, %q", tc.modules, code, stderr)
		}
		if tc.fails != "" {
			bound = readBound(int64(len(text)))
		}
		if peak > bound {
			t.Errorf("%d modules: peak RSS %d MB, over the bound of %d MB", tc.modules, peak>>20, bound>>20)
		}
	}
}
