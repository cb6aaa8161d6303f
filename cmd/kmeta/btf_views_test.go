package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func TestBTFLayout(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	out, err := kmeta(t, nil, "btf", "layout", deb)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(testfixtures.Read(t, "pahole/debian-6.1.layout.txt.gz")) {
		t.Fatal("btf layout differs from pahole's")
	}
	out, err = kmeta(t, nil, "btf", "layout", "list_head", "hlist_node", deb)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "struct list_head {\n") || !strings.Contains(out, "struct hlist_node {\n") {
		t.Errorf("layout list_head hlist_node:\n%s", out)
	}
	out, err = kmeta(t, nil, "btf", "layout", "--json", "list_head", deb)
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Name    string
		Size    int
		Members []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "list_head" || got[0].Size != 16 || len(got[0].Members) != 2 {
		t.Errorf("layout --json list_head = %+v", got)
	}
	if _, err := kmeta(t, nil, "btf", "layout", "no_such_struct", deb); err == nil || exitStatus(t.Context(), err) != exitNotFound {
		t.Errorf("unknown struct: err %v", err)
	}
}

func TestBTFDiff(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	host := testfixtures.File(t, testfixtures.HostVmlinux)
	out, err := kmeta(t, nil, "btf", "diff", deb, deb)
	if err != nil || out != "" {
		t.Fatalf("diff X X: %q, %v", out, err)
	}
	out, err = kmeta(t, nil, "btf", "diff", "--types", "sk_buff", deb, host)
	if !errors.Is(err, errQuiet) || exitStatus(t.Context(), err) != exitNotFound {
		t.Fatalf("diff of different BTFs: err %v, want status 1", err)
	}
	// The named type first, then one line for the rest (it was at line
	// 6,384 of 8,079 of the types sk_buff reaches).
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.HasPrefix(out, "changed struct sk_buff\n\tsize: 232 -> 224\n") || len(lines) > 200 ||
		!strings.HasPrefix(lines[len(lines)-1], "reached ") || !strings.HasSuffix(lines[len(lines)-1], "--reached lists them") {
		t.Errorf("diff --types sk_buff: %d lines:\n%s", len(lines), out)
	}
	all, _ := kmeta(t, nil, "btf", "diff", "--types", "sk_buff", "--reached", deb, host)
	if !strings.HasPrefix(all, strings.Join(lines[:len(lines)-1], "\n")) || strings.Count(all, "\n") < 5000 {
		t.Errorf("diff --types sk_buff --reached: %d lines, want sk_buff's change first and thousands after", strings.Count(all, "\n"))
	}
	for _, reached := range []bool{false, true} {
		args := []string{"btf", "diff", "--json", "--types", "sk_buff", deb, host}
		if reached {
			args = append(args, "--reached")
		}
		out, _ = kmeta(t, nil, args...)
		var r diff.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Changes) == 0 || r.Changes[0].Name != "sk_buff" || r.Changes[0].Reached {
			t.Fatalf("%v: %v, %d changes", args, err, len(r.Changes))
		}
		changes := r.Changes
		if n := len(changes); reached && (n < 100 || !changes[n-1].Reached) || !reached && n != 1 {
			t.Errorf("%v: %d changes", args, n)
		}
		// The summary the text prints is in the JSON too (issue 40).
		if rs := r.Reached; rs == nil || rs.Listed != reached || rs.Added+rs.Removed+rs.Changed < 100 || r.Summary.Changed != 1 && !reached {
			t.Errorf("%v: summary %+v, reached %+v", args, r.Summary, r.Reached)
		}
	}
	if _, err := kmeta(t, nil, "btf", "diff", deb, "/nonexistent"); exitStatus(t.Context(), err) != exitFailure {
		t.Errorf("diff with a missing file: err %v, want status 2", err)
	}
}

// TestBTFLayoutSplit: "btf layout -B BASE MODULE" prints what pahole 1.24
// prints for "pahole -F btf --btf_base=BASE MODULE": the base's structs
// and unions (the vmlinux golden), then the module's own (the golden of
// kvm's, testdata/README.md). TestBTFLayoutSplitPahole checks two more
// modules against pahole itself.
func TestBTFLayoutSplit(t *testing.T) {
	t.Parallel()
	base := testfixtures.File(t, testfixtures.DebianVmlinux)
	vmlinux := testfixtures.Read(t, "pahole/debian-6.1.layout.txt.gz")
	want := string(vmlinux) + string(testfixtures.Read(t, "pahole/debian-6.1-kvm.layout.txt.gz"))
	testfixtures.CompareLines(t, []byte(layoutSplit(t, t.TempDir(), base, "kvm")), []byte(want))
}

// TestBTFLayoutSplitPahole: where pahole 1.24 is installed, and with
// KMETA_HEAVY=1 (.ci/run), two more modules' "btf layout -B BASE MODULE"
// against pahole's output: each prints its base again, in both programs.
func TestBTFLayoutSplitPahole(t *testing.T) {
	t.Parallel()
	if v, err := exec.Command("pahole", "--version").Output(); err != nil || strings.TrimSpace(string(v)) != "v1.24" {
		t.Skip("needs pahole 1.24 for more modules")
	}
	testfixtures.SkipUnlessHeavy(t, "two more modules on their base, against pahole")
	base := testfixtures.File(t, testfixtures.DebianVmlinux)
	dir := t.TempDir()
	for _, mod := range []string{"af_key", "vsock_loopback"} {
		got := layoutSplit(t, dir, base, mod) // (writes the module's file)
		want, err := exec.Command("pahole", "-F", "btf", "--btf_base="+base, filepath.Join(dir, mod+".btf")).Output()
		if err != nil {
			t.Fatalf("pahole: %v", err)
		}
		testfixtures.CompareLines(t, []byte(got), want)
	}
}

// layoutSplit writes the Debian module mod into dir as mod.btf and
// returns what "btf layout -B base" prints for it.
func layoutSplit(t *testing.T, dir, base, mod string) string {
	t.Helper()
	path := filepath.Join(dir, mod+".btf")
	if err := os.WriteFile(path, testfixtures.Modules(t)[mod], 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := kmeta(t, nil, "btf", "layout", "-B", base, path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBTFLayoutJSONTypes: member types in layout's JSON have no spaces at
// their ends or doubled (pahole's text has "union " for an anonymous
// union, and "const char  *"), and anonymous ones are named by kind.
func TestBTFLayoutJSONTypes(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	out, err := kmeta(t, nil, "btf", "layout", "task_struct", "sk_buff", "kobj_type", deb, "--json")
	if err != nil {
		t.Fatal(err)
	}
	type member struct {
		Type    string   `json:"type"`
		Members []member `json:"members"`
	}
	var got []struct{ Members []member }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	var walk func(ms []member)
	walk = func(ms []member) {
		for _, m := range ms {
			if m.Type != strings.TrimSpace(m.Type) || strings.Contains(m.Type, "  ") {
				t.Errorf("member type %q", m.Type)
			}
			kinds[m.Type] = true
			walk(m.Members)
		}
	}
	for _, s := range got {
		walk(s.Members)
	}
	if !kinds["union"] || !kinds["struct"] {
		t.Errorf("no anonymous union or struct named by its kind among %d types", len(kinds))
	}
}
