//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/bpfsys"
)

// lockedBuffer is a bytes.Buffer that the command writes while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestKsymWatchBPF runs "ksym watch --json" on the running kernel, loads
// and unloads a BPF program, and checks that it printed one add and one
// remove event for the program's symbol, with the address that
// /proc/kallsyms listed for it while it was loaded.
func TestKsymWatchBPF(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: needs CAP_BPF, CAP_PERFMON and kallsyms addresses")
	}
	name := fmt.Sprintf("kmw%d", os.Getpid()%100000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"ksym", "watch", "--json"}, nil, &out, &out) }()
	waitFor := func(what string, ok func(string) bool) {
		t.Helper()
		for start := time.Now(); !ok(out.String()); time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("no %s in the output:\n%s", what, out.String())
			}
		}
	}
	waitFor("loaded line", func(s string) bool { return strings.Contains(s, `"type":"loaded"`) })
	if !strings.Contains(out.String(), `"ksym_events":true`) {
		t.Skipf("ksymbol events unavailable: %s", out.String())
	}
	f, err := bpfsys.LoadSocketFilter(name)
	if err != nil {
		t.Skipf("cannot load a BPF program: %v", err)
	}
	addr, ok := kallsymsBPF(t, "_"+name)
	f.Close()
	if !ok {
		t.Fatal("the loaded program is not in /proc/kallsyms")
	}
	waitFor("remove event", func(s string) bool { return strings.Contains(s, `"action":"remove"`) && strings.Contains(s, name) })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch: %v", err)
	}
	var got []string
	for line := range strings.Lines(out.String()) {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if n, _ := v["name"].(string); v["type"] == "ksym" && strings.HasSuffix(n, "_"+name) {
			got = append(got, fmt.Sprintf("%s %s %s", v["action"], v["kind"], v["addr"]))
			if v["len"].(float64) == 0 {
				t.Errorf("event without a length: %s", line)
			}
		}
	}
	a := fmt.Sprintf("0x%x", addr)
	if want := []string{"add bpf " + a, "remove bpf " + a}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events %q, want %q; output:\n%s", got, want, out.String())
	}
}

// kallsymsBPF returns the address of the [bpf] symbol of /proc/kallsyms
// whose name ends in suffix.
func kallsymsBPF(tb testing.TB, suffix string) (uint64, bool) {
	tb.Helper()
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		tb.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 4 && fs[3] == "[bpf]" && strings.HasSuffix(fs[2], suffix) {
			a, err := strconv.ParseUint(fs[0], 16, 64)
			return a, err == nil
		}
	}
	return 0, false
}
